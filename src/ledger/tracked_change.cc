#include "ledger/tracked_change.h"

#include "common/clock.h"
#include "common/uuid.h"

namespace stowage::ledger {
namespace {

namespace attr = context_attribute;
using table::Condition;
namespace cond = table::cond;

Condition is(const char* attribute, const std::optional<std::string>& value) {
  return value ? cond::eq(attribute, table::Value::string(*value))
               : cond::not_exists(attribute);
}

}  // namespace

Condition context_unmoved(const OwnerContext& context) {
  return is(attr::kAccount, context.account_id) && is(attr::kBoard, context.board_id);
}

table::PutRequest pending_entry_put(const schema::TableSchema& schema, const Ledger& ledger,
                                    const LedgerEntry& entry) {
  table::PutRequest put;
  put.table = schema.table_name();
  put.item = entry_attributes(entry);
  schema.stamp(put.item, LedgerKeys(schema.keys()).pending(ledger, entry.id));
  put.condition = cond::not_exists(schema.partition_key().name);
  return put;
}

std::vector<table::TransactAction> actions_for_change(const schema::TableSchema& schema,
                                                      const OwnerContext& context,
                                                      std::int64_t delta_bytes,
                                                      const ChangeDetails& details) {
  std::vector<table::TransactAction> actions;
  table::UpdateRequest update = context_update(schema, context.owner);
  update.update.add(attr::kTrackedBytes, table::Value::number(delta_bytes));
  update.update.add(attr::kVersion, table::Value::number(1));
  update.condition = context_unmoved(context);
  actions.emplace_back(std::move(update));

  LedgerEntry entry;
  entry.id = uuid_v7(details.time);
  entry.operation = details.operation;
  entry.delta_bytes = delta_bytes;
  entry.account_id = context.account_id;
  entry.board_id = context.board_id;
  entry.owner = context.owner;
  entry.blob_ids = details.blob_ids;
  entry.attachment_ids = details.attachment_ids;
  entry.created_at = iso8601_utc_micros(details.time);
  entry.actor_id = details.actor_id;
  entry.request_id = details.request_id;
  for (const Ledger& ledger : context.ledgers()) {
    actions.emplace_back(pending_entry_put(schema, ledger, entry));
  }
  return actions;
}

}  // namespace stowage::ledger
