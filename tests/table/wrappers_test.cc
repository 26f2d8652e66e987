// The engine wrappers: RetryingEngine (which errors it retries, how often,
// and the one ClientRequestToken per transaction), FaultInjectingEngine
// (seeded faults, the write hook) and CountingEngine.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stowage/error.h"
#include "support/engines.h"
#include "table/counting_engine.h"
#include "table/fault_injecting_engine.h"
#include "table/retrying_engine.h"

namespace stowage {
void PrintTo(ErrorCode code, std::ostream* os) { *os << to_string(code); }
}  // namespace stowage

namespace stowage::table {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::Property;
using ::testing::Return;
using ::testing::Throw;
using ::testing::Throws;

auto ThrowsCode(ErrorCode code) {
  return Throws<Error>(Property("code", &Error::code, code));
}

Value S(std::string s) { return Value::string(std::move(s)); }
Value N(std::int64_t n) { return Value::number(n); }

class MockEngine : public Engine {
 public:
  MOCK_METHOD(void, create_table, (const TableDescription&), (override));
  MOCK_METHOD(void, delete_table, (std::string_view), (override));
  MOCK_METHOD(TableDescription, describe, (std::string_view), (override));
  MOCK_METHOD(std::optional<Item>, get, (const GetRequest&), (override));
  MOCK_METHOD(std::optional<Item>, put, (const PutRequest&), (override));
  MOCK_METHOD(std::optional<Item>, remove, (const DeleteRequest&), (override));
  MOCK_METHOD(std::optional<Item>, update, (const UpdateRequest&), (override));
  MOCK_METHOD(QueryResult, query, (const QueryRequest&), (override));
  MOCK_METHOD(QueryResult, scan, (const ScanRequest&), (override));
  MOCK_METHOD(void, transact_write, (const TransactWriteRequest&), (override));
};

// No sleeping between attempts: the tests are about which errors are retried.
aws::RetryPolicy quick_policy(int max_attempts) {
  return aws::RetryPolicy({.max_attempts = max_attempts,
                           .base_delay = std::chrono::milliseconds(0),
                           .max_delay = std::chrono::milliseconds(0)});
}

Error error(ErrorCode code, std::string message = "injected by the test") {
  return Error(code, std::move(message));
}

Error canceled(std::vector<std::string> codes) {
  std::vector<CancellationReason> reasons;
  for (auto& code : codes) reasons.push_back({std::move(code), ""});
  return Error(ErrorCode::TransactionCanceled, "canceled", std::move(reasons));
}

TableDescription simple_table(std::string name) {
  TableDescription description;
  description.name = std::move(name);
  description.key_schema.hash = {"pk", KeyType::S};
  description.key_schema.range = KeyAttribute{"sk", KeyType::S};
  return description;
}

Item key(std::string pk) { return {{"pk", S(std::move(pk))}, {"sk", S("s")}}; }

TransactWriteRequest add_one(const std::string& table, const std::string& pk) {
  return {.actions = {UpdateRequest{.table = table, .key = key(pk),
                                    .update = Update().add("count", N(1))}}};
}

// --- RetryingEngine over a scripted engine ---------------------------------

class RetryingEngineTest : public ::testing::Test {
 protected:
  std::shared_ptr<MockEngine> mock_ = std::make_shared<MockEngine>();
  RetryingEngine retrying_{mock_, quick_policy(4)};
  const PutRequest put_{.table = "counted", .item = key("a")};
};

TEST_F(RetryingEngineTest, RetriesThrottlingServerErrorsAndNetworkErrors) {
  EXPECT_CALL(*mock_, put(_))
      .WillOnce(Throw(error(ErrorCode::Throttled)))
      .WillOnce(Throw(error(ErrorCode::ServiceUnavailable)))
      .WillOnce(Throw(error(ErrorCode::NetworkError)))
      .WillOnce(Return(std::nullopt));
  EXPECT_NO_THROW(retrying_.put(put_));
}

TEST_F(RetryingEngineTest, GivesUpAfterMaxAttemptsWithTheLastError) {
  EXPECT_CALL(*mock_, get(_))
      .WillOnce(Throw(error(ErrorCode::Throttled, "first")))
      .WillOnce(Throw(error(ErrorCode::ServiceUnavailable, "second")))
      .WillOnce(Throw(error(ErrorCode::Throttled, "third")))
      .WillOnce(Throw(error(ErrorCode::ServiceUnavailable, "fourth")));
  try {
    retrying_.get({.table = "counted", .key = key("a")});
    ADD_FAILURE() << "no error after four failed attempts";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ServiceUnavailable);
    EXPECT_EQ(e.message(), "fourth");
  }
}

