#include "table/engine_config.h"

#include <cstdlib>

#include "stowage/error.h"
#include "table/dynamodb_engine.h"
#include "table/memory_engine.h"
#include "table/retrying_engine.h"
#include "table/sqlite_engine.h"

namespace stowage::table {
namespace {

void override_from_environment(const char* variable, std::string& setting) {
  const char* value = std::getenv(variable);
  if (value != nullptr && *value != '\0') setting = value;
}

// Empty endpoint and region are resolved by the engine per the AWS
// conventions; the retries are RetryingEngine's, as the engine tries once.
std::shared_ptr<Engine> open_dynamodb(const EngineConfig& config) {
  DynamoDbOptions options;
  options.endpoint = config.dynamodb_endpoint;
  options.region = config.region;
  return std::make_shared<RetryingEngine>(make_dynamodb_engine(options));
}

}  // namespace

EngineConfig engine_config_from_environment() {
  EngineConfig config;
  override_from_environment("STOWAGE_ENGINE", config.engine);
  override_from_environment("STOWAGE_DB", config.sqlite_path);
  override_from_environment("STOWAGE_SYNCHRONOUS", config.sqlite_synchronous);
  return config;
}

std::shared_ptr<Engine> open_engine(const EngineConfig& config) {
  if (config.engine == "memory") return make_memory_engine();
  if (config.engine == "sqlite") {
    SqliteOptions options;
    options.path = config.sqlite_path;
    options.synchronous = config.sqlite_synchronous;
    return make_sqlite_engine(std::move(options));
  }
  if (config.engine == "dynamodb") return open_dynamodb(config);
  throw Error::configuration("unknown engine \"" + config.engine +
                             "\"; expected memory, sqlite or dynamodb");
}

}  // namespace stowage::table
