#include "model/signed_id.h"

#include <openssl/crypto.h>

#include <charconv>
#include <cstdint>

#include "common/clock.h"
#include "common/digest.h"
#include "stowage/error.h"

namespace stowage::model {

namespace {

constexpr std::size_t kMinimumSecretLength = 32;
constexpr std::string_view kSeparator = "--";

// RFC 4648 §5 without padding: safe in URL paths and query strings.
std::string base64url_encode(std::string_view bytes) {
  std::string text = base64_encode(bytes);
  while (!text.empty() && text.back() == '=') text.pop_back();
  for (char& c : text) {
    if (c == '+') c = '-';
    else if (c == '/') c = '_';
  }
  return text;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  std::string standard(text);
  for (char& c : standard) {
    if (c == '-') c = '+';
    else if (c == '_') c = '/';
    else if (c == '+' || c == '/' || c == '=') return std::nullopt;
  }
  standard.append((4 - standard.size() % 4) % 4, '=');
  // base64_decode accepts only canonical text, so one signed id has one
  // spelling.
  return base64_decode(standard);
}

}  // namespace

MessageVerifier::MessageVerifier(std::string secret) : secret_(std::move(secret)) {
  if (secret_.size() < kMinimumSecretLength) {
    throw Error::configuration(
        "the signed id secret has " + std::to_string(secret_.size()) +
        " bytes; use at least " + std::to_string(kMinimumSecretLength) +
        " random bytes (e.g. `openssl rand -hex 32`)");
  }
}

std::string MessageVerifier::mac(std::string_view purpose,
                                 std::string_view payload) const {
  // The purpose is length-prefixed so that no (purpose, payload) pair can
  // be re-split into another.
  std::string message = "stowage.blob_id\n";
  message += std::to_string(purpose.size());
  message += ':';
  message += purpose;
  message += payload;
  return hmac_sha256(secret_, message);
}

std::string MessageVerifier::generate(
    std::string_view blob_id, std::string_view purpose,
    std::optional<std::chrono::system_clock::time_point> expires_at) const {
  std::string payload;
  if (expires_at) payload = std::to_string(micros_since_epoch(*expires_at));
  payload += ':';
  payload += blob_id;
  return base64url_encode(payload) + std::string(kSeparator) +
         base64url_encode(mac(purpose, payload));
}

std::optional<std::string> MessageVerifier::verify(
    std::string_view signed_id, std::string_view purpose,
    std::chrono::system_clock::time_point now) const {
  const std::size_t split = signed_id.find(kSeparator);
  if (split == std::string_view::npos) return std::nullopt;
  const std::optional<std::string> payload =
      base64url_decode(signed_id.substr(0, split));
  const std::optional<std::string> given_mac =
      base64url_decode(signed_id.substr(split + kSeparator.size()));
  if (!payload || !given_mac) return std::nullopt;

  const std::string expected_mac = mac(purpose, *payload);
  if (given_mac->size() != expected_mac.size() ||
      CRYPTO_memcmp(given_mac->data(), expected_mac.data(),
                    expected_mac.size()) != 0) {
    return std::nullopt;
  }

  // Authentic from here on: the payload is one generate() wrote.
  const std::size_t colon = payload->find(':');
  if (colon == std::string::npos) return std::nullopt;
  if (colon > 0) {
    std::int64_t expires_at = 0;
    const char* begin = payload->data();
    const auto [end, error] = std::from_chars(begin, begin + colon, expires_at);
    if (error != std::errc() || end != begin + colon) return std::nullopt;
    if (micros_since_epoch(now) >= expires_at) return std::nullopt;
  }
  std::string blob_id = payload->substr(colon + 1);
  if (blob_id.empty()) return std::nullopt;
  return blob_id;
}

}  // namespace stowage::model
