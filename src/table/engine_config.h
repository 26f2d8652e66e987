// EngineConfig: which engine holds Stowage's table and how to reach it, and
// open_engine(), the one place that turns a configuration into an Engine.
//
// Defaults come from the environment (engine_config_from_environment) and
// are overridden by explicit settings (command-line flags, config files).
// Thread-safe: plain values and functions that only read the environment.
#pragma once

#include <memory>
#include <string>

#include "table/engine.h"

namespace stowage::table {

struct EngineConfig {
  std::string engine = "sqlite";  // memory | sqlite | dynamodb
  std::string sqlite_path = "stowage.db";
  std::string sqlite_synchronous = "FULL";
  // Empty: resolved per the AWS conventions by the dynamodb engine
  // (aws::resolve_endpoint, aws::resolve_region).
  std::string dynamodb_endpoint;
  std::string region;
  // The table's name is not here: it is the schema's ([table] table).
};

// The defaults above, overridden by STOWAGE_ENGINE, STOWAGE_DB and
// STOWAGE_SYNCHRONOUS where set and non-empty.
EngineConfig engine_config_from_environment();

// memory and sqlite open in-process; dynamodb is the DynamoDB JSON protocol
// behind a RetryingEngine, with credentials from the AWS credential chain.
// Throws Error(ConfigurationError) naming the accepted values for an unknown
// engine name, and whatever the engine throws when it cannot open (IoError
// for an unusable SQLite path).
std::shared_ptr<Engine> open_engine(const EngineConfig& config);

}  // namespace stowage::table
