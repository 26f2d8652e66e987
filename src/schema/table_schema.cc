#include "schema/table_schema.h"

#include <utility>

#include "stowage/error.h"

namespace stowage::schema {
namespace {

using table::KeyAttribute;
using table::KeyLayout;
using table::KeyType;
using table::TableDescription;

constexpr std::string_view kOwnPrefix = "as_";

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string_view type_letter(KeyType type) { return type == KeyType::S ? "S" : "N"; }

std::string mode_name(KeyLayout mode) { return mode == KeyLayout::ModeA ? "A" : "B"; }

std::string describe_key(const KeyAttribute& key) {
  return quoted(key.name) + " (" + std::string(type_letter(key.type)) + ")";
}

// The table manage_table creates: the defaults, renamed by the overrides.
TableDescription desired_description(const SchemaConfig& config) {
  TableDescription description =
      table::default_table_description(config.table, config.mode.value_or(KeyLayout::ModeA));
  if (config.partition_key) description.key_schema.hash.name = *config.partition_key;
  if (config.sort_key) description.key_schema.range->name = *config.sort_key;
  for (table::GlobalSecondaryIndex& index : description.global_secondary_indexes) {
    index.name = config.index_name;
    if (config.index_partition_key) index.key_schema.hash.name = *config.index_partition_key;
    if (config.index_sort_key) index.key_schema.range->name = *config.index_sort_key;
  }
  return description;
}

std::string describe_table(const TableDescription& description) {
  std::string text = "partition key " + describe_key(description.key_schema.hash) +
                     ", sort key " + describe_key(*description.key_schema.range);
  for (const table::GlobalSecondaryIndex& index : description.global_secondary_indexes) {
    text += ", global secondary index " + quoted(index.name) + " on " +
            describe_key(index.key_schema.hash) + " / " +
            describe_key(*index.key_schema.range) + " with projection ALL";
  }
  return text;
}

// The GSI Mode B needs, as a person reads it and as the AWS CLI adds it.
std::string index_spec(const SchemaConfig& config) {
  const std::string name = config.index_name;
  const std::string hash =
      config.index_partition_key.value_or(std::string(table::kDefaultIndexHashAttribute));
  const std::string range =
      config.index_sort_key.value_or(std::string(table::kDefaultIndexRangeAttribute));
  return "global secondary index " + quoted(name) + " with partition key " +
         quoted(hash) + " (S), sort key " + quoted(range) +
         " (S) and projection ALL, e.g. aws dynamodb update-table --table-name " +
         config.table + " --attribute-definitions AttributeName=" + hash +
         ",AttributeType=S AttributeName=" + range +
         ",AttributeType=S --global-secondary-index-updates "
         "'[{\"Create\":{\"IndexName\":\"" + name +
         "\",\"KeySchema\":[{\"AttributeName\":\"" + hash +
         "\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"" + range +
         "\",\"KeyType\":\"RANGE\"}],\"Projection\":{\"ProjectionType\":\"ALL\"}}}]'";
}

void check_not_ours(const std::string& table, std::string_view role,
                    std::string_view name) {
  if (!name.starts_with(kOwnPrefix)) return;
  throw Error::configuration(
      "table " + quoted(table) + " has " + std::string(role) + " " + quoted(name) +
      ", which starts with \"as_\", the prefix of Stowage's own attributes; use a "
      "table whose key attributes are named otherwise (Stowage creates pk / sk)");
}

void check_override(const std::string& table, std::string_view setting,
                    const std::optional<std::string>& configured,
                    std::string_view actual) {
  if (!configured || *configured == actual) return;
  throw Error::configuration("[table] " + std::string(setting) + " is " +
                             quoted(*configured) + " but table " + quoted(table) +
                             " calls that key " + quoted(actual) + "; set " +
                             std::string(setting) + " = " + quoted(actual) +
                             " or remove the setting");
}

void check_partition_key(const std::string& table, const KeyAttribute& key) {
  if (key.type == KeyType::S) return;
  throw Error::configuration(
      "table " + quoted(table) + " has a numeric partition key " + describe_key(key) +
      "; Stowage stores string keys there, so use a table whose partition key "
      "is of type S");
}

}  // namespace

TableSchema TableSchema::open(table::Engine& engine, const SchemaConfig& config) {
  if (config.table.empty()) {
    throw Error::configuration("[table] table is empty; name the table Stowage uses");
  }
  if (config.index_name.empty()) {
    throw Error::configuration(
        "[table] index_name is empty; name Mode B's global secondary index");
  }
  KeyScheme keys(config.key_namespace, config.separator);

  TableDescription description;
  try {
    description = engine.describe(config.table);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::ResourceNotFound) throw;
    const TableDescription desired = desired_description(config);
    if (!config.manage_table) {
      throw Error::configuration("table " + quoted(config.table) +
                                 " does not exist; create it with " +
                                 describe_table(desired) +
                                 ", or set [table] manage_table = true");
    }
    // Validated before it is created, so that a bad override cannot leave a
    // table behind that the next start rejects.
    [[maybe_unused]] const TableSchema desired_schema(desired, config, keys);
    try {
      engine.create_table(desired);
    } catch (const Error& race) {
      // Another process created it first; what it created is checked below.
      if (race.code() != ErrorCode::ResourceInUse) throw;
    }
    description = engine.describe(config.table);
  }
  return TableSchema(description, config, std::move(keys));
}

