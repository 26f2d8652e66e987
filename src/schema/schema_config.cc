#include "schema/schema_config.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string_view>
#include <vector>

#include "schema/toml_settings.h"
#include "stowage/error.h"

namespace stowage::schema {
namespace {

std::string string_setting(std::string_view name, const toml::node& node) {
  const toml::value<std::string>* value = node.as_string();
  if (value == nullptr) {
    throw Error::configuration("[table] " + std::string(name) +
                               " must be a string, found " + toml_type(node) +
                               at_line(node));
  }
  const std::string& text = value->get();
  if (std::all_of(text.begin(), text.end(),
                  [](unsigned char c) { return std::isspace(c) != 0; })) {
    throw Error::configuration("[table] " + std::string(name) + " is blank" +
                               at_line(node) +
                               "; give it a value or remove the line to use the default");
  }
  return text;
}

table::KeyLayout mode_setting(const toml::node& node) {
  const std::string mode = string_setting("mode", node);
  if (mode == "A") return table::KeyLayout::ModeA;
  if (mode == "B") return table::KeyLayout::ModeB;
  throw Error::configuration(
      "[table] mode is \"" + mode + "\"" + at_line(node) +
      "; use \"A\" (string sort key) or \"B\" (numeric sort key with a "
      "global secondary index)");
}

bool bool_setting(std::string_view name, const toml::node& node) {
  const toml::value<bool>* value = node.as_boolean();
  if (value == nullptr) {
    throw Error::configuration("[table] " + std::string(name) +
                               " must be true or false, found " + toml_type(node) +
                               at_line(node));
  }
  return value->get();
}

using Reader = std::function<void(SchemaConfig&, const toml::node&)>;

// Every setting of [table], in the order the error message lists them.
const std::vector<std::pair<std::string_view, Reader>>& readers() {
  static const std::vector<std::pair<std::string_view, Reader>> all = {
      {"table", [](SchemaConfig& c, const toml::node& n) { c.table = string_setting("table", n); }},
      {"namespace", [](SchemaConfig& c, const toml::node& n) { c.key_namespace = string_setting("namespace", n); }},
      {"separator", [](SchemaConfig& c, const toml::node& n) { c.separator = string_setting("separator", n); }},
      {"partition_key", [](SchemaConfig& c, const toml::node& n) { c.partition_key = string_setting("partition_key", n); }},
      {"sort_key", [](SchemaConfig& c, const toml::node& n) { c.sort_key = string_setting("sort_key", n); }},
      {"index_name", [](SchemaConfig& c, const toml::node& n) { c.index_name = string_setting("index_name", n); }},
      {"index_partition_key", [](SchemaConfig& c, const toml::node& n) { c.index_partition_key = string_setting("index_partition_key", n); }},
      {"index_sort_key", [](SchemaConfig& c, const toml::node& n) { c.index_sort_key = string_setting("index_sort_key", n); }},
      {"mode", [](SchemaConfig& c, const toml::node& n) { c.mode = mode_setting(n); }},
      {"manage_table", [](SchemaConfig& c, const toml::node& n) { c.manage_table = bool_setting("manage_table", n); }},
  };
  return all;
}

const Reader* find_reader(std::string_view name) {
  for (const auto& [setting, reader] : readers()) {
    if (setting == name) return &reader;
  }
  return nullptr;
}

const std::vector<std::string_view>& setting_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all;
    for (const auto& [setting, reader] : readers()) all.push_back(setting);
    return all;
  }();
  return names;
}

}  // namespace

SchemaConfig read_schema_config(const toml::table& config) {
  SchemaConfig settings;
  const toml::node* node = config.get("table");
  if (node == nullptr) return settings;
  const toml::table* section = node->as_table();
  if (section == nullptr) {
    throw Error::configuration("table must be a [table] section, found " +
                               toml_type(*node) + at_line(*node));
  }

  // Unknown names are gathered first so that one message names them all.
  const std::vector<std::string> unknown = unknown_settings(*section, setting_names());
  if (!unknown.empty()) {
    throw Error::configuration("unknown [table] setting" +
                               std::string(unknown.size() > 1 ? "s " : " ") +
                               comma_separated(unknown) + "; the [table] settings are " +
                               comma_separated(setting_names()));
  }

  for (const auto& [key, value] : *section) {
    (*find_reader(key.str()))(settings, value);
  }
  return settings;
}

}  // namespace stowage::schema
