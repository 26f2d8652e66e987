#include "table/validation.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "stowage/error.h"
#include "table/item_codec.h"
#include "table/limits.h"

namespace stowage::table {
namespace {

// What an error message is about: `table "T"` or `index "I" of table "T"`,
// after a lead such as "update on" and before an attribute. Only a failed
// check formats it, so a valid request builds no message text.
struct Subject {
  const TableDescription* table;
  const GlobalSecondaryIndex* index = nullptr;
  std::string_view lead = {};
  std::string_view attribute = {};

  Subject about(std::string_view name) const { return {table, index, lead, name}; }
};

}  // namespace
}  // namespace stowage::table

template <>
struct fmt::formatter<stowage::table::Subject> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(const stowage::table::Subject& subject, FormatContext& context) const {
    auto out = context.out();
    if (!subject.lead.empty()) out = fmt::format_to(out, "{} ", subject.lead);
    if (subject.index != nullptr) {
      out = fmt::format_to(out, "index \"{}\" of ", subject.index->name);
    }
    out = fmt::format_to(out, "table \"{}\"", subject.table->name);
    if (!subject.attribute.empty()) {
      out = fmt::format_to(out, ": attribute \"{}\"", subject.attribute);
    }
    return out;
  }
};

namespace stowage::table {
namespace {

Type value_type(KeyType type) { return type == KeyType::S ? Type::S : Type::N; }

// Which key a KeyAttribute belongs to, for messages and length limits.
struct KeyRole {
  Subject owner;
  std::string_view part;   // "hash key" or "range key"
  std::size_t max_bytes;
};

void check_key_value(const KeyRole& role, const KeyAttribute& key,
                     const Value& value) {
  if (value.type() != value_type(key.type)) {
    throw Error::validation(fmt::format(
        "{}: {} attribute \"{}\" must be {}, got {}", role.owner, role.part,
        key.name, type_name(value_type(key.type)), type_name(value.type())));
  }
  if (key.type != KeyType::S) return;
  const std::string& s = value.as_string();
  if (s.empty()) {
    throw Error::validation(fmt::format(
        "{}: {} attribute \"{}\" is an empty string", role.owner, role.part,
        key.name));
  }
  if (s.size() > role.max_bytes) {
    throw Error::validation(fmt::format(
        "{}: {} attribute \"{}\" is {} bytes, over the limit of {}",
        role.owner, role.part, key.name, s.size(), role.max_bytes));
  }
}

// Calls `check(role, key_attribute)` for the hash and range key of `schema`.
template <typename Check>
void for_each_key(const Subject& owner, const KeySchema& schema, Check check) {
  check(KeyRole{owner, "hash key", limits::kMaxHashKeyBytes}, schema.hash);
  if (schema.range) {
    check(KeyRole{owner, "range key", limits::kMaxRangeKeyBytes}, *schema.range);
  }
}

// No empty sets at any depth (DynamoDB rejects them) and no deeper nesting
// than DynamoDB stores.
void check_value(const Subject& where, const Value& value, int depth = 0) {
  switch (value.type()) {
    case Type::SS:
    case Type::NS:
    case Type::BS: {
      bool empty = value.type() == Type::NS ? value.as_number_set().empty()
                   : value.type() == Type::SS ? value.as_string_set().empty()
                                              : value.as_binary_set().empty();
      if (empty) {
        throw Error::validation(fmt::format("{}: a set of type {} may not be empty",
                                            where, type_name(value.type())));
      }
      return;
    }
    case Type::M:
    case Type::L:
      if (depth == limits::kMaxNestingDepth) {
        throw Error::validation(fmt::format(
            "{}: nested more than {} levels deep", where,
            limits::kMaxNestingDepth));
      }
      if (value.type() == Type::M) {
        for (const auto& [name, element] : value.as_map()) {
          check_value(where, element, depth + 1);
        }
      } else {
        for (const Value& element : value.as_list()) {
          check_value(where, element, depth + 1);
        }
      }
      return;
    default:
      return;
  }
}

void check_attribute_name(const Subject& owner, std::string_view name) {
  if (name.empty()) {
    throw Error::validation(fmt::format("{}: an attribute name may not be empty",
                                        owner));
  }
}

void check_return_values(std::string_view operation, const TableDescription& table,
                         ReturnValues return_values) {
  if (return_values == ReturnValues::AllNew) {
    throw Error::validation(fmt::format(
        "{} on table \"{}\": ReturnValues ALL_NEW is only valid for an update",
        operation, table.name));
  }
}

void check_condition(const Subject& owner, const Condition& condition);

void check_ordered_operand(const Subject& owner, std::string_view op,
                           const std::string& attribute, const Value& operand) {
  Type t = operand.type();
  if (t != Type::S && t != Type::N && t != Type::B) {
    throw Error::validation(fmt::format(
        "{}: condition {} on \"{}\" needs an S, N or B operand, got {}", owner,
        op, attribute, type_name(t)));
  }
}

struct ConditionChecker {
  Subject owner;

