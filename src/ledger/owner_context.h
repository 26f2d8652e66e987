// OwnerContext: which account and board an owner's tracked bytes count for,
// and how many there are — the owner context item (H = the owner partition,
// R = ns#Context).
//
// Attributes: as_kind = "OwnerContext", as_record_type, as_record_id,
// as_account and as_board (absent until set), as_tracked_bytes (N: the sum
// of byte_size over the owner's tracked attachments), as_version (N: +1 on
// every tracked change and every assignment, so a transfer conditioned on it
// cannot miss a concurrent attach).
//
// An owner without a context item has no account, no board and no tracked
// bytes. A tracked change on such an owner creates the item and keeps its
// bytes there (no ledger entries: there is no ledger to charge); giving it
// an account or board later records transfer_in entries for those bytes.
//
// Plain value type and free functions; thread-safe as the engine is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/ledger_keys.h"
#include "schema/table_schema.h"
#include "table/condition.h"
#include "table/engine.h"
#include "table/requests.h"

namespace stowage::ledger {

struct OwnerContext {
  OwnerRecord owner;
  std::optional<std::string> account_id;
  std::optional<std::string> board_id;
  std::int64_t tracked_bytes = 0;
  std::int64_t version = 0;
  bool stored = false;  // whether the item exists

  // The ledgers this owner's bytes count for: its account, then its board.
  std::vector<Ledger> ledgers() const;
  friend bool operator==(const OwnerContext&, const OwnerContext&) = default;
};

namespace context_attribute {
inline constexpr char kAccount[] = "as_account";
inline constexpr char kBoard[] = "as_board";
inline constexpr char kTrackedBytes[] = "as_tracked_bytes";
inline constexpr char kVersion[] = "as_version";
}  // namespace context_attribute

// A consistent point read of the owner's context. Throws Error(InvalidKey)
// for a blank record type or id, Error(IntegrityError) for a malformed item.
OwnerContext read_owner_context(table::Engine& engine, const schema::TableSchema& schema,
                                const OwnerRecord& owner);

OwnerContext owner_context_from_item(const OwnerRecord& owner, const table::Item& item);

// An update of the owner's context item that SETs as_kind, as_record_type,
// as_record_id (and, in Mode B, the GSI keys), so that it may create the
// item; tracked changes and transfers add their actions and condition.
table::UpdateRequest context_update(const schema::TableSchema& schema,
                                    const OwnerRecord& owner);

// The condition that the context's version is still `context.version`.
table::Condition context_version_is(const OwnerContext& context);

}  // namespace stowage::ledger
