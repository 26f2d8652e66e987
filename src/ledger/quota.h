// Quotas: an optional byte limit per account and per board, kept in the
// ledger's root partition (R = ns#Quota, as_limit_bytes) so the exact usage
// query reads it too.
//
// check() is what a tracked change calls before it writes anything: when
// the change adds bytes and a ledger of the owner has a limit, it reads
// that ledger's exact usage and throws Error(QuotaExceeded) when usage +
// delta would exceed the limit. Cost: one point read per ledger of the
// owner, plus one query per ledger that has a limit.
//
// Guarantee under concurrency: the check reads, then the change commits; no
// reservation is held in between (that would put every writer of a ledger
// on one hot item, which DESIGN §5.3 rules out). Serial writers never go
// over a limit. Concurrent writers that pass their checks together can
// overshoot it by at most the sum of their own deltas; the next change
// after they commit sees the overshoot and is refused. A change that frees
// bytes (delta <= 0) is never refused.
//
// Thread safety: safe for concurrent use; the engine and schema must outlive it.
#pragma once

#include <cstdint>
#include <optional>

#include "ledger/ledger_keys.h"
#include "ledger/owner_context.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::ledger {

class Quotas {
 public:
  // REQUIRES: `engine` and `schema` outlive this object.
  Quotas(table::Engine& engine, const schema::TableSchema& schema);

  // nullopt removes the limit. Throws Error(ValidationError) for a negative one.
  void set_limit(const Ledger& ledger, std::optional<std::int64_t> limit_bytes) const;
  std::optional<std::int64_t> limit(const Ledger& ledger) const;

  // Throws Error(QuotaExceeded) naming the ledger, its usage, the delta and
  // the limit when the change would go over a limit of the owner's account
  // or board.
  void check(const OwnerContext& context, std::int64_t delta_bytes) const;

 private:
  table::Engine& engine_;
  const schema::TableSchema& schema_;
  LedgerKeys keys_;
};

}  // namespace stowage::ledger
