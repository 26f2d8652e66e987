// Blob service keys and filenames, as Active Storage makes them.
// Thread-safe: pure functions (generate_blob_key reads OpenSSL's RNG).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stowage::model {

inline constexpr std::size_t kBlobKeyLength = 28;

// 28 characters of [0-9a-z] from a secure random source, every character
// uniformly distributed (no modulo bias): Active Storage's
// has_secure_token(:key, length: 28). Throws Error(IoError) if the random
// source fails.
std::string generate_blob_key();

}  // namespace stowage::model
