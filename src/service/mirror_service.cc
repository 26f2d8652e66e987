#include "service/mirror_service.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "stowage/error.h"

namespace stowage::service {

namespace {

// Streams an object out of a service in bounded ranges, so copying to a
// mirror never holds a whole object in memory.
class RangeSource final : public ByteSource {
 public:
  RangeSource(Service& service, std::string_view key)
      : service_(service), key_(key) {}

  std::size_t read(char* buf, std::size_t n) override {
    if (position_ == pending_.size()) {
      if (finished_) return 0;
      pending_ = service_.download_range(key_, offset_, kRangeSize);
      offset_ += pending_.size();
      finished_ = pending_.size() < kRangeSize;
      position_ = 0;
    }
    const std::size_t count = std::min(n, pending_.size() - position_);
    std::copy_n(pending_.data() + position_, count, buf);
    position_ += count;
    return count;
  }

 private:
  static constexpr std::uint64_t kRangeSize = 4 << 20;

  Service& service_;
  const std::string key_;
  std::uint64_t offset_ = 0;
  std::string pending_;
  std::size_t position_ = 0;
  bool finished_ = false;
};

// Runs `action` on every service, then rethrows the first failure.
template <typename Action>
void on_every(const std::shared_ptr<Service>& primary,
              const std::vector<std::shared_ptr<Service>>& mirrors,
              Action action) {
  std::exception_ptr first_failure;
  const auto attempt = [&](Service& service) {
    try {
      action(service);
    } catch (...) {
      if (!first_failure) first_failure = std::current_exception();
    }
  };
  attempt(*primary);
  for (const auto& mirror : mirrors) attempt(*mirror);
  if (first_failure) std::rethrow_exception(first_failure);
}

}  // namespace

MirrorService::MirrorService(std::shared_ptr<Service> primary,
                             std::vector<std::shared_ptr<Service>> mirrors)
    : primary_(std::move(primary)), mirrors_(std::move(mirrors)) {}

void MirrorService::copy_to(Service& mirror, std::string_view key,
                            const UploadOptions& options) {
  RangeSource source(*primary_, key);
  mirror.upload(key, source, options);
}

UploadResult MirrorService::upload(std::string_view key, ByteSource& source,
                                   const UploadOptions& options) {
  const UploadResult result = primary_->upload(key, source, options);
  UploadOptions copy_options = options;
  copy_options.checksum = result.checksum;
  std::size_t copied = 0;
  try {
    for (; copied < mirrors_.size(); ++copied) {
      copy_to(*mirrors_[copied], key, copy_options);
    }
  } catch (...) {
    // The failed mirror removed its own partial copy; undo the rest, keeping
    // the original error, which says what went wrong.
    for (std::size_t i = 0; i < copied; ++i) {
      try {
        mirrors_[i]->remove(key);
      } catch (const Error&) {
      }
    }
    try {
      primary_->remove(key);
    } catch (const Error&) {
    }
    throw;
  }
  return result;
}

void MirrorService::mirror(std::string_view key, const std::string& checksum) {
  if (!primary_->exists(key)) {
    throw Error::not_found("the primary service has no object under key \"" +
                           std::string(key) + "\" to mirror");
  }
  UploadOptions options;
  options.checksum = checksum;
  for (const auto& mirror : mirrors_) {
    if (!mirror->exists(key)) copy_to(*mirror, key, options);
  }
}

void MirrorService::download(std::string_view key, ByteSink& sink) {
  primary_->download(key, sink);
}

std::string MirrorService::download_range(std::string_view key,
                                          std::uint64_t offset,
                                          std::uint64_t length) {
  return primary_->download_range(key, offset, length);
}

void MirrorService::remove(std::string_view key) {
  on_every(primary_, mirrors_, [&](Service& service) { service.remove(key); });
}

void MirrorService::remove_prefixed(std::string_view prefix) {
  on_every(primary_, mirrors_,
           [&](Service& service) { service.remove_prefixed(prefix); });
}

bool MirrorService::exists(std::string_view key) {
  return primary_->exists(key);
}

std::vector<ObjectInfo> MirrorService::list_objects(std::string_view prefix) {
  return primary_->list_objects(prefix);
}

std::string MirrorService::url(std::string_view key,
                               std::chrono::seconds expires_in,
                               std::string_view filename,
                               std::string_view content_type,
                               Disposition disposition) {
  return primary_->url(key, expires_in, filename, content_type, disposition);
}

}  // namespace stowage::service
