// What the readers of the TOML configuration's sections share to say where a
// setting is and what is wrong with it. Pure functions; thread-safe.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

namespace stowage::schema {

// " (line N)" for a node read from a document, "" for one built in code.
std::string at_line(const toml::node& node);

// The node's TOML type as a message names it ("string", "integer", "table", …).
std::string toml_type(const toml::node& node);

// Each key of `table` not among `known`, as `"key" (line N)`, in the table's
// order; empty when every key is known.
std::vector<std::string> unknown_settings(const toml::table& table,
                                          const std::vector<std::string_view>& known);

// "a, b, c".
std::string comma_separated(const std::vector<std::string_view>& names);
std::string comma_separated(const std::vector<std::string>& names);

}  // namespace stowage::schema
