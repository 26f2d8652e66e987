// LedgerEntry: one record of the storage ledger — a change of an owner's
// tracked bytes, written pending in the same transaction as the change and
// moved, unchanged, to the ledger's permanent partition by materialization.
//
// Item attributes (pending and permanent alike): as_kind = "LedgerEntry",
// as_id, as_operation, as_delta_bytes (N), as_account, as_board (absent when
// the owner has none), as_record_type, as_record_id (absent for reconcile
// entries), as_blob_ids and as_attachment_ids (L of S: a multi-attachment
// change writes one coalesced entry), as_created_at, as_actor_id,
// as_request_id (optional).
//
// Plain value type; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/ledger_keys.h"
#include "table/value.h"

namespace stowage::ledger {

enum class Operation { Attach, Detach, Replace, TransferOut, TransferIn, Reconcile };

// "attach", "detach", "replace", "transfer_out", "transfer_in", "reconcile".
std::string_view to_string(Operation operation);
// Throws Error(IntegrityError) for any other text.
Operation parse_operation(std::string_view text);

struct LedgerEntry {
  std::string id;  // UUID v7 of created_at; shared by a change's account and board entries
  Operation operation = Operation::Attach;
  std::int64_t delta_bytes = 0;
  std::optional<std::string> account_id;
  std::optional<std::string> board_id;
  std::optional<OwnerRecord> owner;
  std::vector<std::string> blob_ids;
  std::vector<std::string> attachment_ids;
  std::string created_at;  // UTC ISO-8601 with microseconds
  std::optional<std::string> actor_id;
  std::optional<std::string> request_id;

  friend bool operator==(const LedgerEntry&, const LedgerEntry&) = default;
};

// The entry's attributes, without key attributes.
table::Item entry_attributes(const LedgerEntry& entry);
// Reads an entry item (pending or permanent). Throws Error(IntegrityError)
// naming the attribute when one is missing or of the wrong type.
LedgerEntry entry_from_item(const table::Item& item);
// The delta alone, for sums that need nothing else.
std::int64_t entry_delta(const table::Item& item);

}  // namespace stowage::ledger
