#include "common/uuid.h"

#include <cstdint>

#include "common/clock.h"
#include "common/digest.h"

namespace stowage {

namespace {

std::string canonical_form(const std::string& bytes) {
  std::string hex = to_hex(bytes);
  return hex.substr(0, 8) + '-' + hex.substr(8, 4) + '-' + hex.substr(12, 4) +
         '-' + hex.substr(16, 4) + '-' + hex.substr(20, 12);
}

}  // namespace

std::string uuid_v4() {
  std::string bytes = random_bytes(16);
  // RFC 4122 §4.4: version 4 in the high nibble of byte 6, variant 10xx in
  // byte 8.
  bytes[6] = static_cast<char>((static_cast<unsigned char>(bytes[6]) & 0x0f) | 0x40);
  bytes[8] = static_cast<char>((static_cast<unsigned char>(bytes[8]) & 0x3f) | 0x80);
  return canonical_form(bytes);
}

std::string uuid_v7(std::chrono::system_clock::time_point time) {
  const std::int64_t micros = micros_since_epoch(time);
  const auto millis = static_cast<std::uint64_t>(micros / 1000);
  // RFC 9562 §6.2 method 3: the sub-millisecond fraction scaled to 12 bits.
  // Scaling (not the raw microseconds) keeps rand_a's full range in use;
  // floor division keeps the mapping monotonic.
  const auto fraction =
      static_cast<std::uint32_t>((micros % 1000) * 4096 / 1000);
  std::string bytes = random_bytes(16);
  for (int i = 0; i < 6; ++i) {
    bytes[i] = static_cast<char>((millis >> (40 - 8 * i)) & 0xff);
  }
  bytes[6] = static_cast<char>(0x70 | (fraction >> 8));
  bytes[7] = static_cast<char>(fraction & 0xff);
  bytes[8] = static_cast<char>((static_cast<unsigned char>(bytes[8]) & 0x3f) | 0x80);
  return canonical_form(bytes);
}

}  // namespace stowage
