// ProgressBar: `[#####     ] 12/40 owners` redrawn in place on stderr, for
// commands that walk many items. It draws only when stderr is a terminal,
// so scripts and logs that capture the output see none of it.
//
// Thread-compatible: one command thread updates it.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace stowage::cli {

class ProgressBar {
 public:
  // `unit` names what is counted ("owners", "ledgers"). Walks of fewer
  // than `minimum` items finish too fast to need a bar.
  explicit ProgressBar(std::string unit, std::size_t minimum = 20);
  // Erases the bar.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // `done` of `total`; the total may change (a walk that starts again).
  void update(std::size_t done, std::size_t total);

 private:
  std::string unit_;
  std::size_t minimum_;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace stowage::cli
