#include "table/condition.h"

#include <utility>

namespace stowage::table {
namespace {

// Appends `c` to `operands`, splicing in its operands when it is already a
// `Junction` (a && (b && c) is a && b && c), so trees stay flat.
template <typename Junction>
void append_flat(std::vector<Condition>& operands, Condition c) {
  if (auto* same = std::get_if<Junction>(&c.node)) {
    for (Condition& operand : same->operands) {
      operands.push_back(std::move(operand));
    }
  } else {
    operands.push_back(std::move(c));
  }
}

template <typename Junction>
Condition join(Condition a, Condition b) {
  Junction junction;
  append_flat<Junction>(junction.operands, std::move(a));
  append_flat<Junction>(junction.operands, std::move(b));
  return Condition{std::move(junction)};
}

Condition compare(std::string attribute, Comparator op, Value operand) {
  return Condition{condition_node::Compare{std::move(attribute), op,
                                           std::move(operand)}};
}

}  // namespace

Condition operator&&(Condition a, Condition b) {
  return join<condition_node::And>(std::move(a), std::move(b));
}

Condition operator||(Condition a, Condition b) {
  return join<condition_node::Or>(std::move(a), std::move(b));
}

Condition operator!(Condition a) {
  condition_node::Not negation;
  negation.operand.push_back(std::move(a));
  return Condition{std::move(negation)};
}

namespace cond {

Condition exists(std::string attribute) {
  return Condition{condition_node::AttributeExists{std::move(attribute)}};
}
Condition not_exists(std::string attribute) {
  return Condition{condition_node::AttributeNotExists{std::move(attribute)}};
}
Condition eq(std::string attribute, Value operand) {
  return compare(std::move(attribute), Comparator::Eq, std::move(operand));
}
Condition ne(std::string attribute, Value operand) {
  return compare(std::move(attribute), Comparator::Ne, std::move(operand));
}
Condition lt(std::string attribute, Value operand) {
  return compare(std::move(attribute), Comparator::Lt, std::move(operand));
}
Condition le(std::string attribute, Value operand) {
  return compare(std::move(attribute), Comparator::Le, std::move(operand));
}
Condition gt(std::string attribute, Value operand) {
  return compare(std::move(attribute), Comparator::Gt, std::move(operand));
}
Condition ge(std::string attribute, Value operand) {
  return compare(std::move(attribute), Comparator::Ge, std::move(operand));
}
Condition between(std::string attribute, Value low, Value high) {
  return Condition{condition_node::Between{std::move(attribute), std::move(low),
                                           std::move(high)}};
}
Condition begins_with(std::string attribute, Value prefix) {
  return Condition{
      condition_node::BeginsWith{std::move(attribute), std::move(prefix)}};
}
Condition contains(std::string attribute, Value operand) {
  return Condition{
      condition_node::Contains{std::move(attribute), std::move(operand)}};
}

}  // namespace cond
}  // namespace stowage::table
