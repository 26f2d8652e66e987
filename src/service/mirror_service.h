// MirrorService: one primary service and mirrors that hold copies of every
// object (Active Storage's MirrorService), e.g. while migrating from one
// store to another or to keep a second copy elsewhere.
//
// Uploads go to the primary first, then to each mirror; reads come from the
// primary; removals go everywhere. An upload succeeds only once every copy
// is durable, so metadata never references bytes a mirror lacks.
//
// Thread-safe if the wrapped services are.
#pragma once

#include <memory>
#include <vector>

#include "service/service.h"

namespace stowage::service {

class MirrorService final : public Service {
 public:
  // REQUIRES: primary is not null.
  MirrorService(std::shared_ptr<Service> primary,
                std::vector<std::shared_ptr<Service>> mirrors);

  // Each mirror is fed from the primary's copy and must produce the same
  // checksum. If any copy fails, the copies already made are removed and
  // the error is rethrown.
  UploadResult upload(std::string_view key, ByteSource& source,
                      const UploadOptions& options) override;
  void download(std::string_view key, ByteSink& sink) override;
  std::string download_range(std::string_view key, std::uint64_t offset,
                             std::uint64_t length) override;
  // Primary first, then every mirror; the first error is rethrown after all
  // have been tried, so a retry finishes what one failure left.
  void remove(std::string_view key) override;
  void remove_prefixed(std::string_view prefix) override;
  bool exists(std::string_view key) override;
  std::vector<ObjectInfo> list_objects(std::string_view prefix) override;
  std::string url(std::string_view key, std::chrono::seconds expires_in,
                  std::string_view filename, std::string_view content_type,
                  Disposition disposition) override;

  // Copies the primary's object to every mirror that lacks it (Active
  // Storage's mirror_later work), checking `checksum` on each copy.
  // Throws Error(RecordNotFound) if the primary has no such object.
  void mirror(std::string_view key, const std::string& checksum);

  Service& primary() { return *primary_; }

 private:
  void copy_to(Service& mirror, std::string_view key,
               const UploadOptions& options);

  const std::shared_ptr<Service> primary_;
  const std::vector<std::shared_ptr<Service>> mirrors_;
};

}  // namespace stowage::service
