#include "cli/table_roundtrip.h"

#include <string>
#include <vector>

#include "cli/table_format.h"
#include "stowage/error.h"

namespace stowage::cli {
namespace {

using table::Item;
using table::KeyLayout;
using table::Value;

constexpr int kItemCount = 5;
constexpr int kUpdatedItem = 3;
const std::string kPartition = "Stowage#Roundtrip";

struct OpenedTable {
  table::TableDescription description;
  KeyLayout layout;
  bool created;
};

OpenedTable open_or_create(table::Engine& engine, const std::string& table_name,
                           KeyLayout layout_if_created) {
  try {
    auto description = engine.describe(table_name);
    auto layout = matching_default_layout(description);
    if (!layout) {
      throw Error::configuration(
          "table \"" + table_name + "\" has " + format_key_schema(description.key_schema) +
          "; roundtrip needs a Stowage default layout (Mode A: hash pk (S), range sk (S); "
          "Mode B: hash pk (S), range sk (N) with index stowage_index)");
    }
    return {description, *layout, false};
  } catch (const Error& error) {
    if (error.code() != ErrorCode::ResourceNotFound) throw;
  }
  auto description = table::default_table_description(table_name, layout_if_created);
  engine.create_table(description);
  return {description, layout_if_created, true};
}

std::string item_sort_key(int number) {
  return "Stowage#Item#" + std::to_string(number);
}

// Mode A sorts by the string key itself; Mode B by the number, with the
// string key carried in the index.
Item item_key(KeyLayout layout, int number) {
  Item key{{std::string(table::kDefaultHashAttribute), Value::string(kPartition)}};
  key[std::string(table::kDefaultRangeAttribute)] =
      layout == KeyLayout::ModeA ? Value::string(item_sort_key(number))
                                 : Value::number(std::int64_t{number});
  return key;
}

Item make_item(KeyLayout layout, int number) {
  Item item = item_key(layout, number);
  item["as_name"] = Value::string("item " + std::to_string(number));
  item["as_byte_size"] = Value::number(std::int64_t{number} * 1024);
  item["as_version"] = Value::number(std::int64_t{1});
  if (layout == KeyLayout::ModeB) {
    item[std::string(table::kDefaultIndexHashAttribute)] = Value::string(kPartition);
    item[std::string(table::kDefaultIndexRangeAttribute)] =
        Value::string(item_sort_key(number));
  }
  return item;
}

// Version 1 → 2, only while the item is still at version 1.
table::UpdateRequest version_bump(const std::string& table_name, KeyLayout layout) {
  table::UpdateRequest request;
  request.table = table_name;
  request.key = item_key(layout, kUpdatedItem);
  request.update.set("as_version", Value::number(std::int64_t{2}));
  request.condition = table::cond::eq("as_version", Value::number(std::int64_t{1}));
  request.return_values = table::ReturnValues::AllNew;
  return request;
}

std::vector<Item> query_all_pages(table::Engine& engine, table::QueryRequest request) {
  std::vector<Item> items;
  while (true) {
    auto page = engine.query(request);
    items.insert(items.end(), page.items.begin(), page.items.end());
    if (!page.last_evaluated_key) return items;
    request.exclusive_start_key = std::move(page.last_evaluated_key);
  }
}

void print_items(const std::string& heading, const std::vector<Item>& items,
                 std::ostream& out) {
  out << heading << ": " << items.size() << " items\n";
  for (const auto& item : items) out << "  " << table::describe(item) << "\n";
}

}  // namespace

void run_table_roundtrip(table::Engine& engine, const std::string& table_name,
                         KeyLayout layout_if_created, const std::string& engine_label,
                         std::ostream& out) {
  auto opened = open_or_create(engine, table_name, layout_if_created);
  out << "table \"" << table_name << "\" on " << engine_label << ": "
      << (opened.created ? "created, " : "exists, ") << format_layout(opened.layout)
      << ", " << format_key_schema(opened.description.key_schema) << "\n";

  for (int number = 1; number <= kItemCount; ++number) {
    engine.put({.table = table_name, .item = make_item(opened.layout, number)});
  }
  out << "put " << kItemCount << " items in partition \"" << kPartition << "\"\n";

  auto updated = engine.update(version_bump(table_name, opened.layout));
  out << "update item " << kUpdatedItem << " if as_version = 1: now "
      << table::describe(updated.value_or(Item{})) << "\n";
  bool rejected = false;
  try {
    engine.update(version_bump(table_name, opened.layout));
  } catch (const Error& error) {
    if (error.code() != ErrorCode::ConditionalCheckFailed) throw;
    rejected = true;
  }
  if (!rejected) {
    throw Error(ErrorCode::IntegrityError,
                "the engine applied an update whose condition as_version = 1 was false");
  }
  out << "update item " << kUpdatedItem
      << " if as_version = 1 again: rejected (ConditionalCheckFailed), as it should be\n";

  print_items("query partition \"" + kPartition + "\"",
              query_all_pages(engine, {.table = table_name,
                                       .hash_value = Value::string(kPartition),
                                       .consistent_read = true}),
              out);
  if (opened.layout == KeyLayout::ModeB) {
    print_items("query index " + std::string(table::kDefaultIndexName) + " for \"" +
                    kPartition + "\"",
                query_all_pages(engine, {.table = table_name,
                                         .index_name = std::string(table::kDefaultIndexName),
                                         .hash_value = Value::string(kPartition)}),
                out);
  }

  table::TransactWriteRequest removal;
  for (int number = 1; number <= kItemCount; ++number) {
    removal.actions.push_back(
        table::DeleteRequest{.table = table_name, .key = item_key(opened.layout, number)});
  }
  engine.transact_write(removal);
  out << "removed the " << kItemCount << " items in one transaction\n";
}

}  // namespace stowage::cli