TEST_F(RetryingEngineTest, DoesNotRetryErrorsOfTheRequestItself) {
  EXPECT_CALL(*mock_, put(_))
      .WillOnce(Throw(error(ErrorCode::ConditionalCheckFailed)))
      .WillOnce(Throw(error(ErrorCode::ValidationError)));
  EXPECT_THAT([&] { retrying_.put(put_); },
              ThrowsCode(ErrorCode::ConditionalCheckFailed));
  EXPECT_THAT([&] { retrying_.put(put_); }, ThrowsCode(ErrorCode::ValidationError));
}

TEST_F(RetryingEngineTest, RetriesTransactionConflictsOnly) {
  EXPECT_CALL(*mock_, transact_write(_))
      .WillOnce(Throw(canceled({"None", "TransactionConflict"})))
      .WillOnce(Return())
      .WillOnce(Throw(canceled({"TransactionConflict", "ConditionalCheckFailed"})));
  EXPECT_NO_THROW(retrying_.transact_write(add_one("counted", "a")));
  EXPECT_THAT([&] { retrying_.transact_write(add_one("counted", "a")); },
              ThrowsCode(ErrorCode::TransactionCanceled));
}

TEST_F(RetryingEngineTest, DoesNotRetryAnUpdateAfterUnknownOutcome) {
  EXPECT_CALL(*mock_, update(_)).WillOnce(Throw(error(ErrorCode::UnknownOutcome)));
  EXPECT_THAT(
      [&] {
        retrying_.update({.table = "counted", .key = key("a"),
                          .update = Update().add("count", N(1))});
      },
      ThrowsCode(ErrorCode::UnknownOutcome));
}

TEST_F(RetryingEngineTest, DoesNotRetryConditionalWritesAfterUnknownOutcome) {
  EXPECT_CALL(*mock_, put(_)).WillOnce(Throw(error(ErrorCode::UnknownOutcome)));
  EXPECT_CALL(*mock_, remove(_)).WillOnce(Throw(error(ErrorCode::UnknownOutcome)));
  PutRequest conditional = put_;
  conditional.condition = cond::not_exists("pk");
  EXPECT_THAT([&] { retrying_.put(conditional); },
              ThrowsCode(ErrorCode::UnknownOutcome));
  EXPECT_THAT(
      [&] {
        retrying_.remove({.table = "counted", .key = key("a"),
                          .return_values = ReturnValues::AllOld});
      },
      ThrowsCode(ErrorCode::UnknownOutcome));
}

TEST_F(RetryingEngineTest, RetriesIdempotentRequestsAfterUnknownOutcome) {
  const auto lost = Throw(error(ErrorCode::UnknownOutcome));
  EXPECT_CALL(*mock_, put(_)).WillOnce(lost).WillOnce(Return(std::nullopt));
  EXPECT_CALL(*mock_, remove(_)).WillOnce(lost).WillOnce(Return(std::nullopt));
  EXPECT_CALL(*mock_, get(_)).WillOnce(lost).WillOnce(Return(key("a")));
  EXPECT_CALL(*mock_, query(_)).WillOnce(lost).WillOnce(Return(QueryResult{}));
  EXPECT_CALL(*mock_, scan(_)).WillOnce(lost).WillOnce(Return(QueryResult{}));
  EXPECT_CALL(*mock_, describe(_)).WillOnce(lost).WillOnce(Return(simple_table("counted")));
  EXPECT_CALL(*mock_, transact_write(_)).WillOnce(lost).WillOnce(Return());

  EXPECT_NO_THROW(retrying_.put(put_));
  EXPECT_NO_THROW(retrying_.remove({.table = "counted", .key = key("a")}));
  EXPECT_EQ(retrying_.get({.table = "counted", .key = key("a")}), key("a"));
  EXPECT_NO_THROW(retrying_.query({.table = "counted", .hash_value = S("a")}));
  EXPECT_NO_THROW(retrying_.scan({.table = "counted"}));
  EXPECT_EQ(retrying_.describe("counted"), simple_table("counted"));
  EXPECT_NO_THROW(retrying_.transact_write(add_one("counted", "a")));
}

