// LedgerKeys: where the storage ledger keeps its items (DESIGN §5), built
// on schema::KeyScheme so that every key follows the namespace and
// separator rules.
//
// For a ledger (an account's or a board's), with L = ns#Ledger#<Account|Board>#<id>:
//   root      H = L            R = ns#Total            the snapshot total
//                              R = ns#Quota            the optional limit
//                              R = ns#Pending#<entry>  entries not yet in the total
//   entries   H = L#Entries    R = ns#Entry#<entry>    the permanent, append-only trail
//   owners    H = L#Owners     R = ns#Owner#<type>#<id> the owners whose context
//                                                      names this ledger
// Total, quota and pending share one partition so that exact usage is one
// query. Entry ids are UUID v7, so the entries partition in R order is time
// order and a time range is a key condition. No root sort key begins with
// the name of a sub-partition ("Entries", "Owners"): KeyScheme::item_id's
// rule for Mode B.
//
// Thread safety: immutable after construction; safe to share between threads.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "schema/key_scheme.h"

namespace stowage::ledger {

// One ledger: the bytes of one account or of one board.
struct Ledger {
  schema::LedgerOwner owner = schema::LedgerOwner::Account;
  std::string owner_id;

  static Ledger account(std::string id) { return {schema::LedgerOwner::Account, std::move(id)}; }
  static Ledger board(std::string id) { return {schema::LedgerOwner::Board, std::move(id)}; }
  // "account 7" / "board 7", for messages.
  std::string describe() const;
  friend bool operator==(const Ledger&, const Ledger&) = default;
  friend auto operator<=>(const Ledger&, const Ledger&) = default;
};

// The application record whose attachments are counted, e.g. {"Card", "42"}.
// (The model's OwnerRef; the ledger sits below the model and has its own.)
struct OwnerRecord {
  std::string record_type;
  std::string record_id;
  friend bool operator==(const OwnerRecord&, const OwnerRecord&) = default;
  friend auto operator<=>(const OwnerRecord&, const OwnerRecord&) = default;
};

class LedgerKeys {
 public:
  // REQUIRES: `keys` outlives this object.
  explicit LedgerKeys(const schema::KeyScheme& keys) : keys_(keys) {}

  std::string root_partition(const Ledger& ledger) const;
  schema::LogicalKey total(const Ledger& ledger) const;
  schema::LogicalKey quota(const Ledger& ledger) const;
  schema::LogicalKey pending(const Ledger& ledger, std::string_view entry_id) const;
  // R prefix of the pending entries in the root partition.
  std::string pending_prefix() const;

  std::string entries_partition(const Ledger& ledger) const;
  schema::LogicalKey entry(const Ledger& ledger, std::string_view entry_id) const;
  // R prefix of the permanent entries.
  std::string entry_prefix() const;
  // An R that sorts after every entry created at or before `time` and before
  // every entry created later (ids are UUID v7 with microsecond precision).
  std::string entries_after(std::chrono::system_clock::time_point time) const;

  std::string owners_partition(const Ledger& ledger) const;
  schema::LogicalKey owner_index(const Ledger& ledger, const OwnerRecord& owner) const;

  const schema::KeyScheme& scheme() const { return keys_; }

 private:
  const schema::KeyScheme& keys_;
};

}  // namespace stowage::ledger
