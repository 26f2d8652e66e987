#include "support/engines.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <strings.h>
#include <utility>

#include <rapidjson/document.h>

#include "common/uuid.h"
#include "stowage/error.h"
#include "support/moto_server.h"
#include "table/dynamodb_engine.h"
#include "table/memory_engine.h"
#include "table/retrying_engine.h"
#include "table/sqlite_engine.h"

namespace stowage::testing {

namespace {

// Owns a sqlite engine and the file it lives in; the file goes after the
// engine has closed it.
struct TemporarySqlite {
  std::filesystem::path path;
  std::shared_ptr<table::Engine> engine;

  ~TemporarySqlite() {
    engine.reset();
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::filesystem::remove(path.string() + suffix, ignored);
    }
  }
};

std::shared_ptr<table::Engine> make_temporary_sqlite() {
  auto holder = std::make_shared<TemporarySqlite>();
  holder->path = std::filesystem::temp_directory_path() /
                 ("stowage-test-" + std::to_string(::getpid()) + "-" +
                  uuid_v4() + ".db");
  table::SqliteOptions options;
  options.path = holder->path.string();
  holder->engine = table::make_sqlite_engine(options);
  // Aliasing constructor: callers see an Engine, the holder lives as long.
  return std::shared_ptr<table::Engine>(holder, holder->engine.get());
}

}  // namespace

const std::vector<std::string>& engine_names() {
  static const std::vector<std::string> names = {"memory", "sqlite", "dynamodb"};
  return names;
}

std::shared_ptr<table::Engine> make_engine(std::string_view name) {
  auto engine = make_bare_engine(name);
  if (name == "dynamodb") {
    return std::make_shared<table::RetryingEngine>(std::move(engine));
  }
  return engine;
}

std::shared_ptr<table::Engine> make_bare_engine(std::string_view name) {
  if (name == "memory") return table::make_memory_engine();
  if (name == "sqlite") return make_temporary_sqlite();
  if (name == "dynamodb") return make_moto_dynamodb_engine();
  throw Error::configuration("unknown test engine \"" + std::string(name) +
                             "\"; expected memory, sqlite or dynamodb");
}

std::shared_ptr<table::Engine> make_moto_dynamodb_engine(
    std::shared_ptr<aws::HttpClient> http) {
  MotoServer& moto = MotoServer::shared();
  table::DynamoDbOptions options;
  options.endpoint = moto.endpoint();
  options.region = "us-east-1";
  options.credentials = aws::Credentials{"testing", "testing", ""};
  options.http = std::move(http);
  return table::make_dynamodb_engine(options);
}

RecordingHttpClient::RecordingHttpClient(std::shared_ptr<aws::HttpClient> inner)
    : inner_(std::move(inner)) {}

aws::HttpResponse RecordingHttpClient::send(const aws::HttpRequest& request) {
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
  }
  return inner_->send(request);
}

std::vector<aws::HttpRequest> RecordingHttpClient::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::vector<std::string> RecordingHttpClient::transaction_tokens() const {
  std::vector<std::string> tokens;
  for (const aws::HttpRequest& request : requests()) {
    bool is_transaction = false;
    for (const auto& [name, value] : request.headers) {
      if (::strcasecmp(name.c_str(), "x-amz-target") == 0) {
        is_transaction = value == "DynamoDB_20120810.TransactWriteItems";
      }
    }
    if (!is_transaction) continue;
    rapidjson::Document body;
    body.Parse(request.body.data(), request.body.size());
    const bool has_token = !body.HasParseError() && body.IsObject() &&
                           body.HasMember("ClientRequestToken") &&
                           body["ClientRequestToken"].IsString();
    tokens.push_back(has_token ? body["ClientRequestToken"].GetString() : "");
  }
  return tokens;
}

std::string unique_table_name(std::string_view prefix) {
  static std::atomic<int> counter{0};
  return std::string(prefix) + "-" + uuid_v4().substr(0, 8) + "-" +
         std::to_string(++counter);
}

}  // namespace stowage::testing
