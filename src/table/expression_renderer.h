// ExpressionRenderer: turns the typed condition, update and key-condition
// trees into DynamoDB expression strings for one request.
//
// Every attribute name becomes an alias #n0, #n1… and every value an alias
// :v0, :v1…, so names with '.', '#', spaces, reserved words ("size",
// "status") or non-ASCII characters need no special handling and no value
// is ever spliced into an expression. A name used twice shares one alias;
// each value gets its own. Render all of a request's expressions with one
// renderer, then send names() and values() as its ExpressionAttributeNames
// and ExpressionAttributeValues (DynamoDB rejects unused aliases, so only
// aliases the rendered expressions use are ever produced).
//
// Thread-compatible: one instance per request.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "table/condition.h"
#include "table/requests.h"
#include "table/update.h"
#include "table/value.h"

namespace stowage::table {

class ExpressionRenderer {
 public:
  // A ConditionExpression. Throws Error(ValidationError) for an AND/OR
  // without operands or a NOT without exactly one.
  std::string condition(const Condition& condition);
  // An UpdateExpression: SET, ADD and REMOVE clauses, each listing its
  // actions in request order. REQUIRES: !update.empty().
  std::string update(const Update& update);
  // A KeyConditionExpression: hash equality, then the range condition.
  std::string key_condition(const std::string& hash_attribute, const Value& hash_value,
                            const std::string& range_attribute,
                            const std::optional<RangeKeyCondition>& range_condition);

  // Alias → attribute name.
  const std::map<std::string, std::string>& names() const { return names_; }
  // Alias → value, in alias order.
  const std::vector<std::pair<std::string, Value>>& values() const { return values_; }

 private:
  std::string name(const std::string& attribute);
  std::string value(const Value& value);
  void render(const Condition& condition, std::string& out);

  std::map<std::string, std::string> names_;
  std::map<std::string, std::string, std::less<>> alias_of_name_;
  std::vector<std::pair<std::string, Value>> values_;
};

}  // namespace stowage::table
