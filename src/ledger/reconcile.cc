#include "ledger/reconcile.h"

#include <optional>
#include <vector>

#include "common/clock.h"
#include "common/uuid.h"
#include "ledger/item_fields.h"
#include "ledger/ledger_entry.h"
#include "ledger/owner_context.h"
#include "ledger/query_pages.h"
#include "ledger/stamped_update.h"
#include "ledger/totals.h"
#include "ledger/tracked_change.h"
#include "stowage/error.h"

namespace stowage::ledger {
namespace {

using table::Value;

bool same_cut(const LedgerRoot& a, const LedgerRoot& b) {
  if (a.total_version != b.total_version || a.pending.size() != b.pending.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.pending.size(); ++i) {
    if (a.pending[i].entry_id != b.pending[i].entry_id) return false;
  }
  return true;
}

// The root partition, or nullopt when materializations kept moving its
// Total during every read (read_root gave up): not a quiet moment either.
std::optional<LedgerRoot> quiet_root(const Totals& totals, const Ledger& ledger) {
  try {
    return totals.read_root(ledger);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::TransactionCanceled) throw;
    return std::nullopt;
  }
}

bool names(const OwnerContext& context, const Ledger& ledger) {
  const std::optional<std::string>& id = ledger.owner == schema::LedgerOwner::Account
                                             ? context.account_id
                                             : context.board_id;
  return id == ledger.owner_id;
}

class Scan {
 public:
  Scan(table::Engine& engine, const schema::TableSchema& schema, const Ledger& ledger)
      : engine_(engine), schema_(schema), ledger_(ledger), keys_(schema.keys()) {}

  // Real and ledger bytes as the table holds them now (not yet a cut).
  // False when an owner changed during each of max_attempts reads of it.
  bool run(ReconcileReport& report, const ReconcileOptions& options) const {
    // The index is read whole first so that progress has a denominator.
    std::vector<OwnerRecord> owners;
    for_each_item(engine_, schema_.listing_query(keys_.owners_partition(ledger_), ""),
                  [&](const table::Item& item) {
                    const ItemFields fields(item, "ledger owner");
                    owners.push_back(
                        {fields.string("as_record_type"), fields.string("as_record_id")});
                    return true;
                  });
    for (std::size_t i = 0; i < owners.size(); ++i) {
      if (!add_owner(owners[i], report, options.max_attempts)) return false;
      if (options.on_owner) options.on_owner(i + 1, owners.size());
    }
    for_each_item(engine_, schema_.listing_query(keys_.entries_partition(ledger_), ""),
                  [&](const table::Item& item) {
                    report.ledger_bytes += entry_delta(item);
                    return true;
                  });
    return true;
  }

 private:
  // The owner's tracked bytes at one version of its context, when that
  // version names this ledger. The context is read before and after its
  // attachments: equal versions mean no tracked change or transfer of the
  // owner committed in between (each bumps the version). False when the
  // versions differed each of `attempts` times.
  bool add_owner(const OwnerRecord& owner, ReconcileReport& report,
                 std::size_t attempts) const {
    const schema::KeyScheme& keys = schema_.keys();
    for (std::size_t attempt = 0; attempt < attempts; ++attempt) {
      const OwnerContext before = read_owner_context(engine_, schema_, owner);
      std::int64_t bytes = 0;
      std::size_t attachments = 0;
      for_each_item(
          engine_,
          schema_.listing_query(keys.owner_partition(owner.record_type, owner.record_id),
                                keys.attachments_prefix()),
          [&](const table::Item& item) {
            const ItemFields fields(item, "attachment");
            if (fields.boolean_or_false("as_tracked")) {
              bytes += fields.integer("as_byte_size");
              ++attachments;
            }
            return true;
          });
      const OwnerContext after = read_owner_context(engine_, schema_, owner);
      if (after.version != before.version) continue;
      if (!names(after, ledger_)) return true;
      ++report.owners;
      report.real_bytes += bytes;
      report.attachments += attachments;
      return true;
    }
    return false;
  }

  table::Engine& engine_;
  const schema::TableSchema& schema_;
  const Ledger& ledger_;
  LedgerKeys keys_;
};

// Writes the reconcile entry; false when the Total moved since `cut` (a
// materialization or another repair), so the caller scans again.
bool repair(table::Engine& engine, const schema::TableSchema& schema, const Ledger& ledger,
            const LedgerRoot& cut, std::int64_t drift, const ReconcileOptions& options) {
  const LedgerKeys keys(schema.keys());
  const auto time = std::chrono::system_clock::now();
  LedgerEntry entry;
  entry.id = uuid_v7(time);
  entry.operation = Operation::Reconcile;
  entry.delta_bytes = drift;
  (ledger.owner == schema::LedgerOwner::Account ? entry.account_id : entry.board_id) =
      ledger.owner_id;
  entry.created_at = iso8601_utc_micros(time);
  entry.actor_id = options.actor_id;
  entry.request_id = options.request_id;

  table::UpdateRequest total = stamped_update(schema, keys.total(ledger));
  total.update.set("as_kind", Value::string("LedgerTotal"))
      .add("as_version", Value::number(1));
  total.condition = cut.total_version == 0
                        ? table::cond::not_exists("as_version")
                        : table::cond::eq("as_version", Value::number(cut.total_version));
  table::TransactWriteRequest transaction;
  transaction.actions.emplace_back(std::move(total));
  transaction.actions.emplace_back(pending_entry_put(schema, ledger, entry));
  try {
    engine.transact_write(transaction);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::TransactionCanceled || error.cancellation_reasons().empty() ||
        error.cancellation_reasons()[0].code == "None") {
      throw;
    }
    return false;
  }
  return true;
}

}  // namespace

ReconcileReport reconcile(table::Engine& engine, const schema::TableSchema& schema,
                          const Ledger& ledger, const ReconcileOptions& options) {
  const Totals totals(engine, schema);
  const Scan scan(engine, schema, ledger);
  ReconcileReport report;
  for (std::size_t attempt = 0; attempt < options.max_attempts; ++attempt) {
    const std::optional<LedgerRoot> before = quiet_root(totals, ledger);
    if (!before) continue;
    report = ReconcileReport{};
    const bool owners_settled = scan.run(report, options);
    const std::optional<LedgerRoot> after = quiet_root(totals, ledger);
    report.ledger_bytes += before->pending_bytes();
    report.exact_bytes = before->exact_bytes();
    if (!owners_settled || !after || !same_cut(*before, *after)) continue;
    report.settled = true;
    if (!options.repair || report.drift() == 0) return report;
    if (schema.mode() == table::KeyLayout::ModeB && !after->pending.empty()) {
      report.repair_refused =
          "Mode B reads pending entries through the index, which may still list entries a "
          "materialization has moved into the total: materialize " + ledger.describe() +
          " and reconcile again once writers are quiet";
      return report;
    }
    if (repair(engine, schema, ledger, *after, report.drift(), options)) {
      report.repaired = true;
      return report;
    }
  }
  report.settled = false;
  return report;
}

}  // namespace stowage::ledger
