// Time formats Stowage writes to its items: created_at strings and the
// microsecond counters jobs are scheduled by. Both come from one
// system_clock reading, so a record's id (UUID v7) and its created_at order
// alike. Thread-safe: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace stowage {

// "2026-06-02T10:11:12.123456Z": UTC, always six fractional digits, so the
// strings sort in time order.
std::string iso8601_utc_micros(std::chrono::system_clock::time_point time);

// Microseconds since the Unix epoch (negative before it).
std::int64_t micros_since_epoch(std::chrono::system_clock::time_point time);

}  // namespace stowage
