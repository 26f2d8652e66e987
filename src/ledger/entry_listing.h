// Entry listing: the ledger's entries for people to read — an account's or
// a board's audit trail over a time range, and the set of ledgers a table
// holds (for maintenance that walks them all).
//
//   list_entries   one paged query of the pending entries in the root
//                  partition, then one of the permanent partition (the time
//                  range is a key condition: entry ids are UUID v7); an
//                  entry materialized in between is listed once, as
//                  permanent
//   find_ledgers   a paged Scan of the whole table: every account and board
//                  that some entry names. It costs a read of every item, so
//                  it is for operators' tools, never for a request path.
//
// Thread safety: safe for concurrent use as the engine is.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "ledger/ledger_entry.h"
#include "ledger/ledger_keys.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::ledger {

struct ListedEntry {
  LedgerEntry entry;
  bool pending = false;  // not yet in the Total (nor in history)
};

// The entries created in [since, until] (either end open when nullopt),
// permanent and pending, in time order. Throws Error(ValidationError) when
// until < since.
std::vector<ListedEntry> list_entries(table::Engine& engine, const schema::TableSchema& schema,
                                      const Ledger& ledger,
                                      std::optional<std::chrono::system_clock::time_point> since,
                                      std::optional<std::chrono::system_clock::time_point> until);

// Every account and board named by an entry, in Ledger order.
std::vector<Ledger> find_ledgers(table::Engine& engine, const schema::TableSchema& schema);

}  // namespace stowage::ledger
