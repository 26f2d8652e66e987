// SchemaConfig: where Stowage's items live and how their keys are spelled —
// the `[table]` part of the TOML configuration.
//
//   [table]
//   table = "stowage"            # the one shared table
//   namespace = "Stowage"        # first part of every key
//   separator = "#"              # between key parts
//   partition_key = "pk"         # key attribute names: discovered from the
//   sort_key = "sk"              #   table when unset; when set, the table
//                                #   must agree (and a created table uses them)
//   index_name = "stowage_index" # Mode B's GSI
//   index_partition_key = "as_index_pk"  # its key names: discovered when
//   index_sort_key = "as_index_sk"       #   unset, checked when set
//   mode = "A"                   # "A" (string sort key) or "B" (numeric sort
//                                #   key + GSI): the layout of a created
//                                #   table; when set, the table must agree
//   manage_table = false         # create the table (with the GSI in Mode B)
//                                #   when it does not exist
//
// Plain value type; thread-compatible.
#pragma once

#include <optional>
#include <string>

#include <toml++/toml.h>

#include "table/default_table.h"

namespace stowage::schema {

struct SchemaConfig {
  std::string table = "stowage";
  std::string key_namespace = "Stowage";
  std::string separator = "#";
  std::optional<std::string> partition_key;
  std::optional<std::string> sort_key;
  std::string index_name = std::string(table::kDefaultIndexName);
  std::optional<std::string> index_partition_key;
  std::optional<std::string> index_sort_key;
  std::optional<table::KeyLayout> mode;
  bool manage_table = false;
};

// Reads the `[table]` table of a parsed configuration; a missing `[table]`
// or a missing setting keeps the default. Throws Error(ConfigurationError)
// naming every unknown setting (and listing the known ones), a setting of
// the wrong type, a blank string, or a mode other than "A" or "B", each with
// its line.
SchemaConfig read_schema_config(const toml::table& config);

}  // namespace stowage::schema
