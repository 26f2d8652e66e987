// Service: where blob bytes live (Active Storage's service API).
//
// Keys are opaque names chosen by the model layer; each service decides how
// a key maps onto its storage and rejects keys it cannot store safely
// (Error(InvalidKey)). Bytes are streamed in both directions, so no
// operation holds a whole object in memory except download_range().
//
// Implementations are thread-safe: one instance serves concurrent callers.
// ByteSource and ByteSink instances are owned by one caller at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stowage::service {

// A pull stream of bytes: the body of an upload.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Copies up to n bytes into buf and returns how many; 0 means the end.
  // Throws Error(IoError) if the underlying read fails.
  virtual std::size_t read(char* buf, std::size_t n) = 0;
};

// A push stream of bytes: where a download goes.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(std::string_view chunk) = 0;
};

// Reads from memory the caller keeps alive until the source is done.
class StringSource final : public ByteSource {
 public:
  explicit StringSource(std::string_view data) : data_(data) {}
  std::size_t read(char* buf, std::size_t n) override;

 private:
  std::string_view data_;
};

// Reads a file from its start. Throws Error(IoError) naming the path if it
// cannot be opened.
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  std::size_t read(char* buf, std::size_t n) override;

 private:
  std::string path_;
  int fd_;
};

// Appends everything written to a string.
class StringSink final : public ByteSink {
 public:
  void write(std::string_view chunk) override { data_.append(chunk); }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

struct UploadOptions {
  // Base64 MD5 the bytes must have (Active Storage's blob checksum); empty
  // means "not known in advance". On a mismatch upload() throws
  // Error(IntegrityError) and leaves no object under the key.
  std::string checksum;
  // Stored with the object by services that serve it themselves (S3).
  std::string content_type;
  std::string content_disposition;
};

struct UploadResult {
  std::uint64_t byte_size = 0;
  // Base64 MD5 of the bytes stored, computed while they were streamed.
  std::string checksum;
};

struct ObjectInfo {
  std::string key;
  std::uint64_t byte_size = 0;
  // When the bytes were written: the orphan sweep only removes objects
  // older than a grace period, so an upload whose metadata is about to
  // commit is never mistaken for an orphan.
  std::chrono::system_clock::time_point modified_at;
};

// How a browser should present a served object (Content-Disposition).
enum class Disposition { Inline, Attachment };

std::string_view to_string(Disposition disposition);

class Service {
 public:
  virtual ~Service() = default;

  // Streams `source` to the end into the object `key`, replacing any object
  // already there. The MD5 and the byte count are computed in the same pass
  // as the write. When upload() returns, the bytes are durable: metadata
  // referencing them may commit (DESIGN I5). On any failure, including a
  // checksum mismatch, no object (and no partial object) is left under
  // `key`.
  virtual UploadResult upload(std::string_view key, ByteSource& source,
                              const UploadOptions& options) = 0;

  // Streams the whole object into `sink`.
  // Throws Error(RecordNotFound) if there is no object under `key`.
  virtual void download(std::string_view key, ByteSink& sink) = 0;

  // Up to `length` bytes starting at `offset`: fewer if the object ends
  // first, none if `offset` is at or past its end.
  // Throws Error(RecordNotFound) if there is no object under `key`.
  virtual std::string download_range(std::string_view key,
                                     std::uint64_t offset,
                                     std::uint64_t length) = 0;

  // Removing a missing object is not an error, so a purge can be retried.
  virtual void remove(std::string_view key) = 0;
  // Removes every object whose key starts with `prefix` (e.g. all variants
  // of a blob). REQUIRES: `prefix` is not empty.
  virtual void remove_prefixed(std::string_view prefix) = 0;

  virtual bool exists(std::string_view key) = 0;

  // Every object whose key starts with `prefix` ("" lists everything),
  // ordered by key.
  virtual std::vector<ObjectInfo> list_objects(std::string_view prefix) = 0;

  // A URL a client can fetch the object from until `expires_in` has
  // passed, served with the given filename, content type and disposition.
  virtual std::string url(std::string_view key,
                          std::chrono::seconds expires_in,
                          std::string_view filename,
                          std::string_view content_type,
                          Disposition disposition) = 0;
};

}  // namespace stowage::service