TEST_F(RetryingEngineTest, EveryAttemptOfATransactionCarriesOneFreshToken) {
  std::vector<std::string> tokens;
  EXPECT_CALL(*mock_, transact_write(_))
      .Times(6)
      .WillRepeatedly([&](const TransactWriteRequest& request) {
        tokens.push_back(request.client_request_token);
        if (tokens.size() == 1) throw error(ErrorCode::UnknownOutcome);
        if (tokens.size() == 2) throw error(ErrorCode::Throttled);
      });
  retrying_.transact_write(add_one("counted", "a"));
  retrying_.transact_write(add_one("counted", "a"));
  TransactWriteRequest given = add_one("counted", "a");
  given.client_request_token = "chosen-by-the-caller";
  retrying_.transact_write(given);
  retrying_.transact_write(given);

  ASSERT_EQ(tokens.size(), 6u);
  EXPECT_EQ(tokens[0].size(), 36u) << tokens[0];  // a UUID
  EXPECT_EQ(tokens[1], tokens[0]);
  EXPECT_EQ(tokens[2], tokens[0]);
  EXPECT_NE(tokens[3], tokens[0]) << "a new transaction reused a token";
  EXPECT_EQ(tokens[3].size(), 36u);
  // The caller's token is kept, not replaced.
  EXPECT_EQ(tokens[4], "chosen-by-the-caller");
  EXPECT_EQ(tokens[5], "chosen-by-the-caller");
}

// The scripted engine sends a sequence one transaction at a time (the
// Engine default), so each transaction is one scripted call.
TEST_F(RetryingEngineTest, RetriesASequenceFromTheTransactionThatDidNotCommit) {
  std::vector<std::string> sent;
  EXPECT_CALL(*mock_, transact_write(_))
      .Times(5)
      .WillRepeatedly([&](const TransactWriteRequest& request) {
        const std::string pk = std::get<UpdateRequest>(request.actions[0]).key.at("pk").as_string();
        sent.push_back(pk);
        if (sent.size() == 2) throw error(ErrorCode::Throttled);
        if (sent.size() == 4) throw canceled({"TransactionConflict"});
      });
  const std::vector<TransactWriteRequest> sequence = {add_one("counted", "a"),
                                                      add_one("counted", "b"),
                                                      add_one("counted", "c")};
  const SequenceResult result = retrying_.transact_write_sequence(sequence);
  EXPECT_EQ(result.committed, 3u);
  EXPECT_FALSE(result.failure.has_value());
  EXPECT_THAT(sent, ElementsAre("a", "b", "b", "c", "c"));
}

TEST_F(RetryingEngineTest, ASequenceWithoutTokensReturnsAnUnknownOutcome) {
  EXPECT_CALL(*mock_, transact_write(_))
      .WillOnce(Return())
      .WillOnce(Throw(error(ErrorCode::UnknownOutcome)));
  const std::vector<TransactWriteRequest> sequence = {add_one("counted", "a"),
                                                      add_one("counted", "b"),
                                                      add_one("counted", "c")};
  const SequenceResult result = retrying_.transact_write_sequence(sequence);
  EXPECT_EQ(result.committed, 1u);
  ASSERT_TRUE(result.failure.has_value());
  EXPECT_EQ(result.failure->code(), ErrorCode::UnknownOutcome);
}

