// Requests and results of the table contract, one struct per DynamoDB
// operation. Plain aggregates; an Engine validates them (key shape, sizes,
// limits) before any I/O and names the offending field in its error.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "table/condition.h"
#include "table/update.h"
#include "table/value.h"

namespace stowage::table {

// Which item image a write returns. AllNew is valid for update only.
enum class ReturnValues { None, AllOld, AllNew };

struct GetRequest {
  std::string table;
  Item key;
  bool consistent_read = true;
};

struct PutRequest {
  std::string table;
  Item item;
  std::optional<Condition> condition;
  ReturnValues return_values = ReturnValues::None;
};

struct DeleteRequest {
  std::string table;
  Item key;
  std::optional<Condition> condition;
  ReturnValues return_values = ReturnValues::None;
};

// Creates the item (from key + SET/ADD values) when it does not exist,
// exactly like DynamoDB's UpdateItem; condition on attribute_exists to avoid
// that.
struct UpdateRequest {
  std::string table;
  Item key;
  Update update;
  std::optional<Condition> condition;
  ReturnValues return_values = ReturnValues::None;
};

enum class KeyOperator { Eq, Lt, Le, Gt, Ge, Between, BeginsWith };

// A condition on the range key of the queried table or index.
struct RangeKeyCondition {
  KeyOperator op = KeyOperator::Eq;
  Value operand;                 // the bound, or the lower bound of Between
  std::optional<Value> upper;    // Between's upper bound only
};

struct QueryRequest {
  std::string table;
  std::string index_name;        // empty: the base table
  Value hash_value;              // partition key equality
  std::optional<RangeKeyCondition> range_condition;
  bool scan_forward = true;
  std::optional<std::size_t> limit;          // items per page
  std::optional<Item> exclusive_start_key;   // a previous last_evaluated_key
  bool consistent_read = false;  // not allowed on a GSI (ValidationError)
};

struct ScanRequest {
  std::string table;
  std::optional<std::size_t> limit;
  std::optional<Item> exclusive_start_key;
  bool consistent_read = true;
};

// One page. A page holds at most `limit` items and at most 1 MB of item data
// (DynamoDB's rule: the item that crosses 1 MB ends the page); a page ends
// with last_evaluated_key set when more items may follow.
struct QueryResult {
  std::vector<Item> items;
  std::optional<Item> last_evaluated_key;
};

struct ConditionCheck {
  std::string table;
  Item key;
  Condition condition;
};

// ReturnValues of a write inside a transaction must be None.
using TransactAction =
    std::variant<PutRequest, UpdateRequest, DeleteRequest, ConditionCheck>;

// At most 100 actions, at most one action per item. A repeated request with
// the same client_request_token within 10 minutes applies once; the same token
// with different actions is IdempotentParameterMismatch. An empty token means
// "none" at this layer; the retrying engine always fills one in.
struct TransactWriteRequest {
  std::vector<TransactAction> actions;
  std::string client_request_token;
};

}  // namespace stowage::table
