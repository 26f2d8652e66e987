// Digests, encodings and randomness on OpenSSL (never hand-written crypto).
//
// Free functions are pure and thread-safe. Md5Stream is a value owned by one
// thread at a time (not safe for concurrent use of one instance).
// Digest results are raw bytes; use to_hex() or base64_encode() to print them.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace stowage {

std::string sha256(std::string_view data);
std::string hmac_sha256(std::string_view key, std::string_view data);
std::string md5(std::string_view data);

// MD5 over data that arrives in pieces, so a streamed upload is checksummed
// in the same pass that writes it.
class Md5Stream {
 public:
  Md5Stream();
  ~Md5Stream();
  Md5Stream(Md5Stream&&) noexcept;
  Md5Stream& operator=(Md5Stream&&) noexcept;
  Md5Stream(const Md5Stream&) = delete;
  Md5Stream& operator=(const Md5Stream&) = delete;

  // REQUIRES: finish() has not been called.
  void update(std::string_view data);
  // The raw 16-byte digest of everything passed to update().
  // REQUIRES: finish() has not been called.
  std::string finish();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// Lowercase hexadecimal, two characters per byte.
std::string to_hex(std::string_view bytes);

// Standard alphabet with '=' padding (RFC 4648 §4), as S3's Content-MD5 uses.
std::string base64_encode(std::string_view bytes);
// nullopt unless `text` is canonical padded base64 without whitespace.
std::optional<std::string> base64_decode(std::string_view text);

// Cryptographically secure random bytes. Throws Error(IoError) if the
// system's random source fails.
std::string random_bytes(std::size_t count);

}  // namespace stowage
