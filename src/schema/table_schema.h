// TableSchema: how Stowage's logical keys map onto the physical attributes of
// the one table (DESIGN §3), discovered once from the live table.
//
// open() reads the table's key schema with Engine::describe and picks the
// layout from the sort key's type:
//   Mode A (sort key S)  physical partition/sort attributes <- H/R; listing
//                        queries the base table with consistent reads.
//   Mode B (sort key N)  physical partition/sort <- (item_id, 0); the GSI's
//                        string keys <- H/R; listing queries the GSI, which
//                        is eventually consistent. Point reads and every
//                        write stay on the base table.
// Anything else is a ConfigurationError whose message says what to change.
//
// Thread safety: read-only after open(); safe to share between threads.
#pragma once

#include <string>
#include <string_view>

#include "schema/key_scheme.h"
#include "schema/schema_config.h"
#include "table/default_table.h"
#include "table/engine.h"

namespace stowage::schema {

class TableSchema {
 public:
  // Validates the configuration, describes the table (creating it, with the
  // GSI in Mode B, when it does not exist and config.manage_table is set) and
  // validates its key schema. Throws Error(ConfigurationError) for a blank
  // namespace or separator, a missing table (without manage_table), a
  // numeric partition key, no sort key, a key attribute named with Stowage's
  // `as_` prefix, a key name or mode that disagrees with the configuration,
  // and in Mode B a missing GSI (the message holds its full spec) or one
  // whose keys are not both strings. Engine errors other than a missing
  // table pass through.
  static TableSchema open(table::Engine& engine, const SchemaConfig& config);

  const std::string& table_name() const { return table_; }
  table::KeyLayout mode() const { return mode_; }
  const KeyScheme& keys() const { return keys_; }
  // The table's physical key attributes, as discovered.
  const table::KeyAttribute& partition_key() const { return partition_key_; }
  const table::KeyAttribute& sort_key() const { return sort_key_; }
  // Mode B's GSI and its key attributes; empty in Mode A.
  const std::string& index_name() const { return index_name_; }
  const std::string& index_partition_key() const { return index_partition_key_; }
  const std::string& index_sort_key() const { return index_sort_key_; }

  // The base-table key of the item with this logical key, for get, delete,
  // update and condition checks.
  table::Item physical_key(const LogicalKey& key) const;
  // Writes the item's key attributes: Mode A H and R; Mode B item_id, 0 and
  // the GSI's H and R.
  void stamp(table::Item& item, const LogicalKey& key) const;
  // The items of partition `h` whose R begins with `r_prefix` (all of them
  // when it is empty), in R order; a first page that the caller pages on
  // with exclusive_start_key.
  table::QueryRequest listing_query(std::string_view h,
                                    std::string_view r_prefix) const;
  // The logical key of an item read back from the table. Throws
  // Error(IntegrityError) when the item lacks the attributes that hold it.
  LogicalKey logical_key_of(const table::Item& item) const;

 private:
  TableSchema(const table::TableDescription& description,
              const SchemaConfig& config, KeyScheme keys);

  std::string table_;
  table::KeyLayout mode_;
  KeyScheme keys_;
  table::KeyAttribute partition_key_;
  table::KeyAttribute sort_key_;
  std::string index_name_;
  std::string index_partition_key_;
  std::string index_sort_key_;
};

}  // namespace stowage::schema
