#include "ledger/owner_context.h"

#include "ledger/item_fields.h"
#include "ledger/stamped_update.h"

namespace stowage::ledger {

std::vector<Ledger> OwnerContext::ledgers() const {
  std::vector<Ledger> result;
  if (account_id) result.push_back(Ledger::account(*account_id));
  if (board_id) result.push_back(Ledger::board(*board_id));
  return result;
}

OwnerContext owner_context_from_item(const OwnerRecord& owner, const table::Item& item) {
  const ItemFields fields(item, "owner context");
  OwnerContext context;
  context.owner = owner;
  context.account_id = fields.optional_string(context_attribute::kAccount);
  context.board_id = fields.optional_string(context_attribute::kBoard);
  context.tracked_bytes = fields.integer_or_zero(context_attribute::kTrackedBytes);
  context.version = fields.integer_or_zero(context_attribute::kVersion);
  context.stored = true;
  return context;
}

OwnerContext read_owner_context(table::Engine& engine, const schema::TableSchema& schema,
                                const OwnerRecord& owner) {
  table::GetRequest request;
  request.table = schema.table_name();
  request.key = schema.physical_key(
      schema.keys().owner_context(owner.record_type, owner.record_id));
  request.consistent_read = true;
  std::optional<table::Item> item = engine.get(request);
  if (!item) return OwnerContext{.owner = owner};
  return owner_context_from_item(owner, *item);
}

table::UpdateRequest context_update(const schema::TableSchema& schema,
                                    const OwnerRecord& owner) {
  table::UpdateRequest request = stamped_update(
      schema, schema.keys().owner_context(owner.record_type, owner.record_id));
  request.update.set("as_kind", table::Value::string("OwnerContext"));
  request.update.set("as_record_type", table::Value::string(owner.record_type));
  request.update.set("as_record_id", table::Value::string(owner.record_id));
  return request;
}

table::Condition context_version_is(const OwnerContext& context) {
  // Version 0: no tracked change or assignment has written the item yet.
  if (context.version == 0) return table::cond::not_exists(context_attribute::kVersion);
  return table::cond::eq(context_attribute::kVersion, table::Value::number(context.version));
}

}  // namespace stowage::ledger
