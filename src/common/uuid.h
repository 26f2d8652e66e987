// UUIDs for blob, attachment, job and request identifiers: random
// (version 4) and time-ordered (version 7). Thread-safe.
#pragma once

#include <chrono>
#include <string>

namespace stowage {

// Lowercase canonical form, e.g. "3f2c1a9e-7b4d-4e1f-9a2b-0c5d6e7f8a9b".
std::string uuid_v4();

// RFC 9562 version 7: the Unix time in milliseconds, then the sub-millisecond
// fraction in the 12 bits of rand_a (microsecond precision), then 62 random
// bits. Ids made from readings at least a microsecond apart sort (as
// strings) in time order, the same order as iso8601_utc_micros() of those
// readings.
std::string uuid_v7(std::chrono::system_clock::time_point time);

}  // namespace stowage
