#include "schema/toml_settings.h"

#include <algorithm>
#include <sstream>

namespace stowage::schema {
namespace {

template <typename Names>
std::string joined(const Names& names) {
  std::string list;
  for (const auto& name : names) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

}  // namespace

std::string at_line(const toml::node& node) {
  const toml::source_position& begin = node.source().begin;
  if (begin.line == 0) return "";
  return " (line " + std::to_string(begin.line) + ")";
}

std::string toml_type(const toml::node& node) {
  std::ostringstream out;
  out << node.type();
  return out.str();
}

std::vector<std::string> unknown_settings(const toml::table& table,
                                          const std::vector<std::string_view>& known) {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : table) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    unknown.push_back("\"" + std::string(key.str()) + "\"" + at_line(value));
  }
  return unknown;
}

std::string comma_separated(const std::vector<std::string_view>& names) {
  return joined(names);
}

std::string comma_separated(const std::vector<std::string>& names) { return joined(names); }

}  // namespace stowage::schema
