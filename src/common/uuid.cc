#include "common/uuid.h"

#include "common/digest.h"

namespace stowage {

std::string uuid_v4() {
  std::string bytes = random_bytes(16);
  // RFC 4122 §4.4: version 4 in the high nibble of byte 6, variant 10xx in
  // byte 8.
  bytes[6] = static_cast<char>((static_cast<unsigned char>(bytes[6]) & 0x0f) | 0x40);
  bytes[8] = static_cast<char>((static_cast<unsigned char>(bytes[8]) & 0x3f) | 0x80);
  std::string hex = to_hex(bytes);
  return hex.substr(0, 8) + '-' + hex.substr(8, 4) + '-' + hex.substr(12, 4) +
         '-' + hex.substr(16, 4) + '-' + hex.substr(20, 12);
}

}  // namespace stowage