TEST_F(RetryingEngineTest, ASequenceWithTokensIsRetriedAfterAnUnknownOutcome) {
  std::vector<std::string> tokens;
  EXPECT_CALL(*mock_, transact_write(_))
      .Times(3)
      .WillRepeatedly([&](const TransactWriteRequest& request) {
        tokens.push_back(request.client_request_token);
        if (tokens.size() == 1) throw error(ErrorCode::UnknownOutcome);
      });
  std::vector<TransactWriteRequest> sequence = {add_one("counted", "a"),
                                                add_one("counted", "b")};
  sequence[0].client_request_token = "first";
  sequence[1].client_request_token = "second";
  const SequenceResult result = retrying_.transact_write_sequence(sequence);
  EXPECT_EQ(result.committed, 2u);
  EXPECT_FALSE(result.failure.has_value());
  EXPECT_THAT(tokens, ElementsAre("first", "first", "second"));
}

TEST_F(RetryingEngineTest, TableCreationIsNotRetriedAfterUnknownOutcome) {
  EXPECT_CALL(*mock_, create_table(_))
      .WillOnce(Throw(error(ErrorCode::Throttled)))
      .WillOnce(Throw(error(ErrorCode::UnknownOutcome)));
  EXPECT_THAT([&] { retrying_.create_table(simple_table("counted")); },
              ThrowsCode(ErrorCode::UnknownOutcome));
}

// --- FaultInjectingEngine ---------------------------------------------------

class FaultInjectingEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    memory_->create_table(simple_table(table_));
  }
  std::shared_ptr<Engine> memory_ = testing::make_bare_engine("memory");
  std::shared_ptr<CountingEngine> counting_ = std::make_shared<CountingEngine>(memory_);
  const std::string table_ = "faults";
};

// The outcome of each of `calls` puts: the error code, or "ok".
std::vector<std::string> outcomes(FaultInjectingEngine& engine, const std::string& table,
                                  int calls) {
  std::vector<std::string> result;
  for (int i = 0; i < calls; ++i) {
    try {
      engine.put({.table = table, .item = key("k" + std::to_string(i))});
      result.push_back("ok");
    } catch (const Error& e) {
      result.push_back(std::string(to_string(e.code())));
    }
  }
  return result;
}

TEST_F(FaultInjectingEngineTest, SameSeedSameFaults) {
  const FaultOptions options{.seed = 42, .throttle = 0.2, .server_error = 0.2,
                             .timeout_before = 0.2};
  FaultInjectingEngine first(counting_, options);
  FaultInjectingEngine second(counting_, options);
  const std::vector<std::string> a = outcomes(first, table_, 200);
  EXPECT_EQ(a, outcomes(second, table_, 200));

  FaultInjectingEngine other(counting_, FaultOptions{.seed = 43, .throttle = 0.2,
                                                     .server_error = 0.2,
                                                     .timeout_before = 0.2});
  EXPECT_NE(a, outcomes(other, table_, 200));

  // Each kind shows up at about its rate, and every fault is counted.
  const FaultCounts counts = first.injected();
  for (std::uint64_t n : {counts.throttle, counts.server_error, counts.timeout_before}) {
    EXPECT_GT(n, 20u);
    EXPECT_LT(n, 70u);
  }
  EXPECT_EQ(counts.conflict, 0u);  // puts never conflict
  EXPECT_EQ(counts.total(),
            static_cast<std::uint64_t>(std::count_if(
                a.begin(), a.end(), [](const std::string& o) { return o != "ok"; })));
}

TEST_F(FaultInjectingEngineTest, FaultsBeforeTheCallNeverReachTheEngine) {
  FaultInjectingEngine faulty(counting_, {.seed = 1, .throttle = 0.5,
                                          .server_error = 0.25, .timeout_before = 0.25});
  const std::vector<std::string> result = outcomes(faulty, table_, 50);
  EXPECT_EQ(std::count(result.begin(), result.end(), "ok"), 0);
  EXPECT_EQ(counting_->counts().put, 0u);
  EXPECT_TRUE(memory_->scan({.table = table_}).items.empty());
}

