// MessageVerifier: signed blob ids (Active Storage's signed_id), so a URL
// can name a blob without letting its holder name any other.
//
// A signed id is base64url(<expiry µs or empty> ":" <blob id>) "--"
// base64url(HMAC-SHA256(secret, purpose and payload)). The purpose is part of
// the MAC but not of the id, so an id signed for one purpose never verifies
// for another. Verification compares MACs in constant time.
//
// Thread-safe: immutable after construction.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace stowage::model {

class MessageVerifier {
 public:
  // Throws Error(ConfigurationError) if the secret is shorter than 32 bytes:
  // anyone who can guess it can forge ids for every blob.
  explicit MessageVerifier(std::string secret);

  // REQUIRES: blob_id is not empty.
  std::string generate(
      std::string_view blob_id, std::string_view purpose,
      std::optional<std::chrono::system_clock::time_point> expires_at) const;

  // The blob id, or nullopt when the id is malformed or tampered with, was
  // signed for another purpose, or expired at or before `now`.
  std::optional<std::string> verify(
      std::string_view signed_id, std::string_view purpose,
      std::chrono::system_clock::time_point now) const;

 private:
  std::string mac(std::string_view purpose, std::string_view payload) const;

  const std::string secret_;
};

}  // namespace stowage::model
