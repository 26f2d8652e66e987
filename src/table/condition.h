// Condition: a DynamoDB condition expression as a typed tree.
//
// Built with the functions below (cond::exists("a") && cond::eq("n", v)),
// evaluated directly by the embedded engines and rendered to an aliased
// expression string by the DynamoDB engine. Conditions name top-level
// attributes. Plain value type; thread-compatible.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "table/value.h"

namespace stowage::table {

enum class Comparator { Eq, Ne, Lt, Le, Gt, Ge };

struct Condition;

namespace condition_node {
struct AttributeExists { std::string attribute; };
struct AttributeNotExists { std::string attribute; };
// attribute <op> operand. Ordering comparisons are defined for S, N and B
// operands of the same type; otherwise they are false (as in DynamoDB).
struct Compare { std::string attribute; Comparator op; Value operand; };
// low <= attribute <= high.
struct Between { std::string attribute; Value low; Value high; };
// S or B prefix.
struct BeginsWith { std::string attribute; Value prefix; };
// Substring of an S, element of a set, or element of a list.
struct Contains { std::string attribute; Value operand; };
struct And { std::vector<Condition> operands; };
struct Or { std::vector<Condition> operands; };
// Exactly one operand.
struct Not { std::vector<Condition> operand; };
}  // namespace condition_node

struct Condition {
  using Node = std::variant<
      condition_node::AttributeExists, condition_node::AttributeNotExists,
      condition_node::Compare, condition_node::Between,
      condition_node::BeginsWith, condition_node::Contains,
      condition_node::And, condition_node::Or, condition_node::Not>;
  Node node;
};

Condition operator&&(Condition a, Condition b);
Condition operator||(Condition a, Condition b);
Condition operator!(Condition a);

namespace cond {
Condition exists(std::string attribute);
Condition not_exists(std::string attribute);
Condition eq(std::string attribute, Value operand);
Condition ne(std::string attribute, Value operand);
Condition lt(std::string attribute, Value operand);
Condition le(std::string attribute, Value operand);
Condition gt(std::string attribute, Value operand);
Condition ge(std::string attribute, Value operand);
Condition between(std::string attribute, Value low, Value high);
Condition begins_with(std::string attribute, Value prefix);
Condition contains(std::string attribute, Value operand);
}  // namespace cond

}  // namespace stowage::table
