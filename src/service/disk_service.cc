#include "service/disk_service.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

#include "common/digest.h"
#include "common/uri_encoding.h"
#include "stowage/error.h"

namespace stowage::service {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunkSize = 1 << 20;
constexpr std::size_t kMinKeyLength = 4;  // both folder levels are full
constexpr std::size_t kMaxKeyLength = 200;  // room for the temporary name

Error io_error(std::string_view action, const fs::path& path, int error) {
  std::string message;
  if (error == ENOSPC || error == EDQUOT) message = "disk full: ";
  message += std::string(action) + " " + path.string() + ": " +
             std::strerror(error);
  return Error::io(std::move(message));
}

bool is_key_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

// Checks the characters shared by keys and prefixes; `what` names which.
void validate_characters(std::string_view text, std::string_view what) {
  const auto quoted = [&] { return std::string(what) + " \"" + std::string(text) + "\""; };
  if (text.size() > kMaxKeyLength) {
    throw Error::invalid_key(quoted() + " is longer than " +
                             std::to_string(kMaxKeyLength) + " characters");
  }
  if (!std::all_of(text.begin(), text.end(), is_key_character)) {
    throw Error::invalid_key(quoted() +
                             " may only contain a-z, 0-9, '.', '-' and '_'");
  }
  if (!text.empty() && text.front() == '.') {
    throw Error::invalid_key(quoted() + " must not start with '.'");
  }
  if (text.find("..") != std::string_view::npos) {
    throw Error::invalid_key(quoted() + " must not contain \"..\"");
  }
}

bool is_valid_key(std::string_view name) {
  try {
    validate_characters(name, "key");
  } catch (const Error&) {
    return false;
  }
  return name.size() >= kMinKeyLength;
}

// Could a folder named `folder` at this level hold keys starting with
// `prefix`, given that the level covers prefix characters [offset, +2)?
bool folder_matches(std::string_view folder, std::string_view prefix,
                    std::size_t offset) {
  if (folder.size() != 2) return false;
  if (prefix.size() <= offset) return true;
  const std::string_view wanted = prefix.substr(offset, 2);
  return folder.substr(0, wanted.size()) == wanted;
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  // close(2)'s result, so a deferred write error is not lost.
  int close() { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

int open_for_reading(const fs::path& path, std::string_view key) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      throw Error::not_found("no object under key \"" + std::string(key) +
                             "\" (" + path.string() + ")");
    }
    throw io_error("cannot open", path, errno);
  }
  return fd;
}

// Unlinks a file on scope exit unless released: the temporary file while an
// upload is in flight, then the final file until its directory is durable.
class RemoveOnFailure {
 public:
  explicit RemoveOnFailure(fs::path path) : path_(std::move(path)) {}
  ~RemoveOnFailure() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  RemoveOnFailure(const RemoveOnFailure&) = delete;
  RemoveOnFailure& operator=(const RemoveOnFailure&) = delete;
  void reset(fs::path path) { path_ = std::move(path); }
  void release() { path_.clear(); }

 private:
  fs::path path_;
};

DiskServiceOptions with_posix_io_by_default(DiskServiceOptions options) {
  if (!options.io) options.io = std::make_shared<DiskIo>();
  return options;
}

}  // namespace

ssize_t DiskIo::write(int fd, const char* data, std::size_t size) {
  return ::write(fd, data, size);
}

int DiskIo::fsync(int fd) { return ::fsync(fd); }

DiskService::DiskService(DiskServiceOptions options)
    : options_(with_posix_io_by_default(std::move(options))) {
  std::error_code error;
  fs::create_directories(options_.root, error);
  if (error) {
    throw Error::io("cannot create disk service root " +
                    options_.root.string() + ": " + error.message());
  }
}

fs::path DiskService::path_for(std::string_view key) const {
  validate_characters(key, "key");
  if (key.size() < kMinKeyLength) {
    throw Error::invalid_key("key \"" + std::string(key) +
                             "\" is shorter than " +
                             std::to_string(kMinKeyLength) + " characters");
  }
  return options_.root / key.substr(0, 2) / key.substr(2, 2) / key;
}

