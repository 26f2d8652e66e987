// StorageTracking: the storage ledger's part of an attachment change
// (DESIGN §5.1). For a change that adds or removes tracked rows (a row's
// `tracked` is its definition's track_storage when it was attached, so a
// later configuration change never counts it differently), add_to():
//   1. reads the owner's context: one consistent GetItem of the owner's own
//      item, which names the account and board its bytes count for, so a
//      cascade (destroy_owner) needs no parent record;
//   2. checks their quotas for the change's net delta (ledger::Quotas) and
//      throws Error(QuotaExceeded) before anything is written; the one
//      Quotas of this instance caches each ledger's limit (also "no limit")
//      for its cache time, so a change whose ledgers were checked within it
//      reads no quota item. Set limits through quotas() so they bind the
//      next change at once rather than after that cache time;
//   3. adds ledger::actions_for_change to the SAME ChangeSet — one set per
//      change, coalesced over its rows, at most ledger::kMaxChangeActions —
//      so the entries commit with the rows or not at all and count in the
//      100-action budget;
//   4. enqueues ONE materialize job naming every ledger in the change (one
//      action, not one per ledger, as each costs a write), so the snapshot
//      total (bytes_used) catches up soon after the commit. The job only
//      freshens bytes_used: bytes_used_exact, reconcile and materialize
//      itself are exact whether or not it ever runs.
// A change with no tracked row reads nothing and adds nothing.
//
// The context action is conditioned on the account and board read in step
// 1. When a transfer commits in between, the change is canceled and its
// commit reports the failed action (CommitResult::failed_actions): the
// caller rebuilds the change from a fresh read, and since nothing was
// written nothing is counted twice.
//
// Thread safety: safe for concurrent use; the engine and schema must
// outlive it.
#pragma once

#include <vector>

#include "ledger/ledger_keys.h"
#include "ledger/owner_context.h"
#include "ledger/quota.h"
#include "model/change_context.h"
#include "model/change_set.h"
#include "model/outbox.h"
#include "model/records.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::model {

class StorageTracking {
 public:
  // REQUIRES: `engine` and `schema` outlive this object.
  StorageTracking(table::Engine& engine, const schema::TableSchema& schema);

  // REQUIRES: every row of `change` belongs to `owner`.
  void add_to(ChangeSet& change, const OwnerRef& owner, const ChangeContext& context) const;

  // The Quotas add_to checks against. Its set_limit updates its cache as
  // it writes, so a limit set through it binds the next add_to.
  const ledger::Quotas& quotas() const { return quotas_; }

 private:
  table::Engine& engine_;
  const schema::TableSchema& schema_;
  const ledger::Quotas quotas_;
};

// The materialize job of a change (outbox.h, kMaterializeJob): it names
// every ledger of `context` (its account and/or board), and its
// coalesce_key names that set, so that a worker pool runs one job at a time
// for it. REQUIRES: `context` has a ledger.
Job materialize_job(const ledger::OwnerContext& context);
// The ledgers a materialize job names, in OwnerContext::ledgers() order.
// Throws Error(IntegrityError) naming the argument when one is not a string,
// or when its args name no ledger.
std::vector<ledger::Ledger> materialize_targets(const Job& job);

}  // namespace stowage::model
