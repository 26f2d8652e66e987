#include "ledger/ledger_keys.h"

#include "common/uuid.h"

namespace stowage::ledger {
namespace {

constexpr char kEntries[] = "Entries";
constexpr char kOwners[] = "Owners";

// "xxxxxxxx-xxxx-7xxx": the part of a UUID v7 that holds the time, down to
// the microsecond; the rest is variant and random bits.
constexpr std::size_t kTimePrefixLength = 18;

}  // namespace

std::string Ledger::describe() const {
  return (owner == schema::LedgerOwner::Account ? "account " : "board ") + owner_id;
}

std::string LedgerKeys::root_partition(const Ledger& ledger) const {
  return keys_.ledger_partition(ledger.owner, ledger.owner_id);
}

schema::LogicalKey LedgerKeys::total(const Ledger& ledger) const {
  return {root_partition(ledger), keys_.compose({{"kind", "Total"}})};
}

schema::LogicalKey LedgerKeys::quota(const Ledger& ledger) const {
  return {root_partition(ledger), keys_.compose({{"kind", "Quota"}})};
}

schema::LogicalKey LedgerKeys::pending(const Ledger& ledger,
                                       std::string_view entry_id) const {
  return {root_partition(ledger),
          keys_.compose({{"kind", "Pending"}, {"entry_id", entry_id}})};
}

std::string LedgerKeys::pending_prefix() const {
  return keys_.compose({{"kind", "Pending"}}) + keys_.separator();
}

std::string LedgerKeys::entries_partition(const Ledger& ledger) const {
  return keys_.ledger_partition(ledger.owner, ledger.owner_id, kEntries);
}

schema::LogicalKey LedgerKeys::entry(const Ledger& ledger, std::string_view entry_id) const {
  return {entries_partition(ledger),
          keys_.compose({{"kind", "Entry"}, {"entry_id", entry_id}})};
}

std::string LedgerKeys::entry_prefix() const {
  return keys_.compose({{"kind", "Entry"}}) + keys_.separator();
}

std::string LedgerKeys::entries_after(std::chrono::system_clock::time_point time) const {
  // Every id of a later microsecond has a greater time prefix; every id of
  // this one or an earlier one is below the next microsecond's bare prefix.
  const std::string next = uuid_v7(time + std::chrono::microseconds(1));
  return entry_prefix() + next.substr(0, kTimePrefixLength);
}

std::string LedgerKeys::owners_partition(const Ledger& ledger) const {
  return keys_.ledger_partition(ledger.owner, ledger.owner_id, kOwners);
}

schema::LogicalKey LedgerKeys::owner_index(const Ledger& ledger,
                                           const OwnerRecord& owner) const {
  return {owners_partition(ledger), keys_.compose({{"kind", "Owner"},
                                                   {"record_type", owner.record_type},
                                                   {"record_id", owner.record_id}})};
}

}  // namespace stowage::ledger