  void operator()(const condition_node::AttributeExists& c) const {
    check_attribute_name(owner, c.attribute);
  }
  void operator()(const condition_node::AttributeNotExists& c) const {
    check_attribute_name(owner, c.attribute);
  }
  void operator()(const condition_node::Compare& c) const {
    check_attribute_name(owner, c.attribute);
    check_value(owner, c.operand);
    if (c.op != Comparator::Eq && c.op != Comparator::Ne) {
      check_ordered_operand(owner, "comparison", c.attribute, c.operand);
    }
  }
  void operator()(const condition_node::Between& c) const {
    check_attribute_name(owner, c.attribute);
    check_ordered_operand(owner, "BETWEEN", c.attribute, c.low);
    check_ordered_operand(owner, "BETWEEN", c.attribute, c.high);
    if (c.low.type() != c.high.type()) {
      throw Error::validation(fmt::format(
          "{}: BETWEEN bounds on \"{}\" have different types {} and {}", owner,
          c.attribute, type_name(c.low.type()), type_name(c.high.type())));
    }
    bool inverted = c.low.type() == Type::N ? c.high.as_number() < c.low.as_number()
                    : c.low.type() == Type::S ? c.high.as_string() < c.low.as_string()
                                              : c.high.as_binary() < c.low.as_binary();
    if (inverted) {
      throw Error::validation(fmt::format(
          "{}: BETWEEN on \"{}\" has its lower bound {} above its upper bound {}",
          owner, c.attribute, describe(c.low), describe(c.high)));
    }
  }
  void operator()(const condition_node::BeginsWith& c) const {
    check_attribute_name(owner, c.attribute);
    if (c.prefix.type() != Type::S && c.prefix.type() != Type::B) {
      throw Error::validation(fmt::format(
          "{}: begins_with on \"{}\" needs an S or B prefix, got {}", owner,
          c.attribute, type_name(c.prefix.type())));
    }
  }
  void operator()(const condition_node::Contains& c) const {
    check_attribute_name(owner, c.attribute);
    check_value(owner, c.operand);
  }
  void operator()(const condition_node::And& c) const { junction("AND", c.operands); }
  void operator()(const condition_node::Or& c) const { junction("OR", c.operands); }
  void operator()(const condition_node::Not& c) const {
    if (c.operand.size() != 1) {
      throw Error::validation(fmt::format(
          "{}: NOT takes exactly one operand, got {}", owner, c.operand.size()));
    }
    check_condition(owner, c.operand.front());
  }

