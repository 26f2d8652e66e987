// Quotas: an optional byte limit per account and per board, kept in the
// ledger's root partition (R = ns#Quota, as_limit_bytes) so the exact usage
// query reads it too.
//
// check() is what a tracked change calls before it writes anything: when
// the change adds bytes and a ledger of the owner has a limit, it reads
// that ledger's exact usage and throws Error(QuotaExceeded) when usage +
// delta would exceed the limit. A change that frees bytes (delta <= 0) is
// never refused.
//
// Limit cache: most ledgers have no limit, and reading "no limit" for the
// account and the board would cost every tracked change two point reads.
// So each instance remembers each ledger's limit, including "no limit",
// for QuotaOptions::cache_time after it read it, and set_limit updates its
// own entry at once. Cost of check(): one point read per ledger whose
// entry is missing or older than cache_time, plus one query per ledger
// that has a limit. Share one instance among the writers of a process
// (StorageTracking holds one, and the Stowage facade sets limits through
// it) so they share its cache.
//
// Guarantees (no reservation is held between the check and the commit:
// that would put every writer of a ledger on one hot item, which DESIGN
// §5.3 rules out):
//   1. Serial writers through one instance never go over a limit that was
//      set through that instance, or set elsewhere at least cache_time
//      before the check.
//   2. Concurrent writers that pass their checks together can overshoot a
//      limit by at most the sum of their own deltas; the next change after
//      they commit sees the overshoot and is refused.
//   3. A limit set, changed or removed elsewhere (another instance or
//      process) takes effect in this instance's checks at most cache_time
//      after it was written; until then they use the limit read before.
//   4. Mode B: the exact usage a check reads lists pending entries through
//      the index, which is eventually consistent, so 1 and 2 hold for the
//      changes the index has caught up with; a change checked right after
//      another may not see it yet (the overshoot is then at most the
//      deltas the index did not show).
// limit() always reads the table (one point read) and refreshes the cache.
//
// Thread safety: safe for concurrent use; the engine and schema must outlive it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include "ledger/ledger_keys.h"
#include "ledger/owner_context.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::ledger {

// The time seam of the limit cache: steady_clock::now in production.
using QuotaClock = std::function<std::chrono::steady_clock::time_point()>;

struct QuotaOptions {
  // How long a limit read from the table is trusted (guarantee 3); zero
  // reads it for every check.
  std::chrono::milliseconds cache_time = std::chrono::seconds(1);
  QuotaClock clock = [] { return std::chrono::steady_clock::now(); };
};

class Quotas {
 public:
  // REQUIRES: `engine` and `schema` outlive this object. Throws
  // Error(ConfigurationError) for a negative cache_time.
  Quotas(table::Engine& engine, const schema::TableSchema& schema, QuotaOptions options = {});

  // nullopt removes the limit. Throws Error(ValidationError) for a negative one.
  void set_limit(const Ledger& ledger, std::optional<std::int64_t> limit_bytes) const;
  std::optional<std::int64_t> limit(const Ledger& ledger) const;

  // Throws Error(QuotaExceeded) naming the ledger, its usage, the delta and
  // the limit when the change would go over a limit of the owner's account
  // or board.
  void check(const OwnerContext& context, std::int64_t delta_bytes) const;

 private:
  struct CachedLimit {
    std::optional<std::int64_t> limit_bytes;
    std::chrono::steady_clock::time_point read_at;
  };

  // The cached limit while it is fresh, else limit().
  std::optional<std::int64_t> cached_limit(const Ledger& ledger) const;
  // Caches a limit read at `read_at`, unless the entry is as new or newer.
  void remember(const Ledger& ledger, std::optional<std::int64_t> limit_bytes,
                std::chrono::steady_clock::time_point read_at) const;

  table::Engine& engine_;
  const schema::TableSchema& schema_;
  LedgerKeys keys_;
  const QuotaOptions options_;
  mutable std::mutex mutex_;
  mutable std::map<Ledger, CachedLimit> cache_;
};

}  // namespace stowage::ledger
