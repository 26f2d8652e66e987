// `stowage table roundtrip`: the end-to-end check of a table engine until
// the HTTP service exists. On the table (created with `layout_if_created`
// when missing) it puts a handful of items in one partition, conditionally
// updates one (and shows the same condition failing once it no longer
// holds), queries the partition — and in Mode B the index — and removes the
// items in one transaction, printing each step to `out`.
//
// Throws Error(ConfigurationError) when an existing table is not laid out
// as one of Stowage's defaults, and whatever the engine throws.
#pragma once

#include <ostream>
#include <string>

#include "table/default_table.h"
#include "table/engine.h"

namespace stowage::cli {

void run_table_roundtrip(table::Engine& engine, const std::string& table_name,
                         table::KeyLayout layout_if_created,
                         const std::string& engine_label, std::ostream& out);

}  // namespace stowage::cli
