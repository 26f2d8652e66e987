// DiskService: blobs as files under a root directory, in Active Storage's
// layout root/ab/cd/abcd… (the key's first two characters, the next two,
// then the whole key), so no directory grows past 1296 entries per level
// with Active Storage's base-36 keys.
//
// An upload is written to a temporary file beside its final name, fsync'd,
// renamed into place, and the directory fsync'd (as is every directory the
// upload created), so after a crash a key holds either nothing or all of
// its bytes. Keys that could name anything outside the root are rejected.
//
// Thread-safe: concurrent uploads, reads and removals may use one instance.
// Concurrent uploads to one key leave one of the uploads' bytes, whole.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "service/service.h"

namespace stowage::service {

// The system calls through which DiskService writes and makes bytes
// durable. The default forwards to POSIX; tests substitute one that fails
// (ENOSPC, EIO) or records what was fsync'd.
// Thread-safe: every upload calls it concurrently.
class DiskIo {
 public:
  virtual ~DiskIo() = default;
  // The contracts of write(2) and fsync(2): -1 with errno set on failure.
  virtual ssize_t write(int fd, const char* data, std::size_t size);
  virtual int fsync(int fd);
};

struct DiskServiceOptions {
  std::filesystem::path root;
  // Path under which the HTTP layer serves this service's URLs.
  std::string url_prefix = "/disk";
  // HMAC-SHA256 key that signs URLs; url() requires one.
  std::string url_secret;
  // Null means POSIX.
  std::shared_ptr<DiskIo> io;
};

// What a URL from DiskService::url() carries, decoded by the HTTP layer.
struct DiskUrlFields {
  std::string key;
  std::string filename;
  std::string content_type;
  Disposition disposition = Disposition::Inline;
  std::int64_t expires_at = 0;  // seconds since the Unix epoch
  std::string signature;        // lowercase hex
};

class DiskService final : public Service {
 public:
  // Creates the root directory if it is missing.
  // Throws Error(IoError) naming the root if it cannot be created.
  explicit DiskService(DiskServiceOptions options);

  // Throws Error(IoError) naming the path and the system's reason; a full
  // disk (ENOSPC, EDQUOT) says "disk full".
  UploadResult upload(std::string_view key, ByteSource& source,
                      const UploadOptions& options) override;
  void download(std::string_view key, ByteSink& sink) override;
  std::string download_range(std::string_view key, std::uint64_t offset,
                             std::uint64_t length) override;
  void remove(std::string_view key) override;
  void remove_prefixed(std::string_view prefix) override;
  bool exists(std::string_view key) override;
  std::vector<ObjectInfo> list_objects(std::string_view prefix) override;

  // "<url_prefix>/<key>/<filename>?content_type=…&disposition=…&expires=…
  // &signature=…", every component percent-encoded, for the HTTP layer to
  // check with verify_url() and serve.
  // Throws Error(ConfigurationError) if no url_secret is configured.
  std::string url(std::string_view key, std::chrono::seconds expires_in,
                  std::string_view filename, std::string_view content_type,
                  Disposition disposition) override;

  // True if url() signed exactly these fields and `now` is before expiry.
  bool verify_url(const DiskUrlFields& fields,
                  std::chrono::system_clock::time_point now) const;

  // root/ab/cd/abcd…
  // Throws Error(InvalidKey) unless the key is 4 to 200 characters of
  // [a-z0-9._-], does not start with '.', and has no "..": such a key can
  // only name a file inside the root, and never a temporary file.
  std::filesystem::path path_for(std::string_view key) const;

  const std::filesystem::path& root() const { return options_.root; }

 private:
  void create_directories_for(const std::filesystem::path& path);
  void sync_directory(const std::filesystem::path& directory);
  std::string sign(const DiskUrlFields& fields) const;

  const DiskServiceOptions options_;
  // Directories whose entry in their parent is known to be durable. One that
  // merely exists may come from an upload that has not fsync'd its parent
  // yet, so the first upload here to use a directory fsyncs its parent.
  std::mutex durable_directories_mutex_;
  std::set<std::filesystem::path> durable_directories_;
};

}  // namespace stowage::service
