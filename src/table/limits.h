// DynamoDB's limits, enforced by every engine so that code that works
// embedded works on DynamoDB.
#pragma once

#include <cstddef>

namespace stowage::table::limits {

inline constexpr std::size_t kMaxItemBytes = 400 * 1024;
inline constexpr std::size_t kMaxHashKeyBytes = 2048;
inline constexpr std::size_t kMaxRangeKeyBytes = 1024;
inline constexpr std::size_t kMaxTransactionActions = 100;
inline constexpr std::size_t kMaxPageBytes = 1024 * 1024;
inline constexpr std::size_t kMaxNumberDigits = 38;
inline constexpr int kMaxNestingDepth = 32;  // levels of M and L
inline constexpr int kIdempotencyWindowSeconds = 600;

}  // namespace stowage::table::limits
