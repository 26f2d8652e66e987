#include "ledger/item_fields.h"

#include "stowage/error.h"

namespace stowage::ledger {

void ItemFields::fail(std::string_view name, std::string_view problem) const {
  throw Error(ErrorCode::IntegrityError, std::string(kind_) + " " + table::describe(item_) +
                                             ": attribute " + std::string(name) + " " +
                                             std::string(problem));
}

const table::Value& ItemFields::required(std::string_view name) const {
  auto it = item_.find(name);
  if (it == item_.end()) fail(name, "is missing");
  return it->second;
}

const std::string& ItemFields::string(std::string_view name) const {
  const table::Value& value = required(name);
  if (value.type() != table::Type::S) fail(name, "is not a string");
  return value.as_string();
}

std::optional<std::string> ItemFields::optional_string(std::string_view name) const {
  if (item_.find(name) == item_.end()) return std::nullopt;
  return string(name);
}

std::int64_t ItemFields::integer(std::string_view name) const {
  const table::Value& value = required(name);
  if (value.type() != table::Type::N) fail(name, "is not a number");
  std::optional<std::int64_t> n = value.as_number().to_int64();
  if (!n) fail(name, "is not a 64-bit integer");
  return *n;
}

std::int64_t ItemFields::integer_or_zero(std::string_view name) const {
  if (item_.find(name) == item_.end()) return 0;
  return integer(name);
}

bool ItemFields::boolean_or_false(std::string_view name) const {
  auto it = item_.find(name);
  if (it == item_.end()) return false;
  if (it->second.type() != table::Type::BOOL) fail(name, "is not a boolean");
  return it->second.as_bool();
}

std::vector<std::string> ItemFields::string_list(std::string_view name) const {
  auto it = item_.find(name);
  if (it == item_.end()) return {};
  if (it->second.type() != table::Type::L) fail(name, "is not a list");
  std::vector<std::string> strings;
  for (const table::Value& value : it->second.as_list()) {
    if (value.type() != table::Type::S) fail(name, "holds a value that is not a string");
    strings.push_back(value.as_string());
  }
  return strings;
}

}  // namespace stowage::ledger
