#include "model/definitions.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <utility>

#include "schema/toml_settings.h"
#include "stowage/error.h"

namespace stowage::model {
namespace {

using schema::at_line;
using schema::comma_separated;
using schema::toml_type;
using schema::unknown_settings;

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return std::isspace(c) != 0; });
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string trimmed(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])) != 0) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])) != 0) --end;
  return std::string(text.substr(begin, end - begin));
}

// Reads one [[attachments]] table; `index` (from 1) names it in messages
// until its record_type and name are known.
class DefinitionReader {
 public:
  DefinitionReader(const toml::table& table, std::size_t index)
      : table_(table), label_("[[attachments]] #" + std::to_string(index)) {}

  AttachmentDefinition read() {
    reject_unknown_settings();
    AttachmentDefinition definition;
    definition.record_type = required_string("record_type");
    definition.name = required_string("name");
    label_ = "[[attachments]] " + definition.record_type + "." + definition.name;
    if (const toml::node* node = table_.get("cardinality")) {
      definition.cardinality = cardinality(*node);
    }
    if (const toml::node* node = table_.get("dependent")) {
      definition.dependent = dependent(*node);
    }
    if (const toml::node* node = table_.get("track_storage")) {
      definition.track_storage = boolean("track_storage", *node);
    }
    if (const toml::node* node = table_.get("service")) {
      definition.service_name = string("service", *node);
    }
    if (const toml::node* node = table_.get("max_bytes")) {
      definition.max_bytes = max_bytes(*node);
    }
    if (const toml::node* node = table_.get("content_types")) {
      definition.content_types = content_types(*node);
    }
    if (const toml::node* node = table_.get("variants")) {
      definition.variants = variants(*node);
    }
    return definition;
  }

 private:
  static const std::vector<std::string_view>& known() {
    static const std::vector<std::string_view> names = {
        "record_type", "name",          "cardinality", "dependent", "track_storage",
        "service",     "max_bytes",     "content_types", "variants"};
    return names;
  }

  void reject_unknown_settings() const {
    const std::vector<std::string> unknown = unknown_settings(table_, known());
    if (unknown.empty()) return;
    throw Error::configuration("unknown setting " + comma_separated(unknown) + " in " +
                               label_ + "; an attachment definition takes " +
                               comma_separated(known()));
  }

  Error wrong(std::string_view setting, const toml::node& node, std::string_view wanted) const {
    return Error::configuration(label_ + " " + std::string(setting) + " must be " +
                                std::string(wanted) + ", found " + toml_type(node) + at_line(node));
  }

  std::string string(std::string_view setting, const toml::node& node) const {
    const toml::value<std::string>* value = node.as_string();
    if (value == nullptr) throw wrong(setting, node, "a string");
    if (blank(value->get())) {
      throw Error::configuration(label_ + " " + std::string(setting) + " is blank" + at_line(node));
    }
    return value->get();
  }

  std::string required_string(std::string_view setting) const {
    const toml::node* node = table_.get(setting);
    if (node == nullptr) {
      throw Error::configuration(label_ + at_line(table_) + " has no " + std::string(setting) +
                                 "; every attachment definition names its record_type and name");
    }
    return string(setting, *node);
  }

  bool boolean(std::string_view setting, const toml::node& node) const {
    const toml::value<bool>* value = node.as_boolean();
    if (value == nullptr) throw wrong(setting, node, "true or false");
    return value->get();
  }

  Cardinality cardinality(const toml::node& node) const {
    const std::string text = string("cardinality", node);
    if (text == "one") return Cardinality::One;
    if (text == "many") return Cardinality::Many;
    throw Error::configuration(label_ + " cardinality is \"" + text + "\"" + at_line(node) +
                               "; use \"one\" (has_one) or \"many\" (has_many)");
  }

  Dependent dependent(const toml::node& node) const {
    const std::string text = string("dependent", node);
    if (text == "purge") return Dependent::Purge;
    if (text == "purge_later") return Dependent::PurgeLater;
    if (text == "detach") return Dependent::Detach;
    throw Error::configuration(label_ + " dependent is \"" + text + "\"" + at_line(node) +
                               "; use \"purge\", \"purge_later\" or \"detach\"");
  }

  std::uint64_t max_bytes(const toml::node& node) const {
    const toml::value<std::int64_t>* value = node.as_integer();
    if (value == nullptr) throw wrong("max_bytes", node, "an integer");
    if (value->get() <= 0) {
      throw Error::configuration(label_ + " max_bytes is " + std::to_string(value->get()) +
                                 at_line(node) + "; it must be a positive number of bytes");
    }
    return static_cast<std::uint64_t>(value->get());
  }

  std::vector<std::string> content_types(const toml::node& node) const {
    const toml::array* array = node.as_array();
    if (array == nullptr) throw wrong("content_types", node, "an array of strings");
    std::vector<std::string> patterns;
    for (const toml::node& element : *array) {
      const std::string pattern = string("content_types", element);
      const std::size_t slash = pattern.find('/');
      const bool well_formed =
          slash != std::string::npos && slash > 0 && slash + 1 < pattern.size() &&
          pattern.find('/', slash + 1) == std::string::npos &&
          pattern.find_first_of(" \t;") == std::string::npos &&
          (pattern.substr(0, slash) != "*" || pattern.substr(slash + 1) == "*");
      if (!well_formed) {
        throw Error::configuration(label_ + " content type pattern \"" + pattern + "\"" +
                                   at_line(element) +
                                   " is not \"type/subtype\", \"type/*\" or \"*/*\"");
      }
      patterns.push_back(lowercase(pattern));
    }
    return patterns;
  }

