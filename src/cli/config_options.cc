#include "cli/config_options.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "common/digest.h"

namespace stowage::cli {
namespace {

constexpr char kConfigFile[] = "stowage.toml";

// Used when there is no stowage.toml: everything in the working directory.
// [engine] is left to its defaults so that STOWAGE_DB and the other
// variables still apply.
constexpr char kDefaultConfig[] = R"(
[table]
manage_table = true

[services.local]
service = "Disk"
root = "storage"
)";

// The embedded default's secret: STOWAGE_SECRET when set, else a new one for
// this run. The commands sign no ids, so a secret that lasts one run is
// enough for them to open.
std::string default_config_text() {
  const char* secret = std::getenv("STOWAGE_SECRET");
  if (secret != nullptr && *secret != '\0') return kDefaultConfig;
  return "secret = \"" + to_hex(random_bytes(32)) + "\"\n" + kDefaultConfig;
}

void override_if_given(const std::string& flag, std::string& setting) {
  if (!flag.empty()) setting = flag;
}

}  // namespace

void add_config_options(CLI::App& app, ConfigOptions& options) {
  app.add_option("--config", options.config_path,
                 "TOML configuration file (default: ./stowage.toml when present, else "
                 "an SQLite file and a disk service in the working directory)")
      ->check(CLI::ExistingFile);
  app.add_option("--engine", options.engine,
                 "Table engine: memory, sqlite or dynamodb (overrides [engine] engine)");
  app.add_option("--db", options.db,
                 "SQLite database file for the sqlite engine (overrides [engine] path)");
  app.add_option("--table", options.table, "Table name (overrides [table] table)");
  app.add_option("--endpoint", options.endpoint,
                 "DynamoDB endpoint URL (overrides [engine] endpoint)");
  app.add_option("--region", options.region, "AWS region (overrides [engine] region)");
}

Config read_config(const ConfigOptions& options) {
  Config config;
  if (!options.config_path.empty()) {
    config = load_config(options.config_path);
  } else if (std::filesystem::exists(kConfigFile)) {
    config = load_config(kConfigFile);
  } else {
    config = parse_config(default_config_text(), "the default configuration");
  }
  override_if_given(options.engine, config.engine.engine);
  override_if_given(options.db, config.engine.sqlite_path);
  override_if_given(options.endpoint, config.engine.dynamodb_endpoint);
  override_if_given(options.region, config.engine.region);
  override_if_given(options.table, config.table.table);
  return config;
}

Stowage open_stowage(const ConfigOptions& options) { return Stowage(read_config(options)); }

void run_due_jobs(Stowage& stowage) {
  if (!stowage.drain_jobs(std::chrono::minutes(1))) {
    std::cerr << "stowage: some jobs are still due after a minute; the next command or a "
                 "worker runs them\n";
  }
}

std::string engine_label(const table::EngineConfig& config) {
  if (config.engine == "sqlite") return "sqlite (" + config.sqlite_path + ")";
  return config.engine;
}

}  // namespace stowage::cli
