#include "table/evaluation.h"

#include <algorithm>
#include <fmt/format.h>

#include "stowage/error.h"

namespace stowage::table {
namespace {

using namespace condition_node;

const Value* find(const Item* item, const std::string& name) {
  if (item == nullptr) return nullptr;
  auto it = item->find(name);
  return it == item->end() ? nullptr : &it->second;
}

bool is_ordered_type(Type type) {
  return type == Type::S || type == Type::N || type == Type::B;
}

// a <=> b for two values of one ordered type; nullopt when DynamoDB's
// ordering does not apply (different or unordered types).
std::optional<std::strong_ordering> order(const Value& a, const Value& b) {
  if (a.type() != b.type() || !is_ordered_type(a.type())) return std::nullopt;
  switch (a.type()) {
    case Type::N:
      return a.as_number() <=> b.as_number();
    case Type::S:
      // std::string compares as unsigned bytes, which is UTF-8 code point
      // order, DynamoDB's string order.
      return a.as_string() <=> b.as_string();
    default:
      return a.as_binary() <=> b.as_binary();
  }
}

bool compare(const Value* attribute, Comparator op, const Value& operand) {
  if (op == Comparator::Ne) return attribute == nullptr || !(*attribute == operand);
  if (attribute == nullptr) return false;
  if (op == Comparator::Eq) return *attribute == operand;
  std::optional<std::strong_ordering> c = order(*attribute, operand);
  if (!c) return false;
  switch (op) {
    case Comparator::Lt: return *c < 0;
    case Comparator::Le: return *c <= 0;
    case Comparator::Gt: return *c > 0;
    case Comparator::Ge: return *c >= 0;
    default: return false;
  }
}

bool begins_with(const Value* attribute, const Value& prefix) {
  if (attribute == nullptr || attribute->type() != prefix.type()) return false;
  if (prefix.type() == Type::S) {
    return attribute->as_string().starts_with(prefix.as_string());
  }
  if (prefix.type() == Type::B) {
    return attribute->as_binary().starts_with(prefix.as_binary());
  }
  return false;
}

bool contains(const Value* attribute, const Value& operand) {
  if (attribute == nullptr) return false;
  switch (attribute->type()) {
    case Type::S:
      return operand.type() == Type::S &&
             attribute->as_string().find(operand.as_string()) != std::string::npos;
    case Type::SS:
      return operand.type() == Type::S &&
             attribute->as_string_set().contains(operand.as_string());
    case Type::NS:
      return operand.type() == Type::N &&
             attribute->as_number_set().contains(operand.as_number());
    case Type::BS:
      return operand.type() == Type::B &&
             attribute->as_binary_set().contains(operand.as_binary());
    case Type::L: {
      const List& list = attribute->as_list();
      return std::find(list.begin(), list.end(), operand) != list.end();
    }
    default:
      return false;
  }
}

struct Evaluator {
  const Item* item;

