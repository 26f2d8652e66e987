// Behaviour of the dynamodb engine itself: what it sends, how it decodes
// DynamoDB's answers and errors, and what it refuses before any I/O. The
// shared semantics of all engines are the conformance suite's.
#include "table/dynamodb_engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stowage/error.h"
#include "support/engines.h"
#include "table/limits.h"

namespace stowage::table {
namespace {

using testing::RecordingHttpClient;
using testing::make_moto_dynamodb_engine;
using testing::unique_table_name;

std::string header(const aws::HttpRequest& request, std::string_view name) {
  for (const auto& [key, value] : request.headers) {
    if (std::equal(key.begin(), key.end(), name.begin(), name.end(),
                   [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      return value;
    }
  }
  return "";
}

template <typename Call>
Error error_of(Call&& call) {
  try {
    call();
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "no error thrown";
  return Error(ErrorCode::IntegrityError, "no error thrown");
}

TableDescription hash_range_table(std::string name) {
  TableDescription description;
  description.name = std::move(name);
  description.key_schema = {{"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N}};
  description.global_secondary_indexes = {
      {"by_owner", {{"owner", KeyType::S}, KeyAttribute{"created", KeyType::N}}}};
  return description;
}

Item key(std::string pk, std::int64_t sk) {
  return {{"pk", Value::string(std::move(pk))}, {"sk", Value::number(sk)}};
}

Item with(Item item, std::string name, Value value) {
  item.insert_or_assign(std::move(name), std::move(value));
  return item;
}

class DynamoDbEngineOnMoto : public ::testing::Test {
 protected:
  void SetUp() override {
    recorder_ = std::make_shared<RecordingHttpClient>();
    engine_ = make_moto_dynamodb_engine(recorder_);
    table_ = unique_table_name("ddb");
    engine_->create_table(hash_range_table(table_));
  }
  void TearDown() override { engine_->delete_table(table_); }

  std::size_t requests_sent() const { return recorder_->requests().size(); }

  std::shared_ptr<RecordingHttpClient> recorder_;
  std::shared_ptr<Engine> engine_;
  std::string table_;
};

TEST_F(DynamoDbEngineOnMoto, CreateTableDescribesWhatWasAskedFor) {
  EXPECT_EQ(engine_->describe(table_), hash_range_table(table_));
  EXPECT_EQ(error_of([&] { engine_->create_table(hash_range_table(table_)); }).code(),
            ErrorCode::ResourceInUse);
}

TEST_F(DynamoDbEngineOnMoto, UnknownTableIsResourceNotFound) {
  const std::string missing = unique_table_name("missing");
  EXPECT_EQ(error_of([&] { engine_->describe(missing); }).code(), ErrorCode::ResourceNotFound);
  EXPECT_EQ(error_of([&] { engine_->get({missing, key("a", 1)}); }).code(),
            ErrorCode::ResourceNotFound);
  EXPECT_EQ(error_of([&] { engine_->delete_table(missing); }).code(),
            ErrorCode::ResourceNotFound);
  const Error error = error_of([&] {
    engine_->transact_write({{PutRequest{table_, key("a", 1)}, PutRequest{missing, key("a", 1)}}});
  });
  EXPECT_EQ(error.code(), ErrorCode::ResourceNotFound);
  EXPECT_NE(error.message().find(missing), std::string::npos) << error.message();
}

TEST_F(DynamoDbEngineOnMoto, ATableDeletedBehindTheCacheIsResourceNotFound) {
  engine_->put({table_, key("a", 1)});
  auto other = make_moto_dynamodb_engine();
  other->delete_table(table_);
  EXPECT_EQ(error_of([&] { engine_->get({table_, key("a", 1)}); }).code(),
            ErrorCode::ResourceNotFound);
  // The stale description is gone: the next call asks DescribeTable again.
  const std::size_t before = requests_sent();
  EXPECT_EQ(error_of([&] { engine_->get({table_, key("a", 1)}); }).code(),
            ErrorCode::ResourceNotFound);
  EXPECT_EQ(header(recorder_->requests().at(before), "X-Amz-Target"),
            "DynamoDB_20120810.DescribeTable");
  engine_->create_table(hash_range_table(table_));
}

TEST_F(DynamoDbEngineOnMoto, SendsSignedJsonProtocolRequests) {
  engine_->put({table_, key("a", 1)});
  const aws::HttpRequest put = recorder_->requests().back();
  EXPECT_EQ(put.method, "POST");
  EXPECT_EQ(put.url.back(), '/');
  EXPECT_EQ(header(put, "Content-Type"), "application/x-amz-json-1.0");
  EXPECT_EQ(header(put, "X-Amz-Target"), "DynamoDB_20120810.PutItem");
  EXPECT_NE(header(put, "Authorization").find("/us-east-1/dynamodb/aws4_request"),
            std::string::npos);
  EXPECT_NE(put.body.find(R"("Item":{"pk":{"S":"a"},"sk":{"N":"1"}})"), std::string::npos)
      << put.body;
}

TEST_F(DynamoDbEngineOnMoto, WritesReturnTheImagesAskedFor) {
  const Item first = with(key("a", 1), "n", Value::number(1));
  EXPECT_EQ(engine_->put({table_, first, std::nullopt, ReturnValues::AllOld}), std::nullopt);
  EXPECT_EQ(engine_->put({table_, with(first, "n", Value::number(2)), std::nullopt,
                          ReturnValues::AllOld}),
            first);

  UpdateRequest update{table_, key("a", 1), Update().add("n", Value::number(5))};
  update.return_values = ReturnValues::AllNew;
  EXPECT_EQ(engine_->update(update), with(key("a", 1), "n", Value::number(7)));
  update.return_values = ReturnValues::AllOld;
  EXPECT_EQ(engine_->update(update), with(key("a", 1), "n", Value::number(7)));
  update.return_values = ReturnValues::None;
  EXPECT_EQ(engine_->update(update), std::nullopt);

  EXPECT_EQ(engine_->get({table_, key("a", 1)}), with(key("a", 1), "n", Value::number(17)));
  EXPECT_EQ(engine_->remove({table_, key("a", 1), std::nullopt, ReturnValues::AllOld}),
            with(key("a", 1), "n", Value::number(17)));
  EXPECT_EQ(engine_->get({table_, key("a", 1)}), std::nullopt);
}

TEST_F(DynamoDbEngineOnMoto, NamesThatAreNotIdentifiersJustWork) {
  const std::vector<std::string> names = {"a.b", "#x", "size", "status", "naïve 名前", ":v0"};
  Update update;
  for (std::size_t i = 0; i < names.size(); ++i) {
    update.set(names[i], Value::number(static_cast<std::int64_t>(i)));
  }
  engine_->update({table_, key("odd", 1), update});

  Condition all = cond::exists(names[0]);
  for (std::size_t i = 1; i < names.size(); ++i) {
    all = std::move(all) && cond::eq(names[i], Value::number(static_cast<std::int64_t>(i)));
  }
  engine_->update({table_, key("odd", 1), Update().remove("size").add("a.b", Value::number(10)),
                   all});
  const Item item = *engine_->get({table_, key("odd", 1)});
  EXPECT_EQ(item.at("a.b"), Value::number(10));
  EXPECT_EQ(item.count("size"), 0u);
  EXPECT_EQ(item.at("naïve 名前"), Value::number(4));

  const Error failed = error_of([&] {
    engine_->put({table_, key("odd", 1), cond::not_exists("#x")});
  });
  EXPECT_EQ(failed.code(), ErrorCode::ConditionalCheckFailed);
}

TEST_F(DynamoDbEngineOnMoto, QueriesPageWithLimitAndExclusiveStartKey) {
  for (int i = 1; i <= 5; ++i) {
    engine_->put({table_, key("q", i)});
  }
  engine_->put({table_, key("other", 1)});

  for (bool forward : {true, false}) {
    std::vector<std::int64_t> seen;
    QueryRequest query{table_};
    query.hash_value = Value::string("q");
    query.limit = 2;
    query.scan_forward = forward;
    query.consistent_read = true;
    int pages = 0;
    do {
      QueryResult page = engine_->query(query);
      ++pages;
      EXPECT_LE(page.items.size(), 2u);
      for (const Item& item : page.items) seen.push_back(*item.at("sk").as_number().to_int64());
      query.exclusive_start_key = page.last_evaluated_key;
    } while (query.exclusive_start_key && pages < 10);
    std::vector<std::int64_t> expected = {1, 2, 3, 4, 5};
    if (!forward) std::reverse(expected.begin(), expected.end());
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(pages, 3);
  }

  QueryRequest range{table_};
  range.hash_value = Value::string("q");
  range.range_condition =
      RangeKeyCondition{KeyOperator::Between, Value::number(2), Value::number(4)};
  EXPECT_EQ(engine_->query(range).items.size(), 3u);
  range.range_condition = RangeKeyCondition{KeyOperator::Gt, Value::number(4), std::nullopt};
  EXPECT_EQ(engine_->query(range).items.size(), 1u);

}

TEST_F(DynamoDbEngineOnMoto, QueriesAGlobalSecondaryIndex) {
  for (int i = 1; i <= 3; ++i) {
    engine_->put({table_, with(with(key("g", i), "owner", Value::string("o")), "created",
                               Value::number(10 - i))});
  }
  QueryRequest query{table_, "by_owner"};
  query.hash_value = Value::string("o");
  const QueryResult result = engine_->query(query);
  ASSERT_EQ(result.items.size(), 3u);
  EXPECT_EQ(result.items.front().at("created"), Value::number(7));
  EXPECT_EQ(result.items.front().at("sk"), Value::number(3));
}

TEST_F(DynamoDbEngineOnMoto, ScansEveryItemInPages) {
  for (int i = 0; i < 7; ++i) engine_->put({table_, key("s" + std::to_string(i), i)});
  ScanRequest scan{table_};
  scan.limit = 3;
  std::size_t seen = 0;
  int pages = 0;
  do {
    QueryResult page = engine_->scan(scan);
    seen += page.items.size();
    scan.exclusive_start_key = page.last_evaluated_key;
  } while (scan.exclusive_start_key && ++pages < 10);
  EXPECT_EQ(seen, 7u);
}

TEST_F(DynamoDbEngineOnMoto, CancellationReasonsAreDecodedPerAction) {
  engine_->put({table_, key("held", 1)});
  engine_->put({table_, key("held", 2)});
  const Error error = error_of([&] {
    engine_->transact_write({{
        PutRequest{table_, key("new", 1)},
        ConditionCheck{table_, key("held", 1), cond::not_exists("pk")},
        DeleteRequest{table_, key("held", 2), cond::exists("missing")},
        UpdateRequest{table_, key("held", 3), Update().set("x", Value::number(1))},
    }});
  });
  ASSERT_EQ(error.code(), ErrorCode::TransactionCanceled) << error.what();
  ASSERT_EQ(error.cancellation_reasons().size(), 4u);
  EXPECT_EQ(error.cancellation_reasons()[0].code, "None");
  EXPECT_EQ(error.cancellation_reasons()[1].code, "ConditionalCheckFailed");
  EXPECT_EQ(error.cancellation_reasons()[2].code, "ConditionalCheckFailed");
  EXPECT_EQ(error.cancellation_reasons()[3].code, "None");
  EXPECT_EQ(engine_->get({table_, key("new", 1)}), std::nullopt);
  EXPECT_TRUE(engine_->get({table_, key("held", 2)}).has_value());
}

TEST_F(DynamoDbEngineOnMoto, SendsTheClientRequestTokenItIsGiven) {
  engine_->transact_write({{PutRequest{table_, key("t", 1)}}, "token-of-the-caller"});
  engine_->transact_write({{PutRequest{table_, key("t", 2)}}});
  EXPECT_EQ(recorder_->transaction_tokens(),
            (std::vector<std::string>{"token-of-the-caller", ""}));
  EXPECT_TRUE(engine_->get({table_, key("t", 1)}).has_value());
  EXPECT_TRUE(engine_->get({table_, key("t", 2)}).has_value());
}

TEST_F(DynamoDbEngineOnMoto, InvalidRequestsAreRefusedBeforeAnyIo) {
  engine_->get({table_, key("warm", 1)});  // caches the description
  const std::size_t before = requests_sent();

  TransactWriteRequest too_many;
  for (std::size_t i = 0; i <= limits::kMaxTransactionActions; ++i) {
    too_many.actions.push_back(PutRequest{table_, key("many", static_cast<std::int64_t>(i))});
  }
  EXPECT_EQ(error_of([&] { engine_->transact_write(too_many); }).code(),
            ErrorCode::TransactionTooLarge);

  EXPECT_EQ(error_of([&] {
              engine_->transact_write({{PutRequest{table_, key("twice", 1)},
                                        DeleteRequest{table_, key("twice", 1)}}});
            }).code(),
            ErrorCode::ValidationError);

  const Item huge =
      with(key("huge", 1), "blob", Value::binary(std::string(limits::kMaxItemBytes, 'x')));
  EXPECT_EQ(error_of([&] { engine_->put({table_, huge}); }).code(), ErrorCode::ItemTooLarge);

  const Item partial_key = {{"pk", Value::string("no range key")}};
  EXPECT_EQ(error_of([&] { engine_->get({table_, partial_key}); }).code(),
            ErrorCode::ValidationError);

  EXPECT_EQ(requests_sent(), before);
}

TEST_F(DynamoDbEngineOnMoto, AnUpdateThatGrowsTheItemTooLargeIsItemTooLarge) {
  const std::string half(limits::kMaxItemBytes / 2 + 1024, 'x');
  engine_->put({table_, with(key("grow", 1), "a", Value::string(half))});
  const Error error = error_of([&] {
    engine_->update({table_, key("grow", 1), Update().set("b", Value::string(half))});
  });
  EXPECT_EQ(error.code(), ErrorCode::ItemTooLarge) << error.what();
}

TEST_F(DynamoDbEngineOnMoto, IsSafeToShareBetweenThreads) {
  auto shared = make_moto_dynamodb_engine();  // cold description cache
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 10; ++i) {
          const Item item = key("thread" + std::to_string(t), i);
          shared->put({table_, item});
          if (shared->get({table_, item}) != item) ++failures;
          shared->update({table_, key("counter", 0), Update().add("n", Value::number(1))});
        }
      } catch (const Error&) {
        ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(engine_->get({table_, key("counter", 0)})->at("n"), Value::number(40));
}

// An HttpClient that answers from a script instead of a server, for the
// responses no real server sends on demand: garbage, truncated bodies, each
// error type. DescribeTable always answers with a valid table "t".
class ScriptedHttpClient : public aws::HttpClient {
 public:
  void answer(long status, std::string body) {
    std::lock_guard lock(mutex_);
    status_ = status;
    body_ = std::move(body);
  }

  aws::HttpResponse send(const aws::HttpRequest& request) override {
    std::lock_guard lock(mutex_);
    if (header(request, "X-Amz-Target") == "DynamoDB_20120810.DescribeTable") {
      return {200, {}, R"({"Table":{"TableName":"t","TableStatus":"ACTIVE",)"
                       R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
                       R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}})"};
    }
    return {status_, {}, body_};
  }

 private:
  std::mutex mutex_;
  long status_ = 200;
  std::string body_;
};

class DynamoDbEngineDecoding : public ::testing::Test {
 protected:
  DynamoDbEngineDecoding() {
    DynamoDbOptions options;
    options.endpoint = "http://127.0.0.1:9";
    options.region = "us-east-1";
    options.credentials = aws::Credentials{"testing", "testing", ""};
    options.http = http_;
    engine_ = make_dynamodb_engine(options);
  }

  Error get_error(long status, std::string body) {
    http_->answer(status, std::move(body));
    return error_of([&] { engine_->get({"t", {{"pk", Value::string("a")}}}); });
  }
  Error transact_error(long status, std::string body, std::size_t actions) {
    http_->answer(status, std::move(body));
    TransactWriteRequest request;
    for (std::size_t i = 0; i < actions; ++i) {
      request.actions.push_back(PutRequest{"t", {{"pk", Value::string(std::to_string(i))}}});
    }
    return error_of([&] { engine_->transact_write(request); });
  }

  std::shared_ptr<ScriptedHttpClient> http_ = std::make_shared<ScriptedHttpClient>();
  std::unique_ptr<Engine> engine_;
};

TEST_F(DynamoDbEngineDecoding, DescribeTableIsParsed) {
  TableDescription expected;
  expected.name = "t";
  expected.key_schema.hash = {"pk", KeyType::S};
  EXPECT_EQ(engine_->describe("t"), expected);
}

TEST_F(DynamoDbEngineDecoding, GarbageIsMalformedResponseQuotingStatusAndBody) {
  for (const char* body : {"\x01\x02garbage\xff", "", R"({"Item":)", R"(["Item"])"}) {
    const Error error = get_error(200, body);
    EXPECT_EQ(error.code(), ErrorCode::MalformedResponse) << error.what();
    EXPECT_NE(error.message().find("HTTP 200"), std::string::npos) << error.message();
  }
  const Error quoted = get_error(200, "<html>oops</html>");
  EXPECT_NE(quoted.message().find("<html>oops</html>"), std::string::npos) << quoted.message();

  const Error not_dynamodb = get_error(404, "<html>Not Found</html>");
  EXPECT_EQ(not_dynamodb.code(), ErrorCode::MalformedResponse);
  EXPECT_NE(not_dynamodb.message().find("HTTP 404"), std::string::npos);
  EXPECT_NE(not_dynamodb.message().find("Not Found"), std::string::npos);
}

TEST_F(DynamoDbEngineDecoding, AWellFormedAnswerWithABadItemIsMalformedResponse) {
  const Error error = get_error(200, R"({"Item":{"pk":{"S":1}}})");
  EXPECT_EQ(error.code(), ErrorCode::MalformedResponse);
  EXPECT_NE(error.message().find("pk"), std::string::npos) << error.message();
  http_->answer(200, "{}");
  EXPECT_EQ(engine_->get({"t", {{"pk", Value::string("a")}}}), std::nullopt);
}

TEST_F(DynamoDbEngineDecoding, PagesWithoutItemsAreMalformedResponse) {
  http_->answer(200, R"({"Count":0})");
  QueryRequest query{"t"};
  query.hash_value = Value::string("a");
  EXPECT_EQ(error_of([&] { engine_->query(query); }).code(), ErrorCode::MalformedResponse);
  EXPECT_EQ(error_of([&] { engine_->scan({"t"}); }).code(), ErrorCode::MalformedResponse);
}

TEST_F(DynamoDbEngineDecoding, ErrorTypesMapToErrorCodes) {
  const std::string prefix = R"({"__type":"com.amazonaws.dynamodb.v20120810#)";
  const std::map<std::string, ErrorCode> cases = {
      {"ConditionalCheckFailedException", ErrorCode::ConditionalCheckFailed},
      {"ResourceNotFoundException", ErrorCode::ResourceNotFound},
      {"ResourceInUseException", ErrorCode::ResourceInUse},
      {"ValidationException", ErrorCode::ValidationError},
      {"SerializationException", ErrorCode::ValidationError},
      {"ProvisionedThroughputExceededException", ErrorCode::Throttled},
      {"ThrottlingException", ErrorCode::Throttled},
      {"RequestLimitExceeded", ErrorCode::Throttled},
      {"IdempotentParameterMismatchException", ErrorCode::IdempotentParameterMismatch},
      {"UnrecognizedClientException", ErrorCode::AccessDenied},
      {"InvalidSignatureException", ErrorCode::AccessDenied},
      {"AccessDeniedException", ErrorCode::AccessDenied},
      {"MissingAuthenticationTokenException", ErrorCode::AccessDenied},
  };
  for (const auto& [type, code] : cases) {
    const Error error = get_error(400, prefix + type + R"(","message":"said the server"})");
    EXPECT_EQ(error.code(), code) << type << ": " << error.what();
    EXPECT_NE(error.message().find("said the server"), std::string::npos) << error.message();
    EXPECT_NE(error.message().find(type), std::string::npos) << error.message();
  }
}

TEST_F(DynamoDbEngineDecoding, ItemSizeValidationIsItemTooLarge) {
  EXPECT_EQ(get_error(400, R"({"__type":"com.amazonaws.dynamodb.v20120810#ValidationException",)"
                           R"("message":"Item size has exceeded the maximum allowed size"})")
                .code(),
            ErrorCode::ItemTooLarge);
}

TEST_F(DynamoDbEngineDecoding, ServerErrorsAreServiceUnavailable) {
  EXPECT_EQ(get_error(500, R"({"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"})")
                .code(),
            ErrorCode::ServiceUnavailable);
  const Error gateway = get_error(503, "<html>Service Unavailable</html>");
  EXPECT_EQ(gateway.code(), ErrorCode::ServiceUnavailable);
  EXPECT_NE(gateway.message().find("HTTP 503"), std::string::npos);
}

TEST_F(DynamoDbEngineDecoding, TransactionConflictIsARetryableCancellation) {
  const Error error = get_error(
      400, R"({"__type":"com.amazonaws.dynamodb.v20120810#TransactionConflictException",)"
           R"("message":"Transaction is ongoing for the item"})");
  EXPECT_EQ(error.code(), ErrorCode::TransactionCanceled);
  ASSERT_EQ(error.cancellation_reasons().size(), 1u);
  EXPECT_EQ(error.cancellation_reasons()[0].code, "TransactionConflict");
}

TEST_F(DynamoDbEngineDecoding, CancellationReasonsMustMatchTheActions) {
  const std::string body =
      R"({"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",)"
      R"("Message":"Transaction cancelled [None, TransactionConflict]",)"
      R"("CancellationReasons":[{"Code":"None"},)"
      R"({"Code":"TransactionConflict","Message":"Transaction is ongoing"}]})";
  const Error decoded = transact_error(400, body, 2);
  ASSERT_EQ(decoded.code(), ErrorCode::TransactionCanceled);
  ASSERT_EQ(decoded.cancellation_reasons().size(), 2u);
  EXPECT_EQ(decoded.cancellation_reasons()[1].code, "TransactionConflict");
  EXPECT_EQ(decoded.cancellation_reasons()[1].message, "Transaction is ongoing");

  EXPECT_EQ(transact_error(400, body, 3).code(), ErrorCode::MalformedResponse);
  const std::string without_code =
      R"({"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",)"
      R"("CancellationReasons":[{"Message":"no code"}]})";
  EXPECT_EQ(transact_error(400, without_code, 1).code(), ErrorCode::MalformedResponse);
}

TEST(DynamoDbEngine, AnUnusableEndpointIsAConfigurationErrorAtConstruction) {
  DynamoDbOptions options;
  options.endpoint = "ftp://example.com";
  options.region = "us-east-1";
  options.credentials = aws::Credentials{"testing", "testing", ""};
  EXPECT_EQ(error_of([&] { make_dynamodb_engine(options); }).code(),
            ErrorCode::ConfigurationError);
}

}  // namespace
}  // namespace stowage::table
