// Human-readable forms of table descriptions for the CLI's output.
#pragma once

#include <optional>
#include <string>

#include "table/default_table.h"
#include "table/table_description.h"

namespace stowage::cli {

// "hash pk (S), range sk (N)".
std::string format_key_schema(const table::KeySchema& key_schema);

// "Mode A" / "Mode B".
std::string format_layout(table::KeyLayout layout);

// The default layout `description` has exactly (whatever its name), or
// nullopt when the table was laid out some other way.
std::optional<table::KeyLayout> matching_default_layout(
    const table::TableDescription& description);

}  // namespace stowage::cli
