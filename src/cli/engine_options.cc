#include "cli/engine_options.h"

namespace stowage::cli {

void add_engine_options(CLI::App& app, table::EngineConfig& config) {
  app.add_option("--engine", config.engine,
                 "Table engine: memory, sqlite or dynamodb (env STOWAGE_ENGINE)")
      ->capture_default_str();
  app.add_option("--db", config.sqlite_path,
                 "SQLite database file for the sqlite engine (env STOWAGE_DB)")
      ->capture_default_str();
  app.add_option("--table", config.table, "Table name (env STOWAGE_TABLE)")
      ->capture_default_str();
  app.add_option("--endpoint", config.dynamodb_endpoint,
                 "DynamoDB endpoint URL (default: AWS_ENDPOINT_URL_DYNAMODB, "
                 "AWS_ENDPOINT_URL, then the public endpoint)");
  app.add_option("--region", config.region,
                 "AWS region (default: AWS_REGION, AWS_DEFAULT_REGION, the "
                 "profile's region, then us-east-1)");
}

std::string engine_label(const table::EngineConfig& config) {
  if (config.engine == "sqlite") return "sqlite (" + config.sqlite_path + ")";
  return config.engine;
}

}  // namespace stowage::cli
