#include "stowage/config.h"

#include <toml++/toml.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "stowage/error.h"

namespace stowage {
namespace {

using Names = std::set<std::string, std::less<>>;

// Each top-level setting and table has one reader; anything else is a typo.
const Names kTopLevelKeys = {"secret",  "default_service", "strict_definitions", "engine",
                             "table",   "services",        "attachments",        "jobs"};
const Names kEngineKeys = {"engine", "path", "synchronous", "endpoint", "region"};
const Names kJobsKeys = {"workers"};

std::string listed(const Names& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

class Reader {
 public:
  Reader(const toml::table& document, std::string_view origin)
      : document_(document), origin_(origin) {}

  [[noreturn]] void fail(const std::string& what, const toml::node* node = nullptr) const {
    std::string where(origin_);
    if (node != nullptr && node->source().begin.line != 0) {
      where += " line " + std::to_string(node->source().begin.line);
    }
    throw Error::configuration(where + ": " + what);
  }

  void reject_unknown(const toml::table& table, std::string_view prefix,
                      const Names& known) const {
    for (const auto& [key, node] : table) {
      if (!known.contains(key.str())) {
        fail("unknown setting " + std::string(prefix) + std::string(key.str()) +
                 "; known: " + listed(known),
             &node);
      }
    }
  }

  // The table at `key` of the document, nullptr when absent.
  const toml::table* section(std::string_view key) const {
    const toml::node* node = document_.get(key);
    if (node == nullptr) return nullptr;
    if (!node->is_table()) fail("[" + std::string(key) + "] must be a table", node);
    return node->as_table();
  }

  // Overwrites `setting` when `table` has `key`, which must be a string.
  void read_string(const toml::table& table, std::string_view prefix, std::string_view key,
                   std::string& setting) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return;
    if (!node->is_string()) {
      fail(std::string(prefix) + std::string(key) + " must be a string", node);
    }
    setting = node->as_string()->get();
  }

  void read_engine(table::EngineConfig& config) const {
    const toml::table* engine = section("engine");
    if (engine == nullptr) return;
    reject_unknown(*engine, "engine.", kEngineKeys);
    read_string(*engine, "engine.", "engine", config.engine);
    read_string(*engine, "engine.", "path", config.sqlite_path);
    read_string(*engine, "engine.", "synchronous", config.sqlite_synchronous);
    read_string(*engine, "engine.", "endpoint", config.dynamodb_endpoint);
    read_string(*engine, "engine.", "region", config.region);
  }

  std::size_t read_workers() const {
    const toml::table* jobs = section("jobs");
    if (jobs == nullptr) return 0;
    reject_unknown(*jobs, "jobs.", kJobsKeys);
    const toml::node* node = jobs->get("workers");
    if (node == nullptr) return 0;
    const std::optional<std::int64_t> workers = node->value_exact<std::int64_t>();
    if (!workers || *workers < 0) fail("jobs.workers must be a whole number, 0 or more", node);
    return static_cast<std::size_t>(*workers);
  }

  std::vector<std::string> read_service_names() const {
    const toml::table* services = section("services");
    if (services == nullptr || services->empty()) {
      fail("no byte service is configured; add one, e.g. [services.local] with "
           "service = \"Disk\" and root = \"storage\"");
    }
    std::vector<std::string> names;
    for (const auto& [name, node] : *services) {
      if (!node.is_table()) fail("services." + std::string(name.str()) + " must be a table", &node);
      names.emplace_back(name.str());
    }
    return names;
  }

  // default_service, which may be left out when only one service exists.
  std::string read_default_service(const std::vector<std::string>& service_names) const {
    std::string name;
    read_string(document_, "", "default_service", name);
    if (name.empty()) {
      if (service_names.size() == 1) return service_names.front();
      fail("default_service = \"NAME\" is needed to choose among the " +
           std::to_string(service_names.size()) + " services");
    }
    for (const std::string& service_name : service_names) {
      if (service_name == name) return name;
    }
    fail("default_service = \"" + name + "\" names no [services." + name + "] table",
         document_.get("default_service"));
  }

 private:
  const toml::table& document_;
  const std::string_view origin_;
};

std::string environment(const char* variable) {
  const char* value = std::getenv(variable);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

Config parse_config(std::string_view toml_text, std::string_view origin) {
  toml::table document;
  try {
    document = toml::parse(toml_text);
  } catch (const toml::parse_error& error) {
    std::ostringstream message;
    message << origin << " line " << error.source().begin.line << ": not valid TOML: "
            << error.description();
    throw Error::configuration(message.str());
  }
  const Reader reader(document, origin);
  reader.reject_unknown(document, "", kTopLevelKeys);

  Config config;
  config.text = std::string(toml_text);
  config.engine = table::engine_config_from_environment();
  reader.read_engine(config.engine);
  config.table = schema::read_schema_config(document);
  if (!document["table"]["table"] && !environment("STOWAGE_TABLE").empty()) {
    config.table.table = environment("STOWAGE_TABLE");
  }
  config.service_names = reader.read_service_names();
  config.default_service = reader.read_default_service(config.service_names);
  config.definitions = model::Definitions::from_config(document);
  config.secret = environment("STOWAGE_SECRET");
  reader.read_string(document, "", "secret", config.secret);
  config.workers = reader.read_workers();
  return config;
}

Config load_config(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error::configuration("cannot read the configuration file " + path.string());
  }
  std::ostringstream text;
  text << file.rdbuf();
  return parse_config(text.str(), path.string());
}

}  // namespace stowage