  bool operator()(const AttributeExists& c) const {
    return find(item, c.attribute) != nullptr;
  }
  bool operator()(const AttributeNotExists& c) const {
    return find(item, c.attribute) == nullptr;
  }
  bool operator()(const Compare& c) const {
    return compare(find(item, c.attribute), c.op, c.operand);
  }
  bool operator()(const Between& c) const {
    const Value* attribute = find(item, c.attribute);
    if (attribute == nullptr) return false;
    auto low = order(*attribute, c.low);
    auto high = order(*attribute, c.high);
    return low && high && *low >= 0 && *high <= 0;
  }
  bool operator()(const BeginsWith& c) const {
    return begins_with(find(item, c.attribute), c.prefix);
  }
  bool operator()(const Contains& c) const {
    return contains(find(item, c.attribute), c.operand);
  }
  bool operator()(const And& c) const {
    return std::all_of(c.operands.begin(), c.operands.end(),
                       [this](const Condition& o) { return evaluate(o, item); });
  }
  bool operator()(const Or& c) const {
    return std::any_of(c.operands.begin(), c.operands.end(),
                       [this](const Condition& o) { return evaluate(o, item); });
  }
  bool operator()(const Not& c) const {
    if (c.operand.size() != 1) {
      throw Error::validation(fmt::format(
          "NOT takes exactly one operand, got {}", c.operand.size()));
    }
    return !evaluate(c.operand.front(), item);
  }
};

Error add_type_mismatch(const std::string& attribute, const Value& existing,
                        const Value& operand) {
  return Error::validation(fmt::format(
      "ADD on attribute \"{}\": an operand of type {} cannot be added to an "
      "attribute of type {}",
      attribute, type_name(operand.type()), type_name(existing.type())));
}

template <typename Element>
Value set_union(std::set<Element> merged, const std::set<Element>& more,
                Value (*make)(std::set<Element>)) {
  merged.insert(more.begin(), more.end());
  return make(std::move(merged));
}

Value added(const std::string& attribute, const Value* existing,
            const Value& operand) {
  switch (operand.type()) {
    case Type::N:
    case Type::SS:
    case Type::NS:
    case Type::BS:
      break;
    default:
      throw Error::validation(fmt::format(
          "ADD on attribute \"{}\": the operand must be N, SS, NS or BS, got {}",
          attribute, type_name(operand.type())));
  }
  if (existing == nullptr) return operand;
  if (existing->type() != operand.type()) {
    throw add_type_mismatch(attribute, *existing, operand);
  }
  switch (operand.type()) {
    case Type::N:
      try {
        return Value::number(existing->as_number() + operand.as_number());
      } catch (const Error& e) {
        throw Error::validation(
            fmt::format("ADD on attribute \"{}\": {}", attribute, e.message()));
      }
    case Type::SS:
      return set_union(existing->as_string_set(), operand.as_string_set(),
                       &Value::string_set);
    case Type::NS:
      return set_union(existing->as_number_set(), operand.as_number_set(),
                       &Value::number_set);
    default:
      return set_union(existing->as_binary_set(), operand.as_binary_set(),
                       &Value::binary_set);
  }
}

struct Applier {
  Item& item;

  void operator()(const update_action::Set& a) const {
    if (a.if_not_exists) {
      item.try_emplace(a.attribute, a.value);
    } else {
      item.insert_or_assign(a.attribute, a.value);
    }
  }
  void operator()(const update_action::Add& a) const {
    auto it = item.find(a.attribute);
    Value sum = added(a.attribute, it == item.end() ? nullptr : &it->second, a.value);
    item.insert_or_assign(a.attribute, std::move(sum));
  }
  void operator()(const update_action::Remove& a) const {
    item.erase(a.attribute);
  }
};

}  // namespace

bool evaluate(const Condition& condition, const Item* item) {
  return std::visit(Evaluator{item}, condition.node);
}

bool names_only_key_attributes(const Condition& condition, const KeySchema& key_schema) {
  auto is_key = [&key_schema](const std::string& attribute) {
    return attribute == key_schema.hash.name ||
           (key_schema.range && attribute == key_schema.range->name);
  };
  auto all_keyed = [&](const std::vector<Condition>& operands) {
    return std::all_of(operands.begin(), operands.end(), [&](const Condition& operand) {
      return names_only_key_attributes(operand, key_schema);
    });
  };
  return std::visit(
      [&](const auto& node) {
        using N = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<N, And> || std::is_same_v<N, Or>) {
          return all_keyed(node.operands);
        } else if constexpr (std::is_same_v<N, Not>) {
          return all_keyed(node.operand);
        } else {
          return is_key(node.attribute);
        }
      },
      condition.node);
}

void apply_update(const Update& update, Item& item) {
  // Work on a copy so that an action that throws leaves `item` untouched.
  Item updated = item;
  for (const UpdateAction& action : update.actions()) {
    std::visit(Applier{updated}, action);
  }
  item = std::move(updated);
}

}  // namespace stowage::table
