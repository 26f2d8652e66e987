// The ledger's part of a tracked attachment change: the actions the model
// adds to the change's transaction (DESIGN §5.1), so the entries commit
// with the attachment rows or not at all.
//
// For one owner and the net delta of the whole change (a multi-attachment
// change is coalesced: one set of actions per owner, whatever the number of
// rows):
//   1. Update the owner context: ADD as_tracked_bytes delta, ADD as_version 1,
//      conditioned on as_account and as_board being what `context` says.
//      Concurrent changes of one owner commute (ADDs); a transfer that
//      committed since `context` was read cancels the transaction.
//   2. Put a pending entry in the account's ledger (when the owner has one).
//   3. Put a pending entry in the board's ledger (when the owner has one).
// So a change takes 1 + context.ledgers().size() <= 3 actions; count them in
// the change's 100-action budget (kMaxChangeActions).
//
// When the transaction is canceled because action 1's condition failed, the
// owner moved: re-read the context and rebuild the change (nothing was
// written, so rebuilding counts nothing twice). Each call makes a new entry
// id; a transaction whose outcome is unknown must be retried as the same
// request (the retrying engine does, with one ClientRequestToken).
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/ledger_entry.h"
#include "ledger/owner_context.h"
#include "schema/table_schema.h"
#include "table/requests.h"

namespace stowage::ledger {

// The most actions actions_for_change() returns.
inline constexpr std::size_t kMaxChangeActions = 3;

struct ChangeDetails {
  Operation operation = Operation::Attach;  // Attach, Detach or Replace
  std::vector<std::string> blob_ids;        // the blobs of the rows added or removed
  std::vector<std::string> attachment_ids;  // those rows
  std::chrono::system_clock::time_point time = std::chrono::system_clock::now();
  std::optional<std::string> actor_id;
  std::optional<std::string> request_id;
};

// REQUIRES: `context` was read for the owner the change is about;
// `delta_bytes` is (sum of byte_size of the tracked rows added) - (sum of
// those removed).
std::vector<table::TransactAction> actions_for_change(const schema::TableSchema& schema,
                                                      const OwnerContext& context,
                                                      std::int64_t delta_bytes,
                                                      const ChangeDetails& details);

// The condition of action 1: the context's account and board are as read.
table::Condition context_unmoved(const OwnerContext& context);

// The pending entry Put for one ledger (used by transfers and repairs too).
table::PutRequest pending_entry_put(const schema::TableSchema& schema, const Ledger& ledger,
                                    const LedgerEntry& entry);

}  // namespace stowage::ledger
