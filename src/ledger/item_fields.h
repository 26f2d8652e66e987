// ItemFields: typed reads of the ledger's own attributes from an item read
// back from the table, each failure an Error(IntegrityError) that names the
// item kind and the attribute (a wrong-typed attribute means the table was
// written by something else, not a caller mistake).
//
// Thread safety: a view of one item; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "table/value.h"

namespace stowage::ledger {

class ItemFields {
 public:
  // REQUIRES: `item` outlives this object.
  ItemFields(const table::Item& item, std::string_view kind) : item_(item), kind_(kind) {}

  const std::string& string(std::string_view name) const;
  std::optional<std::string> optional_string(std::string_view name) const;
  // An N attribute that is an int64.
  std::int64_t integer(std::string_view name) const;
  // 0 when absent.
  std::int64_t integer_or_zero(std::string_view name) const;
  bool boolean_or_false(std::string_view name) const;
  // An L of S; empty when absent.
  std::vector<std::string> string_list(std::string_view name) const;

 private:
  const table::Value& required(std::string_view name) const;
  [[noreturn]] void fail(std::string_view name, std::string_view problem) const;

  const table::Item& item_;
  std::string_view kind_;
};

}  // namespace stowage::ledger
