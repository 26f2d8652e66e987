#include "ledger/totals.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <thread>
#include <utility>

#include "ledger/item_fields.h"
#include "ledger/ledger_entry.h"
#include "ledger/query_pages.h"
#include "ledger/stamped_update.h"
#include "stowage/error.h"

namespace stowage::ledger {
namespace {

using table::Value;
namespace cond = table::cond;

constexpr char kBytes[] = "as_bytes";
constexpr char kVersion[] = "as_version";
constexpr char kMaterializedCount[] = "as_materialized_count";

struct TotalState {
  std::int64_t bytes = 0;
  std::int64_t version = 0;
  std::int64_t materialized_count = 0;
};

TotalState total_state(const table::Item& item) {
  const ItemFields fields(item, "ledger total");
  return {fields.integer_or_zero(kBytes), fields.integer_or_zero(kVersion),
          fields.integer_or_zero(kMaterializedCount)};
}

// The Total as a consistent point read of the base table sees it (zeros
// before the first materialization).
TotalState read_total(table::Engine& engine, const schema::TableSchema& schema,
                      const LedgerKeys& keys, const Ledger& ledger) {
  table::GetRequest get;
  get.table = schema.table_name();
  get.key = schema.physical_key(keys.total(ledger));
  get.consistent_read = true;
  const std::optional<table::Item> item = engine.get(get);
  return item ? total_state(*item) : TotalState{};
}

bool failed(const std::vector<CancellationReason>& reasons, std::size_t index) {
  return index < reasons.size() && reasons[index].code == "ConditionalCheckFailed";
}

// One batch of pending entries, as the transaction that materializes it.
struct Batch {
  table::TransactWriteRequest transaction;
  std::vector<std::string> ids;  // its entries, in action order
  TotalState after;              // the Total once it commits
};

// The Total gains the batch's sum and a version (conditioned on `before`'s),
// each pending entry is deleted (attribute_exists) and put in the permanent
// partition (attribute_not_exists).
Batch batch_transaction(const schema::TableSchema& schema, const LedgerKeys& keys,
                        const Ledger& ledger, const TotalState& before,
                        std::vector<table::Item> items) {
  std::int64_t sum = 0;
  for (const table::Item& item : items) sum += entry_delta(item);
  Batch batch;
  batch.after = {before.bytes + sum, before.version + 1,
                 before.materialized_count + static_cast<std::int64_t>(items.size())};
  table::TransactWriteRequest& transaction = batch.transaction;
  table::UpdateRequest update = stamped_update(schema, keys.total(ledger));
  update.update.set("as_kind", Value::string("LedgerTotal"))
      .set(kBytes, Value::number(batch.after.bytes))
      .set(kVersion, Value::number(batch.after.version))
      .set(kMaterializedCount, Value::number(batch.after.materialized_count));
  update.condition = before.version == 0 ? cond::not_exists(kVersion)
                                         : cond::eq(kVersion, Value::number(before.version));
  transaction.actions.emplace_back(std::move(update));
  const std::string partition_key = schema.partition_key().name;
  // The batch's items become the permanent entries' Puts (moved: they are
  // not read again).
  for (table::Item& item : items) {
    const std::string id = ItemFields(item, "ledger entry").string("as_id");
    batch.ids.push_back(id);
    table::DeleteRequest remove;
    remove.table = schema.table_name();
    remove.key = schema.physical_key(keys.pending(ledger, id));
    remove.condition = cond::exists(partition_key);
    transaction.actions.emplace_back(std::move(remove));
    table::PutRequest put;
    put.table = schema.table_name();
    put.item = std::move(item);
    schema.stamp(put.item, keys.entry(ledger, id));
    put.condition = cond::not_exists(partition_key);
    transaction.actions.emplace_back(std::move(put));
  }
  return batch;
}

}  // namespace

std::int64_t LedgerRoot::pending_bytes() const {
  std::int64_t sum = 0;
  for (const PendingDelta& p : pending) sum += p.delta_bytes;
  return sum;
}

void add_root_item(const schema::TableSchema& schema, const LedgerKeys& keys,
                   const table::Item& item, LedgerRoot& root) {
  const std::string r = schema.logical_key_of(item).r;
  const ItemFields fields(item, "ledger item");
  if (r.starts_with(keys.pending_prefix())) {
    root.pending.push_back({fields.string("as_id"), entry_delta(item)});
  } else if (r == keys.scheme().compose({{"kind", "Total"}})) {
    const TotalState total = total_state(item);
    root.total_bytes = total.bytes;
    root.total_version = total.version;
    root.materialized_count = total.materialized_count;
  } else if (r == keys.scheme().compose({{"kind", "Quota"}})) {
    root.quota_bytes = fields.integer("as_limit_bytes");
  }
}

Totals::Totals(table::Engine& engine, const schema::TableSchema& schema)
    : engine_(engine), schema_(schema), keys_(schema.keys()) {}

std::int64_t Totals::bytes_used(const Ledger& ledger) const {
  return read_total(engine_, schema_, keys_, ledger).bytes;
}

std::int64_t Totals::bytes_used_exact(const Ledger& ledger) const {
  return read_root(ledger).exact_bytes();
}

LedgerRoot Totals::read_root(const Ledger& ledger) const {
  for (int attempt = 0; attempt < kMaxRootReads; ++attempt) {
    const TotalState before = read_total(engine_, schema_, keys_, ledger);
    LedgerRoot root;
    for_each_item(engine_, schema_.listing_query(keys_.root_partition(ledger), ""),
                  [&](const table::Item& item) {
                    add_root_item(schema_, keys_, item, root);
                    return true;
                  });
    const TotalState after = read_total(engine_, schema_, keys_, ledger);
    if (after.version != before.version) {
      // Give the materializer that moved it time to finish its sequence.
      std::this_thread::sleep_for(std::chrono::microseconds(100) * (attempt + 1));
      continue;
    }
    // The query's own copy of the Total may be older or newer than its
    // pending entries; the one read after them is the Total they go with.
    root.total_bytes = after.bytes;
    root.total_version = after.version;
    root.materialized_count = after.materialized_count;
    return root;
  }
  throw Error(ErrorCode::TransactionCanceled,
              "the total of " + ledger.describe() + " changed during each of " +
                  std::to_string(kMaxRootReads) +
                  " reads of its pending entries (materializations kept committing); "
                  "retry later");
}

MaterializeResult Totals::materialize(const Ledger& ledger) const {
  constexpr std::size_t kPerRead = kMaterializeBatch * kMaterializeSequence;
  MaterializeResult result;
  // Pending entries a lost race showed to be gone (another materializer
  // moved them); Mode B's index may list them for a while yet.
  std::set<std::string> gone;
  for (;;) {
    TotalState total = read_total(engine_, schema_, keys_, ledger);

    std::vector<table::Item> pending;
    table::QueryRequest query =
        schema_.listing_query(keys_.root_partition(ledger), keys_.pending_prefix());
    query.limit = kPerRead;
    for_each_item(engine_, std::move(query), [&](table::Item& item) {
      if (!gone.contains(ItemFields(item, "ledger entry").string("as_id"))) {
        pending.push_back(std::move(item));
      }
      return pending.size() < kPerRead;
    });
    if (pending.empty()) return result;
    const std::size_t read = pending.size();

    // Batch k is conditioned on the version batch k - 1 leaves, so the
    // sequence commits whole or up to the first batch another writer of the
    // Total beat.
    std::vector<std::vector<std::string>> batch_ids;
    std::vector<table::TransactWriteRequest> transactions;
    for (std::size_t first = 0; first < pending.size(); first += kMaterializeBatch) {
      Batch batch = batch_transaction(
          schema_, keys_, ledger, total,
          std::vector<table::Item>(
              std::make_move_iterator(pending.begin() + first),
              std::make_move_iterator(pending.begin() +
                                      std::min(pending.size(), first + kMaterializeBatch))));
      total = batch.after;
      batch_ids.push_back(std::move(batch.ids));
      transactions.push_back(std::move(batch.transaction));
    }

    const table::SequenceResult outcome = engine_.transact_write_sequence(transactions);
    for (std::size_t k = 0; k < outcome.committed; ++k) result.entries += batch_ids[k].size();
    result.transactions += outcome.committed;
    if (outcome.failure) {
      const Error& error = *outcome.failure;
      if (error.code() != ErrorCode::TransactionCanceled) throw error;
      const auto& reasons = error.cancellation_reasons();
      for (const CancellationReason& reason : reasons) {
        if (reason.code != "None" && reason.code != "ConditionalCheckFailed" &&
            reason.code != "TransactionConflict") {
          throw error;
        }
      }
      ++result.lost_races;
      const std::vector<std::string>& ids = batch_ids[outcome.committed];
      for (std::size_t k = 0; k < ids.size(); ++k) {
        const bool pending_gone = failed(reasons, 1 + 2 * k);
        const bool permanent_exists = failed(reasons, 2 + 2 * k);
        if (permanent_exists && !pending_gone) {
          throw Error(ErrorCode::IntegrityError,
                      "ledger entry " + ids[k] + " of " + ledger.describe() +
                          " is both pending and permanent; it was written twice");
        }
        if (pending_gone) gone.insert(ids[k]);
      }
      continue;  // re-read the Total and the pending entries
    }
    // A short read was everything there was: entries that commit from now
    // on wait for the next call, so a busy ledger cannot hold one call.
    if (read < kPerRead) return result;
  }
}

}  // namespace stowage::ledger
