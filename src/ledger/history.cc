#include "ledger/history.h"

#include "common/clock.h"
#include "ledger/item_fields.h"
#include "ledger/ledger_entry.h"
#include "ledger/query_pages.h"
#include "stowage/error.h"

namespace stowage::ledger {
namespace {

// The ledger's permanent entries created at or before `time`, in time order.
table::QueryRequest entries_until(const schema::TableSchema& schema, const Ledger& ledger,
                                  std::chrono::system_clock::time_point time) {
  const LedgerKeys keys(schema.keys());
  table::QueryRequest request = schema.listing_query(keys.entries_partition(ledger), "");
  request.range_condition = table::RangeKeyCondition{
      table::KeyOperator::Lt, table::Value::string(keys.entries_after(time))};
  return request;
}

}  // namespace

std::int64_t usage_at(table::Engine& engine, const schema::TableSchema& schema,
                      const Ledger& ledger, std::chrono::system_clock::time_point time) {
  std::int64_t bytes = 0;
  for_each_item(engine, entries_until(schema, ledger, time), [&](const table::Item& item) {
    bytes += entry_delta(item);
    return true;
  });
  return bytes;
}

std::vector<UsagePoint> usage_series(table::Engine& engine, const schema::TableSchema& schema,
                                     const Ledger& ledger,
                                     std::chrono::system_clock::time_point from,
                                     std::chrono::system_clock::time_point to,
                                     std::chrono::microseconds step) {
  if (step.count() <= 0) {
    throw Error::validation("a usage series needs a positive step, not " +
                            std::to_string(step.count()) + " microseconds");
  }
  if (to < from) {
    throw Error::validation("a usage series ends (" + iso8601_utc_micros(to) +
                            ") before it starts (" + iso8601_utc_micros(from) + ")");
  }
  // Counted before any is built, so a tiny step over a long range is
  // refused rather than exhausting memory (or overflowing t near the end
  // of time).
  const auto count = (to - from) / step + 1;
  if (count > kMaxSeriesPoints) {
    throw Error::validation("a usage series from " + iso8601_utc_micros(from) + " to " +
                            iso8601_utc_micros(to) + " every " + std::to_string(step.count()) +
                            " microseconds has " + std::to_string(count) + " points; at most " +
                            std::to_string(kMaxSeriesPoints) + ": use a longer step");
  }
  std::vector<UsagePoint> points;
  std::vector<std::string> stamps;  // ISO-8601 strings sort in time order
  for (std::int64_t i = 0; i < count; ++i) {
    const auto t = from + i * step;
    points.push_back({t, 0});
    stamps.push_back(iso8601_utc_micros(t));
  }
  std::size_t next = 0;
  std::int64_t bytes = 0;
  for_each_item(engine, entries_until(schema, ledger, points.back().time),
                [&](const table::Item& item) {
                  const std::string& created_at =
                      ItemFields(item, "ledger entry").string("as_created_at");
                  for (; next < points.size() && stamps[next] < created_at; ++next) {
                    points[next].bytes = bytes;
                  }
                  bytes += entry_delta(item);
                  return true;
                });
  for (; next < points.size(); ++next) points[next].bytes = bytes;
  return points;
}

}  // namespace stowage::ledger