  std::map<std::string, toml::table, std::less<>> variants(const toml::node& node) const {
    const toml::table* table = node.as_table();
    if (table == nullptr) throw wrong("variants", node, "a table of variant tables");
    std::map<std::string, toml::table, std::less<>> out;
    for (const auto& [key, value] : *table) {
      const toml::table* variant = value.as_table();
      if (variant == nullptr) {
        throw wrong("variants." + std::string(key.str()), value, "a table of transformations");
      }
      out.emplace(std::string(key.str()), *variant);
    }
    return out;
  }

  const toml::table& table_;
  std::string label_;
};

}  // namespace

std::string_view to_string(Cardinality cardinality) {
  return cardinality == Cardinality::One ? "one" : "many";
}

std::string_view to_string(Dependent dependent) {
  switch (dependent) {
    case Dependent::Purge: return "purge";
    case Dependent::PurgeLater: return "purge_later";
    case Dependent::Detach: return "detach";
  }
  return "unknown";
}

Definitions Definitions::from_config(const toml::table& config) {
  Definitions definitions;
  if (const toml::node* node = config.get("strict_definitions")) {
    const toml::value<bool>* value = node->as_boolean();
    if (value == nullptr) {
      throw Error::configuration("strict_definitions must be true or false, found " +
                                 toml_type(*node) + at_line(*node));
    }
    definitions.strict_ = value->get();
  }
  const toml::node* node = config.get("attachments");
  if (node == nullptr) return definitions;
  const toml::array* array = node->as_array();
  if (array == nullptr) {
    throw Error::configuration("attachments must be [[attachments]] tables, found " +
                               toml_type(*node) + at_line(*node));
  }
  std::size_t index = 0;
  for (const toml::node& element : *array) {
    ++index;
    const toml::table* table = element.as_table();
    if (table == nullptr) {
      throw Error::configuration("[[attachments]] #" + std::to_string(index) +
                                 " must be a table, found " + toml_type(element) +
                                 at_line(element));
    }
    AttachmentDefinition definition = DefinitionReader(*table, index).read();
    for (const AttachmentDefinition& earlier : definitions.definitions_) {
      if (earlier.record_type == definition.record_type && earlier.name == definition.name) {
        throw Error::configuration("[[attachments]] " + definition.record_type + "." +
                                   definition.name + " is defined twice" + at_line(element) +
                                   "; keep one definition per record type and name");
      }
    }
    definitions.definitions_.push_back(std::move(definition));
  }
  return definitions;
}

Definitions Definitions::parse(std::string_view toml_text) {
  try {
    return from_config(toml::parse(toml_text));
  } catch (const toml::parse_error& error) {
    const toml::source_position& begin = error.source().begin;
    throw Error::configuration("the configuration is not valid TOML: " +
                               std::string(error.description()) + " (line " +
                               std::to_string(begin.line) + ", column " +
                               std::to_string(begin.column) + ")");
  }
}

const AttachmentDefinition& Definitions::find(std::string_view record_type,
                                              std::string_view name) const {
  for (const AttachmentDefinition& definition : definitions_) {
    if (definition.record_type == record_type && definition.name == name) return definition;
  }
  if (strict_) {
    throw Error::validation("no attachment \"" + std::string(name) + "\" is defined on \"" +
                            std::string(record_type) +
                            "\" and strict_definitions is on; add an [[attachments]] table "
                            "with record_type = \"" + std::string(record_type) +
                            "\" and name = \"" + std::string(name) + "\"");
  }
  return default_;
}

bool content_type_matches(std::string_view pattern, std::string_view content_type) {
  const std::string type = lowercase(trimmed(content_type.substr(0, content_type.find(';'))));
  const std::string wanted = lowercase(pattern);
  if (wanted == "*/*") return true;
  if (wanted.size() >= 2 && wanted.compare(wanted.size() - 2, 2, "/*") == 0) {
    const std::string_view prefix(wanted.data(), wanted.size() - 1);  // "image/"
    return type.size() > prefix.size() && type.compare(0, prefix.size(), prefix) == 0;
  }
  return type == wanted;
}

void validate_blob(const AttachmentDefinition& definition, const Blob& blob) {
  const std::string label = definition.record_type.empty()
                                ? std::string("the attachment")
                                : definition.record_type + "." + definition.name;
  if (definition.max_bytes && blob.byte_size > *definition.max_bytes) {
    throw Error::validation("blob " + blob.id + " is " + std::to_string(blob.byte_size) +
                            " bytes; " + label + " allows at most " +
                            std::to_string(*definition.max_bytes) + " bytes (max_bytes)");
  }
  if (definition.content_types.empty()) return;
  for (const std::string& pattern : definition.content_types) {
    if (content_type_matches(pattern, blob.content_type)) return;
  }
  std::string allowed;
  for (const std::string& pattern : definition.content_types) {
    if (!allowed.empty()) allowed += ", ";
    allowed += pattern;
  }
  throw Error::validation("blob " + blob.id + " has content type \"" + blob.content_type +
                          "\"; " + label + " allows only " + allowed + " (content_types)");
}

}  // namespace stowage::model
