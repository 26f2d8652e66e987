// The global options every command shares: which configuration to read
// (--config) and the flags that override its engine and table settings
// (--engine, --db, --table, --endpoint, --region).
//
// Without --config the command reads stowage.toml from the working
// directory, and without that file an embedded default: an SQLite file and
// a disk service in the working directory, the table created when missing.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "stowage/config.h"
#include "stowage/stowage.h"
#include "table/engine_config.h"

namespace stowage::cli {

// Empty: as the configuration says.
struct ConfigOptions {
  std::string config_path;
  std::string engine;
  std::string db;
  std::string table;
  std::string endpoint;
  std::string region;
};

// Binds the global options to `options`, which must outlive `app`'s parsing.
void add_config_options(CLI::App& app, ConfigOptions& options);

// The configuration the options choose, with the flags applied. Throws
// Error(ConfigurationError) as load_config() and parse_config() do.
Config read_config(const ConfigOptions& options);

// Stowage opened from read_config(options).
Stowage open_stowage(const ConfigOptions& options);

// Runs the jobs a mutating command left due (purge_later, bytes of purged
// blobs), so that the command leaves no work behind; warns on stderr when
// some are still due after the timeout.
void run_due_jobs(Stowage& stowage);

// A short name for messages: "sqlite (stowage.db)", "dynamodb", "memory".
std::string engine_label(const table::EngineConfig& config);

}  // namespace stowage::cli
