#include "ledger/entry_listing.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "common/clock.h"
#include "ledger/item_fields.h"
#include "ledger/query_pages.h"
#include "stowage/error.h"

namespace stowage::ledger {
namespace {

using table::KeyOperator;
using table::Value;
using Time = std::chrono::system_clock::time_point;

// The permanent entries of [since, until] as a key condition:
// entries_after(t) sorts between the last id of t's microsecond and the
// first of the next, so no id equals a bound.
table::QueryRequest permanent_entries(const schema::TableSchema& schema, const Ledger& ledger,
                                      std::optional<Time> since, std::optional<Time> until) {
  const LedgerKeys keys(schema.keys());
  table::QueryRequest request = schema.listing_query(keys.entries_partition(ledger), "");
  if (!since && !until) {
    request.range_condition = table::RangeKeyCondition{
        KeyOperator::BeginsWith, Value::string(keys.entry_prefix()), std::nullopt};
    return request;
  }
  const std::string lower =
      since ? keys.entries_after(*since - std::chrono::microseconds(1)) : keys.entry_prefix();
  if (!until) {
    request.range_condition =
        table::RangeKeyCondition{KeyOperator::Gt, Value::string(lower), std::nullopt};
  } else {
    request.range_condition = table::RangeKeyCondition{
        KeyOperator::Between, Value::string(lower), Value::string(keys.entries_after(*until))};
  }
  return request;
}

}  // namespace

std::vector<ListedEntry> list_entries(table::Engine& engine, const schema::TableSchema& schema,
                                      const Ledger& ledger, std::optional<Time> since,
                                      std::optional<Time> until) {
  if (since && until && *until < *since) {
    throw Error::validation("an entry listing ends (" + iso8601_utc_micros(*until) +
                            ") before it starts (" + iso8601_utc_micros(*since) + ")");
  }
  // Pending entries first: one that a materialization moves between the
  // two queries is then read twice (and kept as permanent), never missed
  // (in Mode A; Mode B's index may list the move late on either side).
  // They are few (materialization drains them), so their range is checked
  // on created_at: ISO-8601 strings with microseconds sort in time order.
  const std::string from = since ? iso8601_utc_micros(*since) : "";
  const std::optional<std::string> to =
      until ? std::optional(iso8601_utc_micros(*until)) : std::nullopt;
  const LedgerKeys keys(schema.keys());
  std::map<std::string, LedgerEntry> pending;
  for_each_item(engine, schema.listing_query(keys.root_partition(ledger), keys.pending_prefix()),
                [&](const table::Item& item) {
                  LedgerEntry entry = entry_from_item(item);
                  if (entry.created_at >= from && (!to || entry.created_at <= *to)) {
                    pending.try_emplace(entry.id, std::move(entry));
                  }
                  return true;
                });
  std::vector<ListedEntry> listed;
  for_each_item(engine, permanent_entries(schema, ledger, since, until),
                [&](const table::Item& item) {
                  LedgerEntry entry = entry_from_item(item);
                  pending.erase(entry.id);
                  listed.push_back({std::move(entry), false});
                  return true;
                });
  for (auto& [id, entry] : pending) listed.push_back({std::move(entry), true});
  std::stable_sort(listed.begin(), listed.end(), [](const ListedEntry& a, const ListedEntry& b) {
    return a.entry.id < b.entry.id;
  });
  return listed;
}

std::vector<Ledger> find_ledgers(table::Engine& engine, const schema::TableSchema& schema) {
  std::set<Ledger> ledgers;
  table::ScanRequest request;
  request.table = schema.table_name();
  for (;;) {
    table::QueryResult page = engine.scan(request);
    for (const table::Item& item : page.items) {
      const auto kind = item.find("as_kind");
      if (kind == item.end() || kind->second.type() != table::Type::S ||
          kind->second.as_string() != "LedgerEntry") {
        continue;
      }
      const ItemFields fields(item, "ledger entry");
      if (auto account = fields.optional_string("as_account")) {
        ledgers.insert(Ledger::account(std::move(*account)));
      }
      if (auto board = fields.optional_string("as_board")) {
        ledgers.insert(Ledger::board(std::move(*board)));
      }
    }
    if (!page.last_evaluated_key) break;
    request.exclusive_start_key = std::move(page.last_evaluated_key);
  }
  return {ledgers.begin(), ledgers.end()};
}

}  // namespace stowage::ledger
