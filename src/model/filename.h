// Filename sanitizing: the name a blob is stored and served under.
// Thread-safe: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace stowage::model {

// The filename with surrounding whitespace trimmed and every character that
// could steer a path or a header replaced with '-': control characters,
// '/', '\\', ':', '*', '?', '"', '<', '>', '|', '%', '$', ';' and the
// right-to-left override U+202E (which disguises an extension); invalid
// UTF-8 bytes become '-' too. The extension is kept. A result that is empty,
// "." or ".." becomes "file". As Active Storage's Filename#sanitized.
std::string sanitize_filename(std::string_view filename);

}  // namespace stowage::model
