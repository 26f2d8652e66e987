#include "ledger/transfer.h"

#include <thread>

#include "common/clock.h"
#include "common/uuid.h"
#include "ledger/ledger_entry.h"
#include "ledger/tracked_change.h"
#include "stowage/error.h"

namespace stowage::ledger {
namespace {

namespace attr = context_attribute;
using table::Value;

// Attempts before a transfer that keeps losing to tracked changes of the
// same owner gives up (rethrowing the last cancellation).
constexpr int kMaxAttempts = 50;

void set_or_remove(table::Update& update, const char* attribute,
                   const std::optional<std::string>& value) {
  if (value) {
    update.set(attribute, Value::string(*value));
  } else {
    update.remove(attribute);
  }
}

table::TransactAction owner_index_put(const schema::TableSchema& schema, const Ledger& ledger,
                                      const OwnerRecord& owner) {
  table::PutRequest put;
  put.table = schema.table_name();
  put.item = {{"as_kind", Value::string("LedgerOwner")},
              {"as_record_type", Value::string(owner.record_type)},
              {"as_record_id", Value::string(owner.record_id)}};
  schema.stamp(put.item, LedgerKeys(schema.keys()).owner_index(ledger, owner));
  return put;
}

table::TransactAction owner_index_delete(const schema::TableSchema& schema,
                                         const Ledger& ledger, const OwnerRecord& owner) {
  table::DeleteRequest remove;
  remove.table = schema.table_name();
  remove.key = schema.physical_key(LedgerKeys(schema.keys()).owner_index(ledger, owner));
  return remove;
}

std::vector<table::TransactAction> transfer_actions(const schema::TableSchema& schema,
                                                    const OwnerContext& before,
                                                    const Assignment& assignment) {
  OwnerContext after = before;
  after.account_id = assignment.account_id;
  after.board_id = assignment.board_id;

  std::vector<table::TransactAction> actions;
  table::UpdateRequest update = context_update(schema, before.owner);
  set_or_remove(update.update, attr::kAccount, after.account_id);
  set_or_remove(update.update, attr::kBoard, after.board_id);
  update.update.add(attr::kVersion, Value::number(1));
  update.condition = context_version_is(before);
  actions.emplace_back(std::move(update));

  const auto time = std::chrono::system_clock::now();
  auto entry_for = [&](const OwnerContext& side, Operation operation, std::int64_t delta) {
    LedgerEntry entry;
    entry.id = uuid_v7(time);
    entry.operation = operation;
    entry.delta_bytes = delta;
    entry.account_id = side.account_id;
    entry.board_id = side.board_id;
    entry.owner = before.owner;
    entry.created_at = iso8601_utc_micros(time);
    entry.actor_id = assignment.actor_id;
    entry.request_id = assignment.request_id;
    return entry;
  };
  const LedgerEntry out = entry_for(before, Operation::TransferOut, -before.tracked_bytes);
  const LedgerEntry in = entry_for(after, Operation::TransferIn, before.tracked_bytes);

  auto move_side = [&](std::optional<Ledger> from, std::optional<Ledger> to) {
    if (from == to) return;
    // An owner with no bytes moves no bytes: no entries, only the index.
    const bool moves_bytes = before.tracked_bytes != 0;
    if (from) {
      if (moves_bytes) actions.emplace_back(pending_entry_put(schema, *from, out));
      actions.emplace_back(owner_index_delete(schema, *from, before.owner));
    }
    if (to) {
      if (moves_bytes) actions.emplace_back(pending_entry_put(schema, *to, in));
      actions.emplace_back(owner_index_put(schema, *to, before.owner));
    }
  };
  auto account = [](const OwnerContext& c) -> std::optional<Ledger> {
    if (!c.account_id) return std::nullopt;
    return Ledger::account(*c.account_id);
  };
  auto board = [](const OwnerContext& c) -> std::optional<Ledger> {
    if (!c.board_id) return std::nullopt;
    return Ledger::board(*c.board_id);
  };
  move_side(account(before), account(after));
  move_side(board(before), board(after));
  return actions;
}

}  // namespace

OwnerContext assign_owner(table::Engine& engine, const schema::TableSchema& schema,
                          const OwnerRecord& owner, const Assignment& assignment) {
  // Keys first, so a bad id fails before any request.
  const LedgerKeys keys(schema.keys());
  if (assignment.account_id) keys.root_partition(Ledger::account(*assignment.account_id));
  if (assignment.board_id) keys.root_partition(Ledger::board(*assignment.board_id));

  for (int attempt = 1;; ++attempt) {
    OwnerContext context = read_owner_context(engine, schema, owner);
    if (context.account_id == assignment.account_id &&
        context.board_id == assignment.board_id) {
      return context;
    }
    table::TransactWriteRequest transaction;
    transaction.actions = transfer_actions(schema, context, assignment);
    try {
      engine.transact_write(transaction);
    } catch (const Error& error) {
      // Only a lost race on the context (a tracked change or another
      // assignment committed since the read) is retried.
      const bool context_moved =
          error.code() == ErrorCode::TransactionCanceled &&
          !error.cancellation_reasons().empty() &&
          (error.cancellation_reasons()[0].code == "ConditionalCheckFailed" ||
           error.cancellation_reasons()[0].code == "TransactionConflict");
      if (!context_moved || attempt == kMaxAttempts) throw;
      std::this_thread::sleep_for(std::chrono::microseconds(100 * attempt));
      continue;
    }
    context.account_id = assignment.account_id;
    context.board_id = assignment.board_id;
    context.version += 1;
    context.stored = true;
    return context;
  }
}

}  // namespace stowage::ledger
