// Value and Item: DynamoDB's data model.
//
// A Value is one of S, N, B, BOOL, NULL, M, L, SS, NS, BS; an Item is a map
// from attribute name to Value. Both are plain value types (copyable,
// comparable with ==), thread-compatible. Accessors throw
// Error(ValidationError) naming the expected and the actual type, so a
// wrong-typed attribute read from a table is a clear error, never UB.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "table/number.h"

namespace stowage::table {

enum class Type { S, N, B, BOOL, NUL, M, L, SS, NS, BS };

// DynamoDB's descriptor: "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", …
std::string_view type_name(Type type);

class Value;
using Item = std::map<std::string, Value, std::less<>>;
using List = std::vector<Value>;

class Value {
 public:
  Value();  // NULL

  static Value string(std::string s);
  static Value number(Number n);
  static Value number(std::int64_t n);
  static Value binary(std::string bytes);
  static Value boolean(bool b);
  static Value null();
  static Value map(Item m);
  static Value list(List l);
  // Sets may not be empty (DynamoDB rule); checked when an item is written,
  // not here, so that a request can be validated with a clear message.
  static Value string_set(std::set<std::string> ss);
  static Value number_set(std::set<Number> ns);
  static Value binary_set(std::set<std::string> bs);

  Type type() const { return type_; }

  const std::string& as_string() const;   // S
  const Number& as_number() const;        // N
  const std::string& as_binary() const;   // B
  bool as_bool() const;                   // BOOL
  const Item& as_map() const;             // M
  const List& as_list() const;            // L
  const std::set<std::string>& as_string_set() const;  // SS
  const std::set<Number>& as_number_set() const;       // NS
  const std::set<std::string>& as_binary_set() const;  // BS

  // DynamoDB's storage size of the value (without any attribute name).
  std::size_t storage_size() const;

  friend bool operator==(const Value& a, const Value& b);

 private:
  using Storage = std::variant<std::monostate, bool, std::string, Number, Item,
                               List, std::set<std::string>, std::set<Number>>;
  Value(Type type, Storage data);
  void expect(Type wanted) const;

  Type type_;
  Storage data_;
};

// DynamoDB's size of an item: the sum of UTF-8 name lengths and value sizes.
std::size_t item_size(const Item& item);

// Short human form of a value or item for error messages, e.g. {"pk": S "a"}.
std::string describe(const Value& value);
std::string describe(const Item& item);

}  // namespace stowage::table
