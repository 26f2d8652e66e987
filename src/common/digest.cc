#include "common/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <climits>

#include "stowage/error.h"

namespace stowage {

namespace {

std::string evp_digest(const EVP_MD* type, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), out, &length, type, nullptr) != 1) {
    throw Error(ErrorCode::IoError, "OpenSSL digest failed");
  }
  return std::string(reinterpret_cast<const char*>(out), length);
}

}  // namespace

std::string sha256(std::string_view data) {
  return evp_digest(EVP_sha256(), data);
}

std::string md5(std::string_view data) { return evp_digest(EVP_md5(), data); }

std::string hmac_sha256(std::string_view key, std::string_view data) {
  if (key.size() > static_cast<std::size_t>(INT_MAX)) {
    throw Error::validation("HMAC key too long");
  }
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(),
           out, &length) == nullptr) {
    throw Error(ErrorCode::IoError, "OpenSSL HMAC-SHA256 failed");
  }
  return std::string(reinterpret_cast<const char*>(out), length);
}

struct Md5Stream::Context {
  struct Free {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
  };
  std::unique_ptr<EVP_MD_CTX, Free> ctx{EVP_MD_CTX_new()};
};

Md5Stream::Md5Stream() : context_(std::make_unique<Context>()) {
  if (!context_->ctx ||
      EVP_DigestInit_ex(context_->ctx.get(), EVP_md5(), nullptr) != 1) {
    throw Error(ErrorCode::IoError, "OpenSSL MD5 initialisation failed");
  }
}

Md5Stream::~Md5Stream() = default;
Md5Stream::Md5Stream(Md5Stream&&) noexcept = default;
Md5Stream& Md5Stream::operator=(Md5Stream&&) noexcept = default;

void Md5Stream::update(std::string_view data) {
  if (EVP_DigestUpdate(context_->ctx.get(), data.data(), data.size()) != 1) {
    throw Error(ErrorCode::IoError, "OpenSSL MD5 update failed");
  }
}

std::string Md5Stream::finish() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_->ctx.get(), out, &length) != 1) {
    throw Error(ErrorCode::IoError, "OpenSSL MD5 finalisation failed");
  }
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char byte : bytes) {
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0x0f]);
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  // EVP_EncodeBlock takes an int length; encode in chunks that are a
  // multiple of 3 bytes so the pieces concatenate without inner padding.
  constexpr std::size_t kChunk = 3 * (1 << 20);
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t offset = 0; offset < bytes.size(); offset += kChunk) {
    std::string_view piece = bytes.substr(offset, kChunk);
    std::string encoded((piece.size() + 2) / 3 * 4 + 1, '\0');
    int written = EVP_EncodeBlock(
        reinterpret_cast<unsigned char*>(encoded.data()),
        reinterpret_cast<const unsigned char*>(piece.data()),
        static_cast<int>(piece.size()));
    out.append(encoded.data(), static_cast<std::size_t>(written));
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() &&
         text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  // EVP_DecodeBlock tolerates surrounding whitespace and misplaced '=';
  // check the alphabet strictly first.
  for (std::size_t i = 0; i < text.size() - padding; ++i) {
    char c = text[i];
    bool valid = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                 (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!valid) return std::nullopt;
  }
  std::string out;
  constexpr std::size_t kChunk = 4 * (1 << 20);
  for (std::size_t offset = 0; offset < text.size(); offset += kChunk) {
    std::string_view piece = text.substr(offset, kChunk);
    std::string decoded(piece.size() / 4 * 3, '\0');
    int written = EVP_DecodeBlock(
        reinterpret_cast<unsigned char*>(decoded.data()),
        reinterpret_cast<const unsigned char*>(piece.data()),
        static_cast<int>(piece.size()));
    if (written < 0) return std::nullopt;
    out.append(decoded.data(), static_cast<std::size_t>(written));
  }
  // EVP_DecodeBlock counts the padding as zero bytes of output.
  out.resize(out.size() - padding);
  // The decoder ignores the unused low bits of the last character, so
  // several strings would decode to the same bytes; accept only the one
  // encoding that base64_encode writes.
  if (base64_encode(out) != text) return std::nullopt;
  return out;
}

std::string random_bytes(std::size_t count) {
  std::string out(count, '\0');
  constexpr std::size_t kChunk = 1 << 20;
  for (std::size_t offset = 0; offset < count; offset += kChunk) {
    std::size_t length = std::min(kChunk, count - offset);
    if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data() + offset),
                   static_cast<int>(length)) != 1) {
      throw Error(ErrorCode::IoError,
                  "the system random source failed (OpenSSL RAND_bytes); "
                  "check that /dev/urandom or getrandom() is available");
    }
  }
  return out;
}

}  // namespace stowage
