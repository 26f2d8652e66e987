#include "model/blob_key.h"

#include "common/digest.h"

namespace stowage::model {

std::string generate_blob_key() {
  static constexpr std::string_view kAlphabet =
      "0123456789abcdefghijklmnopqrstuvwxyz";
  // 252 = 7 × 36: bytes at or above it are discarded, so `byte % 36` is
  // uniform (rejection sampling instead of modulo bias).
  static constexpr unsigned kLimit = 252;
  std::string key;
  key.reserve(kBlobKeyLength);
  while (key.size() < kBlobKeyLength) {
    // 1.6% of bytes are rejected; a few spare bytes usually finish in one
    // draw.
    for (const char c : random_bytes(kBlobKeyLength - key.size() + 4)) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= kLimit) continue;
      key.push_back(kAlphabet[byte % kAlphabet.size()]);
      if (key.size() == kBlobKeyLength) break;
    }
  }
  return key;
}

}  // namespace stowage::model