void DiskService::sync_directory(const fs::path& directory) {
  FileDescriptor fd(
      ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) throw io_error("cannot open directory", directory, errno);
  if (options_.io->fsync(fd.get()) != 0) {
    throw io_error("cannot fsync directory", directory, errno);
  }
}

void DiskService::create_directories_for(const fs::path& path) {
  for (const fs::path& directory :
       {path.parent_path().parent_path(), path.parent_path()}) {
    {
      std::lock_guard lock(durable_directories_mutex_);
      if (durable_directories_.count(directory)) continue;
    }
    if (::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST) {
      throw io_error("cannot create directory", directory, errno);
    }
    sync_directory(directory.parent_path());
    std::lock_guard lock(durable_directories_mutex_);
    durable_directories_.insert(directory);
  }
}

UploadResult DiskService::upload(std::string_view key, ByteSource& source,
                                 const UploadOptions& options) {
  const fs::path path = path_for(key);
  create_directories_for(path);

  const fs::path temporary =
      path.parent_path() /
      ("." + std::string(key) + ".tmp-" + to_hex(random_bytes(8)));
  FileDescriptor fd(::open(temporary.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw io_error("cannot create", temporary, errno);
  RemoveOnFailure cleanup(temporary);

  Md5Stream md5;
  UploadResult result;
  std::vector<char> buffer(kChunkSize);
  while (const std::size_t count = source.read(buffer.data(), buffer.size())) {
    md5.update(std::string_view(buffer.data(), count));
    for (std::size_t written = 0; written < count;) {
      const ssize_t n =
          options_.io->write(fd.get(), buffer.data() + written, count - written);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw io_error("cannot write", temporary, errno);
      }
      written += static_cast<std::size_t>(n);
    }
    result.byte_size += count;
  }
  result.checksum = base64_encode(md5.finish());
  if (!options.checksum.empty() && options.checksum != result.checksum) {
    throw Error(ErrorCode::IntegrityError,
                "checksum mismatch for key \"" + std::string(key) +
                    "\": expected " + options.checksum + ", got " +
                    result.checksum + "; nothing was stored");
  }

  if (options_.io->fsync(fd.get()) != 0) {
    throw io_error("cannot fsync", temporary, errno);
  }
  if (fd.close() != 0) throw io_error("cannot close", temporary, errno);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    throw io_error("cannot rename " + temporary.string() + " to", path, errno);
  }
  cleanup.reset(path);
  sync_directory(path.parent_path());
  cleanup.release();
  return result;
}

void DiskService::download(std::string_view key, ByteSink& sink) {
  const fs::path path = path_for(key);
  FileDescriptor fd(open_for_reading(path, key));
  std::vector<char> buffer(kChunkSize);
  for (;;) {
    const ssize_t count = ::read(fd.get(), buffer.data(), buffer.size());
    if (count < 0) {
      if (errno == EINTR) continue;
      throw io_error("cannot read", path, errno);
    }
    if (count == 0) return;
    sink.write(std::string_view(buffer.data(), static_cast<std::size_t>(count)));
  }
}

std::string DiskService::download_range(std::string_view key,
                                        std::uint64_t offset,
                                        std::uint64_t length) {
  const fs::path path = path_for(key);
  FileDescriptor fd(open_for_reading(path, key));
  struct stat info;
  if (::fstat(fd.get(), &info) != 0) throw io_error("cannot stat", path, errno);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (offset >= size) return {};
  std::string out(std::min(length, size - offset), '\0');
  std::size_t filled = 0;
  while (filled < out.size()) {
    const ssize_t count = ::pread(fd.get(), out.data() + filled,
                                  out.size() - filled,
                                  static_cast<off_t>(offset + filled));
    if (count < 0) {
      if (errno == EINTR) continue;
      throw io_error("cannot read", path, errno);
    }
    if (count == 0) break;  // truncated since fstat
    filled += static_cast<std::size_t>(count);
  }
  out.resize(filled);
  return out;
}

void DiskService::remove(std::string_view key) {
  const fs::path path = path_for(key);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return;
    throw io_error("cannot remove", path, errno);
  }
  // Durable removal keeps a purged blob's bytes from reappearing after a
  // crash.
  sync_directory(path.parent_path());
}

