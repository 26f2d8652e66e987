// Update: the actions of a DynamoDB update expression as a typed list.
//
// SET (optionally if_not_exists), ADD (numbers and sets) and REMOVE on
// top-level attributes. Each attribute may appear in one action only and key
// attributes may not be updated (DynamoDB's rules; engines reject both with
// ValidationError). Plain value type; thread-compatible.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "table/value.h"

namespace stowage::table {

namespace update_action {
// SET attribute = value, or SET attribute = if_not_exists(attribute, value).
struct Set { std::string attribute; Value value; bool if_not_exists = false; };
// ADD attribute value: numeric addition (missing counts as 0) or set union
// (missing counts as empty); any other type is a ValidationError.
struct Add { std::string attribute; Value value; };
// REMOVE attribute (no-op when absent).
struct Remove { std::string attribute; };
}  // namespace update_action

using UpdateAction =
    std::variant<update_action::Set, update_action::Add, update_action::Remove>;

class Update {
 public:
  Update& set(std::string attribute, Value value);
  Update& set_if_not_exists(std::string attribute, Value value);
  Update& add(std::string attribute, Value value);
  Update& remove(std::string attribute);

  const std::vector<UpdateAction>& actions() const { return actions_; }
  bool empty() const { return actions_.empty(); }

 private:
  std::vector<UpdateAction> actions_;
};

}  // namespace stowage::table