TableSchema::TableSchema(const TableDescription& description,
                         const SchemaConfig& config, KeyScheme keys)
    : table_(description.name), keys_(std::move(keys)) {
  const table::KeySchema& schema = description.key_schema;
  check_partition_key(table_, schema.hash);
  if (!schema.range) {
    throw Error::configuration(
        "table " + quoted(table_) + " has no sort key; Stowage needs one: a "
        "string (S) sort key (Mode A), or a numeric (N) sort key with a string-keyed "
        "global secondary index (Mode B)");
  }
  check_not_ours(table_, "partition key", schema.hash.name);
  check_not_ours(table_, "sort key", schema.range->name);
  check_override(table_, "partition_key", config.partition_key, schema.hash.name);
  check_override(table_, "sort_key", config.sort_key, schema.range->name);
  partition_key_ = schema.hash;
  sort_key_ = *schema.range;

  mode_ = sort_key_.type == KeyType::S ? KeyLayout::ModeA : KeyLayout::ModeB;
  if (config.mode && *config.mode != mode_) {
    throw Error::configuration(
        "[table] mode is \"" + mode_name(*config.mode) + "\" but table " +
        quoted(table_) + " has sort key " + describe_key(sort_key_) +
        ", which is Mode " + mode_name(mode_) + "; set mode = \"" + mode_name(mode_) +
        "\" or remove the setting");
  }
  if (mode_ == KeyLayout::ModeA) return;

  const table::GlobalSecondaryIndex* index = description.find_index(config.index_name);
  if (index == nullptr) {
    std::string message = "table " + quoted(table_) + " has a numeric sort key " +
                          describe_key(sort_key_) +
                          " (Mode B) but no global secondary index " +
                          quoted(config.index_name) + "; add a " + index_spec(config);
    if (config.manage_table) {
      message += " (manage_table creates the index only with a new table)";
    }
    throw Error::configuration(message);
  }
  const table::KeySchema& index_keys = index->key_schema;
  if (index_keys.hash.type != KeyType::S || !index_keys.range ||
      index_keys.range->type != KeyType::S) {
    std::string actual = "partition key " + describe_key(index_keys.hash) +
                         (index_keys.range ? ", sort key " + describe_key(*index_keys.range)
                                           : std::string(", no sort key"));
    throw Error::configuration("global secondary index " + quoted(index->name) +
                               " of table " + quoted(table_) + " has " + actual +
                               "; Mode B needs a " + index_spec(config));
  }
  check_override(table_, "index_partition_key", config.index_partition_key,
                 index_keys.hash.name);
  check_override(table_, "index_sort_key", config.index_sort_key,
                 index_keys.range->name);
  for (const std::string* name : {&index_keys.hash.name, &index_keys.range->name}) {
    if (*name == partition_key_.name || *name == sort_key_.name) {
      throw Error::configuration(
          "global secondary index " + quoted(index->name) + " of table " +
          quoted(table_) + " is keyed on " + quoted(*name) +
          ", a key attribute of the table itself; Mode B needs a " +
          index_spec(config));
    }
  }
  index_name_ = index->name;
  index_partition_key_ = index_keys.hash.name;
  index_sort_key_ = index_keys.range->name;
}

table::Item TableSchema::physical_key(const LogicalKey& key) const {
  if (mode_ == KeyLayout::ModeA) {
    return {{partition_key_.name, table::Value::string(key.h)},
            {sort_key_.name, table::Value::string(key.r)}};
  }
  return {{partition_key_.name, table::Value::string(keys_.item_id(key))},
          {sort_key_.name, table::Value::number(0)}};
}

void TableSchema::stamp(table::Item& item, const LogicalKey& key) const {
  for (auto& [name, value] : physical_key(key)) item[name] = std::move(value);
  if (mode_ == KeyLayout::ModeB) {
    item[index_partition_key_] = table::Value::string(key.h);
    item[index_sort_key_] = table::Value::string(key.r);
  }
}

table::QueryRequest TableSchema::listing_query(std::string_view h,
                                               std::string_view r_prefix) const {
  table::QueryRequest request;
  request.table = table_;
  request.hash_value = table::Value::string(std::string(h));
  if (!r_prefix.empty()) {
    request.range_condition = table::RangeKeyCondition{
        table::KeyOperator::BeginsWith, table::Value::string(std::string(r_prefix))};
  }
  if (mode_ == KeyLayout::ModeA) {
    request.consistent_read = true;
  } else {
    request.index_name = index_name_;
    request.consistent_read = false;  // DynamoDB allows no other on a GSI
  }
  return request;
}

LogicalKey TableSchema::logical_key_of(const table::Item& item) const {
  const std::string& h_name =
      mode_ == KeyLayout::ModeA ? partition_key_.name : index_partition_key_;
  const std::string& r_name = mode_ == KeyLayout::ModeA ? sort_key_.name : index_sort_key_;
  auto h = item.find(h_name);
  auto r = item.find(r_name);
  if (h == item.end() || r == item.end()) {
    throw Error(ErrorCode::IntegrityError,
                "item " + table::describe(item) + " of table " + quoted(table_) +
                    " lacks its logical key attributes " + quoted(h_name) + " and " +
                    quoted(r_name));
  }
  return {h->second.as_string(), r->second.as_string()};
}

}  // namespace stowage::schema