void DiskService::remove_prefixed(std::string_view prefix) {
  if (prefix.empty()) {
    throw Error::invalid_key("remove_prefixed needs a non-empty prefix");
  }
  for (const ObjectInfo& object : list_objects(prefix)) remove(object.key);
}

bool DiskService::exists(std::string_view key) {
  struct stat info;
  return ::stat(path_for(key).c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::vector<ObjectInfo> DiskService::list_objects(std::string_view prefix) {
  validate_characters(prefix, "prefix");
  std::vector<ObjectInfo> objects;
  const auto folders = [&](const fs::path& parent, std::size_t offset) {
    std::vector<fs::path> matching;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(parent, error)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_directory() && folder_matches(name, prefix, offset)) {
        matching.push_back(entry.path());
      }
    }
    if (error && error != std::errc::no_such_file_or_directory) {
      throw Error::io("cannot list " + parent.string() + ": " + error.message());
    }
    return matching;
  };
  for (const fs::path& first : folders(options_.root, 0)) {
    for (const fs::path& second : folders(first, 2)) {
      std::error_code error;
      for (const auto& entry : fs::directory_iterator(second, error)) {
        const std::string name = entry.path().filename().string();
        // Skips temporary files and anything not in the layout.
        if (!is_valid_key(name) || !name.starts_with(prefix) ||
            name.substr(0, 2) != first.filename().string() ||
            name.substr(2, 2) != second.filename().string()) {
          continue;
        }
        struct stat info;
        if (::stat(entry.path().c_str(), &info) != 0) {
          if (errno == ENOENT) continue;  // removed while listing
          throw io_error("cannot stat", entry.path(), errno);
        }
        if (!S_ISREG(info.st_mode)) continue;
        objects.push_back(
            {name, static_cast<std::uint64_t>(info.st_size),
             std::chrono::system_clock::time_point(
                 std::chrono::duration_cast<std::chrono::system_clock::duration>(
                     std::chrono::seconds(info.st_mtim.tv_sec) +
                     std::chrono::nanoseconds(info.st_mtim.tv_nsec)))});
      }
      if (error && error != std::errc::no_such_file_or_directory) {
        throw Error::io("cannot list " + second.string() + ": " +
                        error.message());
      }
    }
  }
  std::sort(objects.begin(), objects.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return objects;
}

std::string DiskService::sign(const DiskUrlFields& fields) const {
  if (options_.url_secret.empty()) {
    throw Error::configuration("the disk service at " +
                               options_.root.string() +
                               " has no url_secret, so it cannot sign URLs");
  }
  const std::string payload =
      fields.key + '\n' + fields.filename + '\n' + fields.content_type + '\n' +
      std::string(to_string(fields.disposition)) + '\n' +
      std::to_string(fields.expires_at);
  return to_hex(hmac_sha256(options_.url_secret, payload));
}

std::string DiskService::url(std::string_view key,
                             std::chrono::seconds expires_in,
                             std::string_view filename,
                             std::string_view content_type,
                             Disposition disposition) {
  path_for(key);  // rejects a key no object can have
  DiskUrlFields fields{std::string(key), std::string(filename),
                       std::string(content_type), disposition, 0, {}};
  fields.expires_at = std::chrono::duration_cast<std::chrono::seconds>(
                          (std::chrono::system_clock::now() + expires_in)
                              .time_since_epoch())
                          .count();
  const std::string signature = sign(fields);
  return options_.url_prefix + "/" + uri_encode(key, /*keep_slash=*/false) + "/" +
         uri_encode(filename, /*keep_slash=*/false) +
         "?content_type=" + uri_encode(content_type, /*keep_slash=*/false) +
         "&disposition=" + std::string(to_string(disposition)) +
         "&expires=" + std::to_string(fields.expires_at) +
         "&signature=" + signature;
}

bool DiskService::verify_url(const DiskUrlFields& fields,
                             std::chrono::system_clock::time_point now) const {
  const std::string expected = sign(fields);
  if (fields.signature.size() != expected.size() ||
      CRYPTO_memcmp(fields.signature.data(), expected.data(),
                    expected.size()) != 0) {
    return false;
  }
  return now < std::chrono::system_clock::time_point(
                   std::chrono::seconds(fields.expires_at));
}

}  // namespace stowage::service
