#include "model/filename.h"

#include <cstddef>

namespace stowage::model {

namespace {

constexpr std::string_view kPathCharacters = "/\\:*?\"<>|%$;";
// U+202E RIGHT-TO-LEFT OVERRIDE in UTF-8: "gpj.exe" displayed as "exe.jpg".
constexpr std::string_view kRightToLeftOverride = "\xE2\x80\xAE";

// The length of the well-formed UTF-8 sequence at the start of `s`, or 0
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (b0 < 0x80) return 1;
  std::size_t length;
  unsigned char low = 0x80, high = 0xBF;  // bounds of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;
    if (b0 == 0xED) high = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;
    if (b0 == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    const unsigned char lo = i == 1 ? low : 0x80;
    const unsigned char hi = i == 1 ? high : 0xBF;
    if (b < lo || b > hi) return 0;
  }
  return length;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

}  // namespace

std::string sanitize_filename(std::string_view filename) {
  while (!filename.empty() && is_space(filename.front())) filename.remove_prefix(1);
  while (!filename.empty() && is_space(filename.back())) filename.remove_suffix(1);

  std::string sanitized;
  sanitized.reserve(filename.size());
  while (!filename.empty()) {
    const std::size_t length = utf8_sequence_length(filename);
    if (length == 0) {
      sanitized.push_back('-');
      filename.remove_prefix(1);
      continue;
    }
    const std::string_view character = filename.substr(0, length);
    const auto first = static_cast<unsigned char>(character[0]);
    const bool control = length == 1 && (first < 0x20 || first == 0x7F);
    const bool path =
        length == 1 && kPathCharacters.find(character[0]) != std::string_view::npos;
    if (control || path || character == kRightToLeftOverride) {
      sanitized.push_back('-');
    } else {
      sanitized.append(character);
    }
    filename.remove_prefix(length);
  }
  if (sanitized.empty() || sanitized == "." || sanitized == "..") return "file";
  return sanitized;
}

}  // namespace stowage::model
