#include "table/expression_renderer.h"

#include <fmt/format.h>

#include <type_traits>

#include "stowage/error.h"

namespace stowage::table {

namespace {

const char* comparator_text(Comparator op) {
  switch (op) {
    case Comparator::Eq: return "=";
    case Comparator::Ne: return "<>";
    case Comparator::Lt: return "<";
    case Comparator::Le: return "<=";
    case Comparator::Gt: return ">";
    case Comparator::Ge: return ">=";
  }
  throw Error::validation(fmt::format("unknown comparator {}", static_cast<int>(op)));
}

const char* key_operator_text(KeyOperator op) {
  switch (op) {
    case KeyOperator::Eq: return "=";
    case KeyOperator::Lt: return "<";
    case KeyOperator::Le: return "<=";
    case KeyOperator::Gt: return ">";
    case KeyOperator::Ge: return ">=";
    case KeyOperator::Between:
    case KeyOperator::BeginsWith: break;
  }
  throw Error::validation(fmt::format("key operator {} is not a comparison", static_cast<int>(op)));
}

}  // namespace

std::string ExpressionRenderer::name(const std::string& attribute) {
  if (auto it = alias_of_name_.find(attribute); it != alias_of_name_.end()) return it->second;
  std::string alias = fmt::format("#n{}", names_.size());
  names_.emplace(alias, attribute);
  alias_of_name_.emplace(attribute, alias);
  return alias;
}

std::string ExpressionRenderer::value(const Value& value) {
  std::string alias = fmt::format(":v{}", values_.size());
  values_.emplace_back(alias, value);
  return alias;
}

void ExpressionRenderer::render(const Condition& condition, std::string& out) {
  using namespace condition_node;
  std::visit(
      [&](const auto& node) {
        using Node = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<Node, AttributeExists>) {
          out += fmt::format("attribute_exists({})", name(node.attribute));
        } else if constexpr (std::is_same_v<Node, AttributeNotExists>) {
          out += fmt::format("attribute_not_exists({})", name(node.attribute));
        } else if constexpr (std::is_same_v<Node, Compare>) {
          std::string attribute = name(node.attribute);
          out += fmt::format("{} {} {}", attribute, comparator_text(node.op), value(node.operand));
        } else if constexpr (std::is_same_v<Node, Between>) {
          std::string attribute = name(node.attribute);
          std::string low = value(node.low);
          out += fmt::format("{} BETWEEN {} AND {}", attribute, low, value(node.high));
        } else if constexpr (std::is_same_v<Node, BeginsWith>) {
          std::string attribute = name(node.attribute);
          out += fmt::format("begins_with({}, {})", attribute, value(node.prefix));
        } else if constexpr (std::is_same_v<Node, Contains>) {
          std::string attribute = name(node.attribute);
          out += fmt::format("contains({}, {})", attribute, value(node.operand));
        } else if constexpr (std::is_same_v<Node, Not>) {
          if (node.operand.size() != 1) {
            throw Error::validation(
                fmt::format("NOT takes exactly one condition, got {}", node.operand.size()));
          }
          out += "(NOT ";
          render(node.operand.front(), out);
          out += ')';
        } else {
          static_assert(std::is_same_v<Node, And> || std::is_same_v<Node, Or>);
          constexpr const char* kJoin = std::is_same_v<Node, And> ? " AND " : " OR ";
          if (node.operands.empty()) {
            throw Error::validation(fmt::format("{}needs at least one condition", kJoin + 1));
          }
          out += '(';
          for (std::size_t i = 0; i < node.operands.size(); ++i) {
            if (i > 0) out += kJoin;
            render(node.operands[i], out);
          }
          out += ')';
        }
      },
      condition.node);
}

std::string ExpressionRenderer::condition(const Condition& condition) {
  std::string out;
  render(condition, out);
  return out;
}

std::string ExpressionRenderer::update(const Update& update) {
  std::string set_clause, add_clause, remove_clause;
  auto append = [](std::string& clause, const std::string& text) {
    if (!clause.empty()) clause += ", ";
    clause += text;
  };
  for (const UpdateAction& action : update.actions()) {
    if (const auto* set = std::get_if<update_action::Set>(&action)) {
      std::string attribute = name(set->attribute);
      std::string operand = value(set->value);
      append(set_clause,
             set->if_not_exists
                 ? fmt::format("{} = if_not_exists({}, {})", attribute, attribute, operand)
                 : fmt::format("{} = {}", attribute, operand));
    } else if (const auto* add = std::get_if<update_action::Add>(&action)) {
      std::string attribute = name(add->attribute);
      append(add_clause, fmt::format("{} {}", attribute, value(add->value)));
    } else {
      append(remove_clause, name(std::get<update_action::Remove>(action).attribute));
    }
  }
  std::string out;
  auto clause = [&out](const char* keyword, const std::string& body) {
    if (body.empty()) return;
    if (!out.empty()) out += ' ';
    out += keyword;
    out += ' ';
    out += body;
  };
  clause("SET", set_clause);
  clause("ADD", add_clause);
  clause("REMOVE", remove_clause);
  return out;
}

std::string ExpressionRenderer::key_condition(
    const std::string& hash_attribute, const Value& hash_value, const std::string& range_attribute,
    const std::optional<RangeKeyCondition>& range_condition) {
  std::string hash = name(hash_attribute);
  std::string out = fmt::format("{} = {}", hash, value(hash_value));
  if (!range_condition) return out;
  std::string range = name(range_attribute);
  std::string operand = value(range_condition->operand);
  switch (range_condition->op) {
    case KeyOperator::Between:
      if (!range_condition->upper) {
        throw Error::validation(fmt::format("BETWEEN on {} needs an upper bound", range_attribute));
      }
      return out + fmt::format(" AND {} BETWEEN {} AND {}", range, operand,
                               value(*range_condition->upper));
    case KeyOperator::BeginsWith:
      return out + fmt::format(" AND begins_with({}, {})", range, operand);
    default:
      return out + fmt::format(" AND {} {} {}", range, key_operator_text(range_condition->op),
                               operand);
  }
}

}  // namespace stowage::table