TEST_F(FaultInjectingEngineTest, TimeoutAfterAppliesTheWrite) {
  FaultInjectingEngine faulty(counting_, {.seed = 1, .timeout_after = 1.0});
  EXPECT_THAT(
      [&] {
        faulty.update({.table = table_, .key = key("a"),
                       .update = Update().add("count", N(1))});
      },
      ThrowsCode(ErrorCode::UnknownOutcome));
  EXPECT_EQ(memory_->get({.table = table_, .key = key("a")})->at("count"), N(1));
  EXPECT_EQ(faulty.injected().timeout_after, 1u);
}

TEST_F(FaultInjectingEngineTest, ConflictNamesOneActionLikeDynamoDb) {
  FaultInjectingEngine faulty(counting_, {.seed = 7, .conflict = 1.0});
  TransactWriteRequest request;
  for (const char* pk : {"a", "b", "c"}) {
    request.actions.push_back(PutRequest{.table = table_, .item = key(pk)});
  }
  try {
    faulty.transact_write(request);
    ADD_FAILURE() << "no conflict injected";
  } catch (const Error& e) {
    ASSERT_EQ(e.code(), ErrorCode::TransactionCanceled);
    ASSERT_EQ(e.cancellation_reasons().size(), 3u);
    int conflicts = 0;
    for (const CancellationReason& reason : e.cancellation_reasons()) {
      if (reason.code == "TransactionConflict") {
        ++conflicts;
      } else {
        EXPECT_EQ(reason.code, "None");
      }
    }
    EXPECT_EQ(conflicts, 1);
    EXPECT_TRUE(aws::RetryPolicy().should_retry(e, 1, false));
  }
  EXPECT_EQ(counting_->counts().transact_write, 0u);
  // Conflicts are for transactions only: a put passes.
  EXPECT_NO_THROW(faulty.put({.table = table_, .item = key("d")}));
}

TEST_F(FaultInjectingEngineTest, ReadsFaultOnlyWhenAsked) {
  FaultInjectingEngine writes_only(counting_, {.seed = 1, .throttle = 1.0});
  EXPECT_NO_THROW(writes_only.get({.table = table_, .key = key("a")}));
  EXPECT_NO_THROW(writes_only.query({.table = table_, .hash_value = S("a")}));
  EXPECT_NO_THROW(writes_only.scan({.table = table_}));
  EXPECT_NO_THROW(writes_only.describe(table_));

  FaultInjectingEngine reads_too(counting_, {.seed = 1, .throttle = 1.0,
                                             .reads_too = true});
  EXPECT_THAT([&] { reads_too.get({.table = table_, .key = key("a")}); },
              ThrowsCode(ErrorCode::Throttled));
  EXPECT_THAT([&] { reads_too.query({.table = table_, .hash_value = S("a")}); },
              ThrowsCode(ErrorCode::Throttled));
  EXPECT_THAT([&] { reads_too.scan({.table = table_}); },
              ThrowsCode(ErrorCode::Throttled));
  EXPECT_EQ(reads_too.injected().throttle, 3u);
}

TEST_F(FaultInjectingEngineTest, MaxFaultsLimitsInjection) {
  FaultInjectingEngine faulty(counting_, {.seed = 1, .server_error = 1.0,
                                          .max_faults = 2});
  EXPECT_THAT(outcomes(faulty, table_, 4),
              ElementsAre("ServiceUnavailable", "ServiceUnavailable", "ok", "ok"));
}

TEST_F(FaultInjectingEngineTest, RejectsImpossibleProbabilities) {
  for (const FaultOptions& options :
       {FaultOptions{.throttle = 1.5}, FaultOptions{.throttle = -0.1},
        FaultOptions{.throttle = 0.6, .timeout_after = 0.6}}) {
    EXPECT_THAT([&] { FaultInjectingEngine rejected(memory_, options); },
                ThrowsCode(ErrorCode::ConfigurationError));
  }
}