  void junction(std::string_view name, const std::vector<Condition>& operands) const {
    if (operands.empty()) {
      throw Error::validation(fmt::format("{}: {} has no operands", owner, name));
    }
    for (const Condition& operand : operands) check_condition(owner, operand);
  }
};

void check_condition(const Subject& owner, const Condition& condition) {
  std::visit(ConditionChecker{owner}, condition.node);
}

void check_condition(const TableDescription& table,
                     const std::optional<Condition>& condition) {
  if (condition) check_condition(Subject{&table}, *condition);
}

// The key attributes a table's (or an index's) start key must hold: the
// table's key plus, for an index, the index's key.
void check_start_key(const TableDescription& table,
                     const GlobalSecondaryIndex* index, const Item& start_key) {
  const Subject owner{&table, nullptr, "exclusive start key for"};
  std::set<std::string_view> wanted;
  auto want = [&](const KeyRole& role, const KeyAttribute& key) {
    auto it = start_key.find(key.name);
    if (it == start_key.end()) {
      throw Error::validation(fmt::format("{}: {} attribute \"{}\" is missing",
                                          role.owner, role.part, key.name));
    }
    check_key_value(role, key, it->second);
    wanted.insert(key.name);
  };
  for_each_key(owner, table.key_schema, want);
  if (index != nullptr) {
    for_each_key(Subject{&table, index, owner.lead}, index->key_schema, want);
  }
  for (const auto& [name, value] : start_key) {
    if (!wanted.contains(name)) {
      throw Error::validation(fmt::format(
          "{}: attribute \"{}\" is not a key attribute", owner, name));
    }
  }
}

void check_limit(const TableDescription& table, const std::optional<std::size_t>& limit) {
  if (limit && *limit == 0) {
    throw Error::validation(fmt::format(
        "table \"{}\": limit must be at least 1", table.name));
  }
}

void check_key_operand(const Subject& owner, const KeyAttribute& key,
                       std::string_view what, const Value& operand) {
  if (operand.type() != value_type(key.type)) {
    throw Error::validation(fmt::format(
        "{}: {} for key attribute \"{}\" must be {}, got {}", owner, what,
        key.name, type_name(value_type(key.type)), type_name(operand.type())));
  }
}

void check_range_condition(const Subject& owner, const KeySchema& schema,
                           const RangeKeyCondition& condition) {
  if (!schema.range) {
    throw Error::validation(fmt::format(
        "{}: a range key condition needs a range key, and there is none", owner));
  }
  const KeyAttribute& range = *schema.range;
  check_key_operand(owner, range, "range key condition operand", condition.operand);
  if (condition.op == KeyOperator::BeginsWith && range.type != KeyType::S) {
    throw Error::validation(fmt::format(
        "{}: begins_with needs an S range key, and \"{}\" is N", owner,
        range.name));
  }
  if (condition.op != KeyOperator::Between) {
    if (condition.upper) {
      throw Error::validation(fmt::format(
          "{}: only BETWEEN takes an upper bound on \"{}\"", owner, range.name));
    }
    return;
  }
  if (!condition.upper) {
    throw Error::validation(fmt::format(
        "{}: BETWEEN on \"{}\" needs an upper bound", owner, range.name));
  }
  check_key_operand(owner, range, "BETWEEN upper bound", *condition.upper);
  if (key_order_bytes(*condition.upper) < key_order_bytes(condition.operand)) {
    throw Error::validation(fmt::format(
        "{}: BETWEEN on \"{}\" has its lower bound {} above its upper bound {}",
        owner, range.name, describe(condition.operand), describe(*condition.upper)));
  }
}

// SET and ADD on an attribute that keys an index must keep it a valid index
// key; DynamoDB rejects the request otherwise.
void check_index_key_write(const TableDescription& table, const std::string& attribute,
                           const Value& value, bool is_add) {
  for (const GlobalSecondaryIndex& index : table.global_secondary_indexes) {
    const Subject owner{&table, &index};
    for_each_key(owner, index.key_schema, [&](const KeyRole& role, const KeyAttribute& key) {
      if (key.name != attribute) return;
      if (is_add && key.type != KeyType::N) {
        throw Error::validation(fmt::format(
            "{}: ADD cannot change {} attribute \"{}\" of type S", role.owner,
            role.part, key.name));
      }
      check_key_value(role, key, value);
    });
  }
}

void check_update_action(const TableDescription& table, const std::string& attribute,
                         const Value* value, bool is_add,
                         std::set<std::string_view>& seen) {
  const Subject owner{&table, nullptr, "update on"};
  check_attribute_name(owner, attribute);
  bool is_key = attribute == table.key_schema.hash.name ||
                (table.key_schema.range && attribute == table.key_schema.range->name);
  if (is_key) {
    throw Error::validation(fmt::format(
        "{}: key attribute \"{}\" cannot be updated", owner, attribute));
  }
  if (!seen.insert(attribute).second) {
    throw Error::validation(fmt::format(
        "{}: attribute \"{}\" appears in more than one action", owner, attribute));
  }
  if (value == nullptr) return;
  check_value(owner.about(attribute), *value);
  if (is_add) {
    Type t = value->type();
    if (t != Type::N && t != Type::SS && t != Type::NS && t != Type::BS) {
      throw Error::validation(fmt::format(
          "{}: ADD on \"{}\" needs an N, SS, NS or BS operand, got {}", owner,
          attribute, type_name(t)));
    }
  }
  check_index_key_write(table, attribute, *value, is_add);
}

const char* action_name(const TransactAction& action) {
  static_assert(std::variant_size_v<TransactAction> == 4);
  switch (action.index()) {
    case 0: return "Put";
    case 1: return "Update";
    case 2: return "Delete";
    default: return "ConditionCheck";
  }
}

}  // namespace

void validate_key(const TableDescription& table, const Item& key) {
  const Subject owner{&table};
  for_each_key(owner, table.key_schema, [&](const KeyRole& role, const KeyAttribute& k) {
    auto it = key.find(k.name);
    if (it == key.end()) {
      throw Error::validation(fmt::format("{}: {} attribute \"{}\" is missing",
                                          owner, role.part, k.name));
    }
    check_key_value(role, k, it->second);
  });
  std::size_t key_size = table.key_schema.range ? 2 : 1;
  if (key.size() == key_size) return;
  for (const auto& [name, value] : key) {
    bool is_key = name == table.key_schema.hash.name ||
                  (table.key_schema.range && name == table.key_schema.range->name);
    if (!is_key) {
      throw Error::validation(fmt::format(
          "{}: the key holds attribute \"{}\", which is not a key attribute",
          owner, name));
    }
  }
}

void validate_item(const TableDescription& table, const Item& item) {
  const Subject owner{&table};
  for_each_key(owner, table.key_schema, [&](const KeyRole& role, const KeyAttribute& k) {
    auto it = item.find(k.name);
    if (it == item.end()) {
      throw Error::validation(fmt::format("{}: item lacks {} attribute \"{}\"",
                                          owner, role.part, k.name));
    }
    check_key_value(role, k, it->second);
  });
  for (const GlobalSecondaryIndex& index : table.global_secondary_indexes) {
    for_each_key(Subject{&table, &index}, index.key_schema,
                 [&](const KeyRole& role, const KeyAttribute& k) {
                   auto it = item.find(k.name);
                   if (it != item.end()) check_key_value(role, k, it->second);
                 });
  }
  for (const auto& [name, value] : item) {
    check_attribute_name(owner, name);
    check_value(owner.about(name), value);
  }
  std::size_t size = item_size(item);
  if (size > limits::kMaxItemBytes) {
    throw Error(ErrorCode::ItemTooLarge,
                fmt::format("{}: item is {} bytes, over the limit of {} bytes",
                            owner, size, limits::kMaxItemBytes));
  }
}

void validate(const TableDescription& table, const GetRequest& request) {
  validate_key(table, request.key);
}

void validate(const TableDescription& table, const PutRequest& request) {
  validate_item(table, request.item);
  check_condition(table, request.condition);
  check_return_values("put", table, request.return_values);
}

void validate(const TableDescription& table, const DeleteRequest& request) {
  validate_key(table, request.key);
  check_condition(table, request.condition);
  check_return_values("delete", table, request.return_values);
}

void validate(const TableDescription& table, const UpdateRequest& request) {
  validate_key(table, request.key);
  if (request.update.empty()) {
    throw Error::validation(fmt::format(
        "update on table \"{}\": the update has no actions", table.name));
  }
  std::set<std::string_view> seen;
  for (const UpdateAction& action : request.update.actions()) {
    if (const auto* set = std::get_if<update_action::Set>(&action)) {
      check_update_action(table, set->attribute, &set->value, false, seen);
    } else if (const auto* add = std::get_if<update_action::Add>(&action)) {
      check_update_action(table, add->attribute, &add->value, true, seen);
    } else {
      const auto& remove = std::get<update_action::Remove>(action);
      check_update_action(table, remove.attribute, nullptr, false, seen);
    }
  }
  check_condition(table, request.condition);
}

void validate(const TableDescription& table, const QueryRequest& request) {
  const GlobalSecondaryIndex* index = nullptr;
  Subject owner{&table};
  if (!request.index_name.empty()) {
    index = table.find_index(request.index_name);
    if (index == nullptr) {
      throw Error::validation(fmt::format("{} has no index \"{}\"", owner,
                                          request.index_name));
    }
    owner.index = index;
    if (request.consistent_read) {
      throw Error::validation(fmt::format(
          "{}: consistent reads are not supported on a global secondary index",
          owner));
    }
  }
  const KeySchema& schema = index ? index->key_schema : table.key_schema;
  check_key_value(KeyRole{owner, "hash key", limits::kMaxHashKeyBytes}, schema.hash,
                  request.hash_value);
  if (request.range_condition) {
    check_range_condition(owner, schema, *request.range_condition);
  }
  check_limit(table, request.limit);
  if (request.exclusive_start_key) {
    check_start_key(table, index, *request.exclusive_start_key);
  }
}

void validate(const TableDescription& table, const ScanRequest& request) {
  check_limit(table, request.limit);
  if (request.exclusive_start_key) {
    check_start_key(table, nullptr, *request.exclusive_start_key);
  }
}

void validate(
    const TransactWriteRequest& request,
    const std::function<const TableDescription&(std::string_view)>& table_of) {
  const std::size_t count = request.actions.size();
  if (count == 0) {
    throw Error::validation("a transaction needs at least one action");
  }
  if (count > limits::kMaxTransactionActions) {
    throw Error(ErrorCode::TransactionTooLarge,
                fmt::format("the transaction has {} actions, over the limit of {}",
                            count, limits::kMaxTransactionActions));
  }
  // (table, key order bytes of the hash and range key) → action number, to
  // find a second action on an item.
  std::map<std::tuple<std::string_view, std::string, std::string>, std::size_t> items;
  for (std::size_t i = 0; i < count; ++i) {
    const TransactAction& action = request.actions[i];
    std::visit(
        [&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          const Item* keyed;
          if constexpr (std::is_same_v<A, PutRequest>) {
            keyed = &a.item;
          } else {
            keyed = &a.key;
          }
          const TableDescription* found = nullptr;
          try {
            found = &table_of(a.table);
            const TableDescription& table = *found;
            if constexpr (std::is_same_v<A, ConditionCheck>) {
              validate_key(table, a.key);
              check_condition(Subject{&table}, a.condition);
            } else {
              validate(table, a);
              if (a.return_values != ReturnValues::None) {
                throw Error::validation(fmt::format(
                    "table \"{}\": ReturnValues must be None in a transaction",
                    table.name));
              }
            }
          } catch (const Error& e) {
            throw Error(e.code(), fmt::format("transaction action {} ({}): {}", i + 1,
                                              action_name(action), e.message()));
          }
          const TableDescription& table = *found;
          const KeySchema& schema = table.key_schema;
          auto [it, inserted] = items.try_emplace(
              {a.table, key_order_bytes(keyed->find(schema.hash.name)->second),
               schema.range ? key_order_bytes(keyed->find(schema.range->name)->second)
                            : std::string()},
              i + 1);
          if (!inserted) {
            throw Error::validation(fmt::format(
                "transaction actions {} and {} both act on item {} of table \"{}\"; a "
                "transaction may act on an item only once",
                it->second, i + 1, describe(key_of(table, *keyed)), a.table));
          }
        },
        action);
  }
}

Item key_of(const TableDescription& table, const Item& item) {
  Item key;
  for_each_key(Subject{&table}, table.key_schema,
               [&](const KeyRole& role, const KeyAttribute& k) {
                 auto it = item.find(k.name);
                 if (it == item.end()) {
                   throw Error::validation(fmt::format(
                       "{}: item lacks {} attribute \"{}\"", role.owner,
                       role.part, k.name));
                 }
                 key.emplace(k.name, it->second);
               });
  return key;
}

}  // namespace stowage::table
