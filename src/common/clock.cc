#include "common/clock.h"

#include <fmt/format.h>

namespace stowage {

std::int64_t micros_since_epoch(std::chrono::system_clock::time_point time) {
  return std::chrono::floor<std::chrono::microseconds>(time)
      .time_since_epoch()
      .count();
}

std::string iso8601_utc_micros(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  // floor, not truncation toward zero, so times before the epoch still
  // print a fraction in [0, 1) s.
  const auto micros = floor<microseconds>(time);
  const auto day = floor<days>(micros);
  const year_month_day date{day};
  const hh_mm_ss<microseconds> clock{micros - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
                     static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()),
                     static_cast<unsigned>(date.day()), clock.hours().count(),
                     clock.minutes().count(), clock.seconds().count(),
                     clock.subseconds().count());
}

}  // namespace stowage
