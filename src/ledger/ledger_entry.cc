#include "ledger/ledger_entry.h"

#include <array>
#include <utility>

#include "ledger/item_fields.h"
#include "stowage/error.h"

namespace stowage::ledger {
namespace {

using table::Value;

constexpr std::array<std::pair<Operation, std::string_view>, 6> kOperations = {{
    {Operation::Attach, "attach"},
    {Operation::Detach, "detach"},
    {Operation::Replace, "replace"},
    {Operation::TransferOut, "transfer_out"},
    {Operation::TransferIn, "transfer_in"},
    {Operation::Reconcile, "reconcile"},
}};

Value string_list(const std::vector<std::string>& strings) {
  table::List list;
  for (const std::string& s : strings) list.push_back(Value::string(s));
  return Value::list(std::move(list));
}

void set_optional(table::Item& item, const char* name, const std::optional<std::string>& value) {
  if (value) item[name] = Value::string(*value);
}

}  // namespace

std::string_view to_string(Operation operation) {
  for (const auto& [op, name] : kOperations) {
    if (op == operation) return name;
  }
  return "unknown";
}

Operation parse_operation(std::string_view text) {
  for (const auto& [op, name] : kOperations) {
    if (name == text) return op;
  }
  throw Error(ErrorCode::IntegrityError,
              "ledger entry has unknown as_operation \"" + std::string(text) + "\"");
}

table::Item entry_attributes(const LedgerEntry& entry) {
  table::Item item = {
      {"as_kind", Value::string("LedgerEntry")},
      {"as_id", Value::string(entry.id)},
      {"as_operation", Value::string(std::string(to_string(entry.operation)))},
      {"as_delta_bytes", Value::number(entry.delta_bytes)},
      {"as_blob_ids", string_list(entry.blob_ids)},
      {"as_attachment_ids", string_list(entry.attachment_ids)},
      {"as_created_at", Value::string(entry.created_at)},
  };
  set_optional(item, "as_account", entry.account_id);
  set_optional(item, "as_board", entry.board_id);
  if (entry.owner) {
    item["as_record_type"] = Value::string(entry.owner->record_type);
    item["as_record_id"] = Value::string(entry.owner->record_id);
  }
  set_optional(item, "as_actor_id", entry.actor_id);
  set_optional(item, "as_request_id", entry.request_id);
  return item;
}

LedgerEntry entry_from_item(const table::Item& item) {
  const ItemFields fields(item, "ledger entry");
  LedgerEntry entry;
  entry.id = fields.string("as_id");
  entry.operation = parse_operation(fields.string("as_operation"));
  entry.delta_bytes = fields.integer("as_delta_bytes");
  entry.account_id = fields.optional_string("as_account");
  entry.board_id = fields.optional_string("as_board");
  std::optional<std::string> record_type = fields.optional_string("as_record_type");
  std::optional<std::string> record_id = fields.optional_string("as_record_id");
  if (record_type && record_id) entry.owner = OwnerRecord{*record_type, *record_id};
  entry.blob_ids = fields.string_list("as_blob_ids");
  entry.attachment_ids = fields.string_list("as_attachment_ids");
  entry.created_at = fields.string("as_created_at");
  entry.actor_id = fields.optional_string("as_actor_id");
  entry.request_id = fields.optional_string("as_request_id");
  return entry;
}

std::int64_t entry_delta(const table::Item& item) {
  return ItemFields(item, "ledger entry").integer("as_delta_bytes");
}

}  // namespace stowage::ledger
