// Config: everything a Stowage instance is opened from, read from the one
// TOML configuration file that every front end (library, CLI, HTTP service)
// shares:
//
//   secret = "…"                  # signs blob ids, 32 bytes or more; else
//                                 #   STOWAGE_SECRET from the environment
//   default_service = "local"     # may be left out when one service is set
//   strict_definitions = false    # see [[attachments]]
//
//   [engine]                      # where the metadata table lives
//   engine = "sqlite"             # sqlite | dynamodb | memory
//   path = "stowage.db"           # sqlite: the database file
//   synchronous = "FULL"          # sqlite: PRAGMA synchronous
//   endpoint = "http://…"         # dynamodb: else the AWS conventions
//   region = "eu-west-1"          # dynamodb: else the AWS conventions
//
//   [table]                       # the table and its keys: schema_config.h
//   [services.local]              # byte services: service_config.h
//   [[attachments]]               # attachment definitions: definitions.h
//
//   [jobs]
//   workers = 2                   # worker threads start_workers() runs;
//                                 #   0: jobs run only in drain_jobs()
//
// Settings left out keep their defaults; [engine]'s defaults come from
// STOWAGE_ENGINE, STOWAGE_DB and STOWAGE_SYNCHRONOUS and the table name's
// from STOWAGE_TABLE, where set. The fields are the layers' own
// configuration types, which front ends may adjust (a CLI flag) before
// opening.
//
// Plain value type; thread-compatible.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "model/definitions.h"
#include "schema/schema_config.h"
#include "table/engine_config.h"

namespace stowage {

struct Config {
  table::EngineConfig engine;
  schema::SchemaConfig table;
  // The configuration's text, which the [services.NAME] tables are built
  // from when Stowage opens (a disk service creates its root then).
  std::string text;
  std::vector<std::string> service_names;
  std::string default_service;
  model::Definitions definitions;
  // Empty when neither the configuration nor the environment has one;
  // Stowage refuses to open then.
  std::string secret;
  std::size_t workers = 0;
};

// Throws Error(ConfigurationError), naming `origin` (a file name) and the
// setting with its line, for TOML that does not parse, an unknown setting or
// table, a setting of the wrong type, no [services.NAME], or a
// default_service that is missing (with several services) or names none of
// them; and whatever the [table] and [[attachments]] readers throw.
Config parse_config(std::string_view toml_text,
                    std::string_view origin = "the configuration");

// parse_config() of the file's contents. Throws Error(ConfigurationError)
// naming the path when it cannot be read.
Config load_config(const std::filesystem::path& path);

}  // namespace stowage
