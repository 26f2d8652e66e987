// transact_write_sequence on every engine: transactions commit in order,
// each all or nothing; one may be conditioned on what the one before it
// wrote; the sequence stops at the first that fails, keeping those before
// it and writing nothing of it or after it; client tokens keep a repeated
// sequence from applying twice.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "stowage/error.h"
#include "support/engines.h"
#include "table/engine.h"

namespace stowage::table {
namespace {

namespace cond = table::cond;

Value S(std::string s) { return Value::string(std::move(s)); }
Value N(std::int64_t n) { return Value::number(n); }

class SequenceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    engine_ = testing::make_engine(GetParam());
    TableDescription description;
    description.name = table_;
    description.key_schema.hash = {"pk", KeyType::S};
    description.key_schema.range = KeyAttribute{"sk", KeyType::S};
    engine_->create_table(description);
  }
  void TearDown() override { engine_->delete_table(table_); }

  Item key(const std::string& pk) const { return {{"pk", S(pk)}, {"sk", S("s")}}; }

  // Puts item `pk` and moves the counter from `version` to `version` + 1
  // (the first from "no counter").
  TransactWriteRequest step(const std::string& pk, std::int64_t version) const {
    UpdateRequest bump{.table = table_, .key = key("counter"),
                       .update = Update().set("version", N(version + 1))};
    bump.condition = version == 0 ? cond::not_exists("version")
                                  : cond::eq("version", N(version));
    PutRequest put{.table = table_, .item = key(pk)};
    put.condition = cond::not_exists("pk");
    return {.actions = {std::move(bump), std::move(put)}};
  }

  bool exists(const std::string& pk) const {
    return engine_->get({.table = table_, .key = key(pk), .consistent_read = true}).has_value();
  }

  std::int64_t counter_version() const {
    auto item = engine_->get({.table = table_, .key = key("counter"), .consistent_read = true});
    return item ? item->at("version").as_number().to_int64().value() : 0;
  }

  std::shared_ptr<Engine> engine_;
  const std::string table_ = testing::unique_table_name("sequence");
};

TEST_P(SequenceTest, CommitsEveryTransactionInOrderEachConditionedOnTheOneBefore) {
  const std::vector<TransactWriteRequest> sequence = {step("a", 0), step("b", 1), step("c", 2)};
  const SequenceResult result = engine_->transact_write_sequence(sequence);
  EXPECT_EQ(result.committed, 3u);
  EXPECT_FALSE(result.failure.has_value());
  EXPECT_TRUE(exists("a") && exists("b") && exists("c"));
  EXPECT_EQ(counter_version(), 3);
}

TEST_P(SequenceTest, StopsAtTheFirstFailureKeepingTheTransactionsBeforeIt) {
  // The third is conditioned on a version the second does not leave.
  const std::vector<TransactWriteRequest> sequence = {step("a", 0), step("b", 1), step("c", 7),
                                                      step("d", 3)};
  const SequenceResult result = engine_->transact_write_sequence(sequence);
  EXPECT_EQ(result.committed, 2u);
  ASSERT_TRUE(result.failure.has_value());
  EXPECT_EQ(result.failure->code(), ErrorCode::TransactionCanceled);
  ASSERT_EQ(result.failure->cancellation_reasons().size(), 2u);
  EXPECT_EQ(result.failure->cancellation_reasons()[0].code, "ConditionalCheckFailed");
  EXPECT_EQ(result.failure->cancellation_reasons()[1].code, "None");
  EXPECT_TRUE(exists("a") && exists("b"));
  EXPECT_FALSE(exists("c"));
  EXPECT_FALSE(exists("d"));
  EXPECT_EQ(counter_version(), 2);
}

TEST_P(SequenceTest, AnInvalidTransactionStopsTheSequenceBeforeAnyOfItsWrites) {
  TransactWriteRequest twice_one_item = {
      .actions = {PutRequest{.table = table_, .item = key("x")},
                  PutRequest{.table = table_, .item = key("x")}}};
  const std::vector<TransactWriteRequest> sequence = {step("a", 0), twice_one_item,
                                                      step("b", 1)};
  const SequenceResult result = engine_->transact_write_sequence(sequence);
  EXPECT_EQ(result.committed, 1u);
  ASSERT_TRUE(result.failure.has_value());
  EXPECT_EQ(result.failure->code(), ErrorCode::ValidationError);
  EXPECT_TRUE(exists("a"));
  EXPECT_FALSE(exists("x"));
  EXPECT_FALSE(exists("b"));
}

TEST_P(SequenceTest, AnEmptySequenceCommitsNothing) {
  const SequenceResult result = engine_->transact_write_sequence({});
  EXPECT_EQ(result.committed, 0u);
  EXPECT_FALSE(result.failure.has_value());
}

TEST_P(SequenceTest, TokensKeepARepeatedSequenceFromApplyingTwice) {
  if (GetParam() == "dynamodb") {
    GTEST_SKIP() << "moto ignores ClientRequestToken (README, Testing against moto)";
  }
  auto add = [&](const std::string& token) {
    return TransactWriteRequest{
        .actions = {UpdateRequest{.table = table_, .key = key("sum"),
                                  .update = Update().add("n", N(1))}},
        .client_request_token = token};
  };
  const std::vector<TransactWriteRequest> sequence = {add("token-1"), add("token-2")};
  EXPECT_EQ(engine_->transact_write_sequence(sequence).committed, 2u);
  EXPECT_EQ(engine_->transact_write_sequence(sequence).committed, 2u);
  auto item = engine_->get({.table = table_, .key = key("sum"), .consistent_read = true});
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(item->at("n").as_number().to_int64().value(), 2);
}

INSTANTIATE_TEST_SUITE_P(Engines, SequenceTest, ::testing::ValuesIn(testing::engine_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace stowage::table