TEST_F(FaultInjectingEngineTest, HookHoldsACommitWhileAnotherThreadActs) {
  FaultInjectingEngine faulty(counting_, {});
  std::mutex mutex;
  std::condition_variable changed;
  bool held = false;
  bool released = false;
  std::vector<std::string> hooked;
  faulty.set_before_write_hook([&](std::string_view operation) {
    std::unique_lock lock(mutex);
    hooked.emplace_back(operation);
    held = true;
    changed.notify_all();
    changed.wait(lock, [&] { return released; });
  });

  std::thread writer([&] { faulty.transact_write(add_one(table_, "held")); });
  {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return held; });
  }
  // The commit is held: nothing has reached the table yet.
  EXPECT_FALSE(memory_->get({.table = table_, .key = key("held")}).has_value());
  {
    std::lock_guard lock(mutex);
    released = true;
  }
  changed.notify_all();
  writer.join();
  EXPECT_EQ(memory_->get({.table = table_, .key = key("held")})->at("count"), N(1));

  faulty.set_before_write_hook({});
  faulty.put({.table = table_, .item = key("free")});
  faulty.get({.table = table_, .key = key("free")});  // reads are not hooked
  EXPECT_THAT(hooked, ElementsAre("transact_write"));
}

// --- RetryingEngine over FaultInjectingEngine -------------------------------

TEST_F(FaultInjectingEngineTest, RetryingEngineOutlastsSeededFaults) {
  auto faulty = std::make_shared<FaultInjectingEngine>(
      counting_, FaultOptions{.seed = 2024, .throttle = 0.2, .server_error = 0.2,
                              .conflict = 0.2, .reads_too = true});
  RetryingEngine retrying(faulty, quick_policy(40));
  for (int i = 0; i < 50; ++i) {
    retrying.transact_write(add_one(table_, "counter"));
    retrying.put({.table = table_, .item = key("p" + std::to_string(i))});
  }
  EXPECT_EQ(retrying.get({.table = table_, .key = key("counter")})->at("count"), N(50));
  EXPECT_EQ(memory_->scan({.table = table_}).items.size(), 51u);
  const FaultCounts counts = faulty->injected();
  EXPECT_GT(counts.throttle, 0u);
  EXPECT_GT(counts.server_error, 0u);
  EXPECT_GT(counts.conflict, 0u);
  // Faults before the call never reached the engine; exactly one attempt of
  // each transaction did.
  EXPECT_EQ(counting_->counts().transact_write, 50u);
}

TEST_F(FaultInjectingEngineTest, RetryingEngineGivesUpWithTheFault) {
  auto faulty = std::make_shared<FaultInjectingEngine>(
      counting_, FaultOptions{.seed = 3, .throttle = 1.0});
  RetryingEngine retrying(faulty, quick_policy(5));
  EXPECT_THAT([&] { retrying.put({.table = table_, .item = key("a")}); },
              ThrowsCode(ErrorCode::Throttled));
  EXPECT_EQ(faulty->injected().throttle, 5u);
  EXPECT_EQ(counting_->counts().put, 0u);
}

TEST_F(FaultInjectingEngineTest, RetryingEngineDoesNotRepeatAnUpdateWithLostAnswer) {
  auto faulty = std::make_shared<FaultInjectingEngine>(
      counting_, FaultOptions{.seed = 3, .timeout_after = 1.0});
  RetryingEngine retrying(faulty, quick_policy(5));
  EXPECT_THAT(
      [&] {
        retrying.update({.table = table_, .key = key("a"),
                         .update = Update().add("count", N(1))});
      },
      ThrowsCode(ErrorCode::UnknownOutcome));
  EXPECT_EQ(counting_->counts().update, 1u);
  EXPECT_EQ(memory_->get({.table = table_, .key = key("a")})->at("count"), N(1));
}

// A transaction whose answer is lost twice is retried with its token and
// applies once, on each embedded engine.
class RetriedTransactionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RetriedTransactionTest, AppliesExactlyOnce) {
  auto engine = testing::make_bare_engine(GetParam());
  engine->create_table(simple_table("retried"));
  auto counting = std::make_shared<CountingEngine>(engine);
  auto faulty = std::make_shared<FaultInjectingEngine>(
      counting, FaultOptions{.seed = 5, .timeout_after = 1.0, .max_faults = 2});
  RetryingEngine retrying(faulty, quick_policy(5));
  retrying.transact_write(add_one("retried", "a"));
  EXPECT_EQ(faulty->injected().timeout_after, 2u);
  EXPECT_EQ(counting->counts().transact_write, 3u);
  EXPECT_EQ(engine->get({.table = "retried", .key = key("a")})->at("count"), N(1));

