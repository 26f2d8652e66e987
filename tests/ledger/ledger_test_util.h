// Test support for the ledger suites: a table opened through TableSchema,
// and tracked attachment changes written the way the model writes them —
// attachment rows (docs/attachments.md) and the ledger's actions in one
// transaction, rebuilt from a fresh context when a transfer moved the owner
// in between. The suites keep their own record of what they attached, so
// every figure the ledger reports is checked against an independent sum.
//
// Thread safety: LedgerTable is safe for concurrent use (as its engine is).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/uuid.h"
#include "ledger/owner_context.h"
#include "ledger/totals.h"
#include "ledger/tracked_change.h"
#include "schema/table_schema.h"
#include "stowage/error.h"
#include "support/engines.h"
#include "table/engine.h"

namespace stowage::ledger::testing {

struct TestAttachment {
  OwnerRecord owner;
  std::string id;
  std::string blob_id;
  std::int64_t byte_size = 0;
  bool tracked = true;
};

inline schema::SchemaConfig test_config(const std::string& table, table::KeyLayout mode) {
  schema::SchemaConfig config;
  config.table = table;
  config.mode = mode;
  config.manage_table = true;
  return config;
}

class LedgerTable {
 public:
  explicit LedgerTable(std::shared_ptr<table::Engine> engine,
                       table::KeyLayout mode = table::KeyLayout::ModeA,
                       std::string table = stowage::testing::unique_table_name("ledger"))
      : engine_(std::move(engine)),
        schema_(schema::TableSchema::open(*engine_, test_config(table, mode))) {}

  // A second handle on the same table (another engine on one sqlite file).
  LedgerTable(std::shared_ptr<table::Engine> engine, const LedgerTable& same_table)
      : engine_(std::move(engine)),
        schema_(schema::TableSchema::open(
            *engine_, test_config(same_table.schema_.table_name(), same_table.schema_.mode()))) {}

  table::Engine& engine() const { return *engine_; }
  const schema::TableSchema& schema() const { return schema_; }
  Totals totals() const { return Totals(*engine_, schema_); }

  TestAttachment make_attachment(const OwnerRecord& owner, std::int64_t bytes,
                                 bool tracked = true) const {
    return {owner, uuid_v7(std::chrono::system_clock::now()), uuid_v4(), bytes, tracked};
  }

  table::Item attachment_item(const TestAttachment& a) const {
    table::Item item = {
        {"as_kind", table::Value::string("Attachment")},
        {"as_id", table::Value::string(a.id)},
        {"as_record_type", table::Value::string(a.owner.record_type)},
        {"as_record_id", table::Value::string(a.owner.record_id)},
        {"as_name", table::Value::string("files")},
        {"as_blob_id", table::Value::string(a.blob_id)},
        {"as_created_at", table::Value::string(iso8601_utc_micros(std::chrono::system_clock::now()))},
        {"as_tracked", table::Value::boolean(a.tracked)},
        {"as_byte_size", table::Value::number(a.byte_size)},
    };
    schema_.stamp(item, attachment_key(a));
    return item;
  }

  schema::LogicalKey attachment_key(const TestAttachment& a) const {
    return schema_.keys().attachment(a.owner.record_type, a.owner.record_id, "files", a.id);
  }

  // An attachment row alone, with no ledger entry: drift, on purpose.
  void put_untracked_by_ledger(const TestAttachment& a) const {
    table::PutRequest put{schema_.table_name(), attachment_item(a)};
    engine_->put(put);
  }
  void delete_row_only(const TestAttachment& a) const {
    engine_->remove({schema_.table_name(), schema_.physical_key(attachment_key(a))});
  }

  // Attaches every row in one transaction with the ledger's coalesced
  // actions; retries from a fresh context when the owner moved.
  void attach(const std::vector<TestAttachment>& rows,
              const std::function<void()>& before_commit = {}) const {
    change(rows, {}, Operation::Attach, before_commit);
  }
  TestAttachment attach(const OwnerRecord& owner, std::int64_t bytes, bool tracked = true) const {
    TestAttachment a = make_attachment(owner, bytes, tracked);
    attach(std::vector<TestAttachment>{a});
    return a;
  }
  void detach(const TestAttachment& a) const {
    change({}, {a}, Operation::Detach, {});
  }

  // Rows added and removed in one transaction. `before_commit` runs once,
  // after the first context read (a test holds the change there).
  void change(const std::vector<TestAttachment>& added,
              const std::vector<TestAttachment>& removed, Operation operation,
              const std::function<void()>& before_commit) const {
    const OwnerRecord owner = added.empty() ? removed.at(0).owner : added.at(0).owner;
    std::int64_t delta = 0;
    ChangeDetails details;
    details.operation = operation;
    for (const auto& a : added) {
      if (a.tracked) delta += a.byte_size;
      details.blob_ids.push_back(a.blob_id);
      details.attachment_ids.push_back(a.id);
    }
    for (const auto& a : removed) {
      if (a.tracked) delta -= a.byte_size;
      details.blob_ids.push_back(a.blob_id);
      details.attachment_ids.push_back(a.id);
    }
    const bool tracked = std::any_of(added.begin(), added.end(), [](auto& a) { return a.tracked; }) ||
                         std::any_of(removed.begin(), removed.end(), [](auto& a) { return a.tracked; });
    bool first = true;
    for (;;) {
      const OwnerContext context = read_owner_context(*engine_, schema_, owner);
      table::TransactWriteRequest request;
      for (const auto& a : added) {
        table::PutRequest put{schema_.table_name(), attachment_item(a)};
        put.condition = table::cond::not_exists(schema_.partition_key().name);
        request.actions.emplace_back(std::move(put));
      }
      for (const auto& a : removed) {
        table::DeleteRequest remove{schema_.table_name(), schema_.physical_key(attachment_key(a))};
        remove.condition = table::cond::exists(schema_.partition_key().name);
        request.actions.emplace_back(std::move(remove));
      }
      const std::size_t context_action = request.actions.size();
      if (tracked) {
        details.time = std::chrono::system_clock::now();
        for (auto& action : actions_for_change(schema_, context, delta, details)) {
          request.actions.push_back(std::move(action));
        }
      }
      if (first && before_commit) before_commit();
      first = false;
      try {
        engine_->transact_write(request);
        return;
      } catch (const Error& error) {
        const auto& reasons = error.cancellation_reasons();
        const bool moved = error.code() == ErrorCode::TransactionCanceled && tracked &&
                           reasons.size() > context_action &&
                           (reasons[context_action].code == "ConditionalCheckFailed" ||
                            reasons[context_action].code == "TransactionConflict");
        if (!moved) throw;
        context_retries_.fetch_add(1);
      }
    }
  }

  std::uint64_t context_retries() const { return context_retries_.load(); }

  // Σ delta of every entry of the ledger, pending and permanent.
  std::int64_t sum_of_entries(const Ledger& ledger) const {
    const LedgerKeys keys(schema_.keys());
    std::int64_t sum = totals().read_root(ledger).pending_bytes();
    table::QueryRequest request = schema_.listing_query(keys.entries_partition(ledger), "");
    for (;;) {
      table::QueryResult page = engine_->query(request);
      for (const auto& item : page.items) sum += entry_delta(item);
      if (!page.last_evaluated_key) return sum;
      request.exclusive_start_key = page.last_evaluated_key;
    }
  }

 private:
  std::shared_ptr<table::Engine> engine_;
  schema::TableSchema schema_;
  mutable std::atomic<std::uint64_t> context_retries_{0};
};

}  // namespace stowage::ledger::testing
