// Named engine factories for suites that run the same cases on every engine
// (the conformance suite, and the model and ledger suites above it):
//   memory    the in-memory engine
//   sqlite    a SQLite file in the temp directory, removed with its WAL and
//             SHM files when the last reference to the engine goes
//   dynamodb  the dynamodb engine on the process's shared moto server
// Tables on moto outlive an engine and are seen by every test in the
// process, so suites name their tables with unique_table_name().
// Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "aws/http_client.h"
#include "table/engine.h"

namespace stowage::testing {

// {"memory", "sqlite", "dynamodb"}, for ::testing::ValuesIn.
const std::vector<std::string>& engine_names();

// The engine as production stacks it: dynamodb behind a RetryingEngine
// (which also gives every transaction its ClientRequestToken), the embedded
// engines bare. Throws Error(ConfigurationError) for an unknown name, and
// MotoServer's error when moto is not installed.
std::shared_ptr<table::Engine> make_engine(std::string_view name);

// The engine without any wrapper (dynamodb: one attempt per call, tokens
// only as given), for tests that stack wrappers themselves.
std::shared_ptr<table::Engine> make_bare_engine(std::string_view name);

// The bare dynamodb engine on the shared moto server, sending through
// `http` when given (e.g. a client that records requests).
std::shared_ptr<table::Engine> make_moto_dynamodb_engine(
    std::shared_ptr<aws::HttpClient> http = nullptr);

// An HttpClient that sends through another (libcurl by default) and keeps
// every request, so a test can check what went on the wire. Thread-safe.
class RecordingHttpClient : public aws::HttpClient {
 public:
  explicit RecordingHttpClient(
      std::shared_ptr<aws::HttpClient> inner = aws::make_curl_http_client());

  aws::HttpResponse send(const aws::HttpRequest& request) override;

  std::vector<aws::HttpRequest> requests() const;
  // The ClientRequestToken of every TransactWriteItems request sent, in
  // order ("" for one sent without a token).
  std::vector<std::string> transaction_tokens() const;

 private:
  const std::shared_ptr<aws::HttpClient> inner_;
  mutable std::mutex mutex_;
  std::vector<aws::HttpRequest> requests_;  // guarded by mutex_
};

// "<prefix>-<random>-<n>": unique within and across test processes.
std::string unique_table_name(std::string_view prefix);

}  // namespace stowage::testing