  // A second transaction has its own token, so it applies too.
  retrying.transact_write(add_one("retried", "a"));
  EXPECT_EQ(engine->get({.table = "retried", .key = key("a")})->at("count"), N(2));
}

INSTANTIATE_TEST_SUITE_P(EmbeddedEngines, RetriedTransactionTest,
                         ::testing::Values("memory", "sqlite"),
                         [](const auto& info) { return info.param; });

// Against moto the same stack must put one token on the wire for both
// attempts (moto itself ignores the token; see the conformance suite).
TEST(RetryingEngineOnMoto, RetriedTransactionCarriesTheSameToken) {
  auto http = std::make_shared<testing::RecordingHttpClient>();
  auto dynamodb = testing::make_moto_dynamodb_engine(http);
  const std::string table = testing::unique_table_name("wrappers");
  dynamodb->create_table(simple_table(table));
  auto faulty = std::make_shared<FaultInjectingEngine>(
      dynamodb, FaultOptions{.seed = 9, .timeout_after = 1.0, .max_faults = 1});
  RetryingEngine retrying(faulty, quick_policy(3));
  retrying.transact_write(add_one(table, "a"));
  retrying.transact_write(add_one(table, "b"));

  const std::vector<std::string> tokens = http->transaction_tokens();
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_FALSE(tokens[0].empty());
  EXPECT_EQ(tokens[1], tokens[0]) << "the retry changed the token";
  EXPECT_NE(tokens[2], tokens[0]) << "two transactions shared a token";
  EXPECT_EQ(dynamodb->get({.table = table, .key = key("b")})->at("count"), N(1));
  dynamodb->delete_table(table);
}

// --- CountingEngine ---------------------------------------------------------

TEST(CountingEngine, CountsEveryCallByOperation) {
  auto counting = std::make_shared<CountingEngine>(testing::make_bare_engine("memory"));
  counting->create_table(simple_table("counted"));
  counting->describe("counted");
  counting->put({.table = "counted", .item = key("a")});
  counting->put({.table = "counted", .item = key("b")});
  counting->get({.table = "counted", .key = key("a")});
  counting->update({.table = "counted", .key = key("a"), .update = Update().add("n", N(1))});
  counting->remove({.table = "counted", .key = key("b")});
  counting->query({.table = "counted", .hash_value = S("a")});
  counting->scan({.table = "counted"});
  counting->transact_write(add_one("counted", "a"));
  // A failing call is counted too: it was a request.
  EXPECT_THAT([&] { counting->get({.table = "missing", .key = key("a")}); },
              ThrowsCode(ErrorCode::ResourceNotFound));
  counting->delete_table("counted");

  const CallCounts counts = counting->counts();
  EXPECT_EQ(counts.create_table, 1u);
  EXPECT_EQ(counts.describe, 1u);
  EXPECT_EQ(counts.put, 2u);
  EXPECT_EQ(counts.get, 2u);
  EXPECT_EQ(counts.update, 1u);
  EXPECT_EQ(counts.remove, 1u);
  EXPECT_EQ(counts.query, 1u);
  EXPECT_EQ(counts.scan, 1u);
  EXPECT_EQ(counts.transact_write, 1u);
  EXPECT_EQ(counts.delete_table, 1u);
  EXPECT_EQ(counts.total(), 12u);

  counting->reset();
  EXPECT_EQ(counting->counts(), CallCounts{});
}

TEST(CountingEngine, CountsConcurrentCallsExactly) {
  auto counting = std::make_shared<CountingEngine>(testing::make_bare_engine("memory"));
  counting->create_table(simple_table("counted"));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 250; ++i) {
        counting->put({.table = "counted", .item = key(std::to_string(t * 1000 + i))});
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counting->counts().put, 1000u);
  EXPECT_EQ(counting->scan({.table = "counted"}).items.size(), 1000u);
}

}  // namespace
}  // namespace stowage::table
