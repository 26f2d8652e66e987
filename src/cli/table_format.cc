#include "cli/table_format.h"

namespace stowage::cli {
namespace {

std::string format_key_attribute(const table::KeyAttribute& attribute) {
  return attribute.name + (attribute.type == table::KeyType::S ? " (S)" : " (N)");
}

}  // namespace

std::string format_key_schema(const table::KeySchema& key_schema) {
  std::string text = "hash " + format_key_attribute(key_schema.hash);
  if (key_schema.range) text += ", range " + format_key_attribute(*key_schema.range);
  return text;
}

std::string format_layout(table::KeyLayout layout) {
  return layout == table::KeyLayout::ModeA ? "Mode A" : "Mode B";
}

std::optional<table::KeyLayout> matching_default_layout(
    const table::TableDescription& description) {
  for (auto layout : {table::KeyLayout::ModeA, table::KeyLayout::ModeB}) {
    if (table::default_table_description(description.name, layout) == description) {
      return layout;
    }
  }
  return std::nullopt;
}

}  // namespace stowage::cli
