// History: a ledger's usage in the past, from its permanent entries (the
// append-only trail; DESIGN §5.2). An entry counts at its created_at, the
// time its change was built. Pending entries are not history yet: usage at
// T is final once every entry created before T is materialized, and an
// entry that commits late joins the past at its own time when it is.
//
// Thread safety: safe for concurrent use as the engine is.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "ledger/ledger_keys.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::ledger {

struct UsagePoint {
  std::chrono::system_clock::time_point time;
  std::int64_t bytes = 0;
};

// Σ delta of the permanent entries created at or before `time`; one paged
// query with a key condition.
std::int64_t usage_at(table::Engine& engine, const schema::TableSchema& schema,
                      const Ledger& ledger, std::chrono::system_clock::time_point time);

// The most points one usage series returns.
inline constexpr std::int64_t kMaxSeriesPoints = 100'000;

// Usage at from, from + step, ... up to and including the last point not
// after `to`; one paged query. Throws Error(ValidationError) when step is
// not positive, to < from, or the series would have more than
// kMaxSeriesPoints points.
std::vector<UsagePoint> usage_series(table::Engine& engine, const schema::TableSchema& schema,
                                     const Ledger& ledger,
                                     std::chrono::system_clock::time_point from,
                                     std::chrono::system_clock::time_point to,
                                     std::chrono::microseconds step);

}  // namespace stowage::ledger
