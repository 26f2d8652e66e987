#include "cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include <fmt/format.h>

namespace stowage::cli {
namespace {

constexpr std::size_t kWidth = 30;
// A terminal redrawn more often than this only burns the walk's time.
constexpr auto kRedrawInterval = std::chrono::milliseconds(50);

}  // namespace

ProgressBar::ProgressBar(std::string unit, std::size_t minimum)
    : unit_(std::move(unit)), minimum_(minimum), terminal_(::isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void ProgressBar::update(std::size_t done, std::size_t total) {
  if (!terminal_ || total < minimum_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  const std::size_t filled = total == 0 ? kWidth : kWidth * done / total;
  fmt::print(stderr, "\r[{}{}] {}/{} {}", std::string(filled, '#'),
             std::string(kWidth - filled, ' '), done, total, unit_);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace stowage::cli
