// assign_owner: gives an owner an account and a board. When either changes
// it is a transfer, ONE transaction:
//   - Update the owner context: SET the new account and board, ADD
//     as_version 1, conditioned on as_version being what was read (every
//     tracked change bumps it, so an attach or detach that committed in
//     between cancels the transfer, which re-reads and retries: the bytes
//     moved are always the owner's bytes at the moment of the move);
//   - for each side that changes: a pending transfer_out (-bytes) entry in
//     the old ledger and transfer_in (+bytes) in the new one (a side that
//     had no ledger, or gets none, has no entry there; an owner with no
//     tracked bytes moves none and gets no entries);
//   - the owners index: Delete the owner from the old ledger's, Put it in
//     the new one's.
// A tracked change racing the transfer is conditioned on the account and
// board it read (tracked_change.h), so it can never be counted on the
// ledger the owner just left. At most 1 + 4 + 4 actions.
//
// Quotas (quota.h) do not refuse a transfer: it moves bytes already stored,
// as moving a card to another board must always work. The new ledger may
// end over its limit; its next attach that adds bytes is then refused.
//
// Setting what is already set writes nothing. Safe to run twice.
//
// Thread safety: safe for concurrent use as the engine is.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "ledger/ledger_keys.h"
#include "ledger/owner_context.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::ledger {

struct Assignment {
  std::optional<std::string> account_id;  // nullopt: none
  std::optional<std::string> board_id;
  std::optional<std::string> actor_id;
  std::optional<std::string> request_id;
};

// Returns the context as it now is. Throws Error(InvalidKey) for a blank or
// separator-holding id, and what the engine throws; a lost race is retried.
OwnerContext assign_owner(table::Engine& engine, const schema::TableSchema& schema,
                          const OwnerRecord& owner, const Assignment& assignment);

}  // namespace stowage::ledger
