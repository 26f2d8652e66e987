// Totals: the usage of one ledger (an account or a board) — the fast
// snapshot, the exact figure, and materialization, which rolls pending
// entries into the snapshot (DESIGN §5.2).
//
//   bytes_used        one consistent point read of the Total item
//   bytes_used_exact  one query of the ledger's root partition (pending
//                     entries and the quota) between two point reads of the
//                     Total; no writes. A query is no snapshot (DynamoDB
//                     reads a page item by item, the embedded engines page
//                     by page), so a materialization committing during it
//                     could show an entry both pending and in the Total, or
//                     in neither. In Mode A the same Total version before
//                     and after the query rules that out (every
//                     materialization and repair raises it); otherwise the
//                     read is repeated. Mode B: see below.
//   materialize       per batch of at most 49 pending entries, ONE
//                     transaction conditioned on the Total's version: the
//                     Total gains their sum, each pending entry is deleted
//                     (attribute_exists) and put in the permanent partition
//                     (attribute_not_exists). Up to 10 batches are read at
//                     once and sent as one transact_write_sequence, each
//                     conditioned on the version the one before leaves: the
//                     embedded engine commits them with one fsync, DynamoDB
//                     one by one.
// Materialization uses no clock and no cursor: an entry is counted when its
// pending item is, and a pending item can be deleted once only, so an entry
// whose transaction commits late (after a materialization that started
// later than the entry was created) is counted by the next one, exactly
// once. Materializers may run at once from many threads and processes: the
// loser of a version race re-reads and goes on.
//
// Mode B: the root partition is read through the GSI, which is eventually
// consistent. bytes_used_exact is then exact once the index has caught up
// (until then it may miss the newest pending entries, or see a batch's
// pending entries and the Total from before or after it); materialize still
// never counts an entry twice or misses one (its writes are conditioned on
// the base table, and an entry it does not see yet stays pending).
//
// Thread safety: safe for concurrent use; the engine and schema must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/ledger_keys.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::ledger {

// Entries per materialization transaction: 1 Total update + 2 actions each
// stays within DynamoDB's 100.
inline constexpr std::size_t kMaterializeBatch = 49;
// Batches read with one query and committed as one sequence.
inline constexpr std::size_t kMaterializeSequence = 10;
// Reads of a root partition before read_root gives up on a Total that
// changes during every one.
inline constexpr int kMaxRootReads = 20;

struct PendingDelta {
  std::string entry_id;
  std::int64_t delta_bytes = 0;
};

// What one query of a ledger's root partition holds.
struct LedgerRoot {
  std::int64_t total_bytes = 0;       // the snapshot (0 before the first materialization)
  std::int64_t total_version = 0;     // +1 per materialization or repair
  std::int64_t materialized_count = 0;
  std::vector<PendingDelta> pending;  // in entry id order
  std::optional<std::int64_t> quota_bytes;

  std::int64_t pending_bytes() const;
  std::int64_t exact_bytes() const { return total_bytes + pending_bytes(); }
};

struct MaterializeResult {
  std::size_t entries = 0;       // pending entries this call moved
  std::size_t transactions = 0;  // batches it committed
  std::size_t lost_races = 0;    // batches another writer of the Total beat
};

class Totals {
 public:
  // REQUIRES: `engine` and `schema` outlive this object.
  Totals(table::Engine& engine, const schema::TableSchema& schema);

  std::int64_t bytes_used(const Ledger& ledger) const;
  std::int64_t bytes_used_exact(const Ledger& ledger) const;
  // The pending entries and the quota of the root partition, all pages of
  // one query, with the Total they go with (see bytes_used_exact). Throws
  // Error(TransactionCanceled) when the Total changed during each of
  // kMaxRootReads reads.
  LedgerRoot read_root(const Ledger& ledger) const;

  // Moves pending entries into the Total, sequence after sequence, until a
  // read finds less than a full sequence (entries that commit after that wait for
  // the next call, so a busy ledger cannot hold one call forever). Safe to
  // run twice and concurrently. Throws what the engine throws other than a
  // lost race (a condition or a conflict).
  MaterializeResult materialize(const Ledger& ledger) const;

 private:
  table::Engine& engine_;
  const schema::TableSchema& schema_;
  LedgerKeys keys_;
};

// Adds one item of a ledger's root partition (its Total, a pending entry or
// its quota) to `root`: read_root's decoding, shared with checks that read
// the whole table.
void add_root_item(const schema::TableSchema& schema, const LedgerKeys& keys,
                   const table::Item& item, LedgerRoot& root);

}  // namespace stowage::ledger
