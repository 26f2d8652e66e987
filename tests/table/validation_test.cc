#include "table/validation.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "stowage/error.h"
#include "table/limits.h"

namespace stowage::table {
namespace {

Value S(std::string s) { return Value::string(std::move(s)); }
Value N(std::int64_t n) { return Value::number(n); }

TableDescription files_table() {
  return TableDescription{
      "files",
      KeySchema{{"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N}},
      {GlobalSecondaryIndex{"by_owner",
                            KeySchema{{"owner", KeyType::S},
                                      KeyAttribute{"created", KeyType::N}}}}};
}

TableDescription hash_only_table() {
  return TableDescription{"blobs", KeySchema{{"id", KeyType::S}, std::nullopt}, {}};
}

TableDescription string_range_table() {
  return TableDescription{
      "names", KeySchema{{"h", KeyType::S}, KeyAttribute{"r", KeyType::S}}, {}};
}

Item key(std::string pk, std::int64_t sk) {
  return Item{{"pk", S(std::move(pk))}, {"sk", N(sk)}};
}

// Runs `f`, which must throw `code` with every string of `needles` in the
// message.
void expect_error(const std::function<void()>& f, ErrorCode code,
                  std::initializer_list<std::string_view> needles) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << to_string(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (std::string_view needle : needles) {
      EXPECT_NE(e.message().find(needle), std::string::npos)
          << "\"" << needle << "\" not in: " << e.message();
    }
  }
}

TEST(ValidateKeyTest, AcceptsExactlyTheKey) {
  EXPECT_NO_THROW(validate_key(files_table(), key("a", 1)));
  EXPECT_NO_THROW(validate_key(hash_only_table(), Item{{"id", S("x")}}));
}

TEST(ValidateKeyTest, RejectsMissingExtraWrongTypedAndBlankAttributes) {
  TableDescription t = files_table();
  expect_error([&] { validate_key(t, Item{{"pk", S("a")}}); }, ErrorCode::ValidationError,
               {"files", "\"sk\"", "missing"});
  expect_error([&] { validate_key(t, Item{{"pk", S("a")}, {"sk", N(1)}, {"x", N(1)}}); },
               ErrorCode::ValidationError, {"files", "\"x\""});
  expect_error([&] { validate_key(t, Item{{"pk", N(1)}, {"sk", N(1)}}); },
               ErrorCode::ValidationError, {"files", "\"pk\"", "must be S, got N"});
  expect_error([&] { validate_key(t, Item{{"pk", S("a")}, {"sk", S("1")}}); },
               ErrorCode::ValidationError, {"\"sk\"", "must be N, got S"});
  expect_error([&] { validate_key(t, key("", 1)); }, ErrorCode::ValidationError,
               {"\"pk\"", "empty"});
  expect_error([&] { validate_key(hash_only_table(), Item{{"id", S("x")}, {"sk", N(1)}}); },
               ErrorCode::ValidationError, {"blobs", "\"sk\""});
}

TEST(ValidateKeyTest, EnforcesKeyLengthLimits) {
  TableDescription t = string_range_table();
  std::string hash_max(limits::kMaxHashKeyBytes, 'h');
  std::string range_max(limits::kMaxRangeKeyBytes, 'r');
  EXPECT_NO_THROW(validate_key(t, Item{{"h", S(hash_max)}, {"r", S(range_max)}}));
  expect_error([&] { validate_key(t, Item{{"h", S(hash_max + "h")}, {"r", S("r")}}); },
               ErrorCode::ValidationError, {"\"h\"", "2049", "2048"});
  expect_error([&] { validate_key(t, Item{{"h", S("h")}, {"r", S(range_max + "r")}}); },
               ErrorCode::ValidationError, {"\"r\"", "1025", "1024"});
}

TEST(ValidateItemTest, AcceptsAWellFormedItem) {
  Item item = key("a", 1);
  item["owner"] = S("alice");
  item["created"] = N(5);
  item["doc"] = Value::map({{"tags", Value::string_set({"x"})}});
  EXPECT_NO_THROW(validate_item(files_table(), item));
}

TEST(ValidateItemTest, RequiresTypedKeyAttributes) {
  expect_error([&] { validate_item(files_table(), Item{{"pk", S("a")}}); },
               ErrorCode::ValidationError, {"files", "\"sk\""});
  expect_error([&] { validate_item(files_table(), Item{{"pk", S("")}, {"sk", N(1)}}); },
               ErrorCode::ValidationError, {"\"pk\"", "empty"});
}

TEST(ValidateItemTest, IndexKeyAttributesMustHaveTheIndexType) {
  Item item = key("a", 1);
  item["owner"] = N(7);
  expect_error([&] { validate_item(files_table(), item); }, ErrorCode::ValidationError,
               {"by_owner", "\"owner\"", "must be S, got N"});
  item["owner"] = S("");
  expect_error([&] { validate_item(files_table(), item); }, ErrorCode::ValidationError,
               {"by_owner", "\"owner\"", "empty"});
  // An item without the index's attributes is simply not in the index.
  EXPECT_NO_THROW(validate_item(files_table(), key("a", 1)));
}

TEST(ValidateItemTest, RejectsEmptySetsAtAnyDepth) {
  Item top = key("a", 1);
  top["tags"] = Value::string_set({});
  expect_error([&] { validate_item(files_table(), top); }, ErrorCode::ValidationError,
               {"\"tags\"", "SS", "empty"});
  Item nested = key("a", 1);
  nested["doc"] = Value::list({Value::map({{"ids", Value::number_set({})}})});
  expect_error([&] { validate_item(files_table(), nested); }, ErrorCode::ValidationError,
               {"\"doc\"", "NS", "empty"});
}

TEST(ValidateItemTest, RejectsNestingBeyondDynamoDbsLimit) {
  auto nested = [](int levels) {
    Value v = N(1);
    for (int i = 0; i < levels; ++i) v = Value::list({v});
    Item item = key("a", 1);
    item["deep"] = v;
    return item;
  };
  EXPECT_NO_THROW(validate_item(files_table(), nested(limits::kMaxNestingDepth)));
  expect_error([&] { validate_item(files_table(), nested(limits::kMaxNestingDepth + 1)); },
               ErrorCode::ValidationError, {"\"deep\"", "32"});
}

TEST(ValidateItemTest, ItemTooLargeNamesSizeAndLimit) {
  Item item = key("a", 1);
  std::size_t base = item_size(item) + std::string("data").size();
  item["data"] = Value::binary(std::string(limits::kMaxItemBytes - base, 'x'));
  ASSERT_EQ(item_size(item), limits::kMaxItemBytes);
  EXPECT_NO_THROW(validate_item(files_table(), item));
  item["data"] = Value::binary(std::string(limits::kMaxItemBytes - base + 1, 'x'));
  expect_error([&] { validate_item(files_table(), item); }, ErrorCode::ItemTooLarge,
               {"files", "409601", "409600"});
}

TEST(ValidateRequestTest, ReturnValuesPerOperation) {
  TableDescription t = files_table();
  EXPECT_NO_THROW(validate(t, PutRequest{"files", key("a", 1), {}, ReturnValues::AllOld}));
  expect_error([&] { validate(t, PutRequest{"files", key("a", 1), {}, ReturnValues::AllNew}); },
               ErrorCode::ValidationError, {"files", "ReturnValues"});
  EXPECT_NO_THROW(validate(t, DeleteRequest{"files", key("a", 1), {}, ReturnValues::AllOld}));
  expect_error(
      [&] { validate(t, DeleteRequest{"files", key("a", 1), {}, ReturnValues::AllNew}); },
      ErrorCode::ValidationError, {"ReturnValues"});
  EXPECT_NO_THROW(validate(t, UpdateRequest{"files", key("a", 1), Update().set("v", N(1)),
                                            {}, ReturnValues::AllNew}));
}

TEST(ValidateRequestTest, RejectsMalformedConditions) {
  TableDescription t = files_table();
  auto put_if = [&](Condition c) {
    validate(t, PutRequest{"files", key("a", 1), std::move(c)});
  };
  EXPECT_NO_THROW(put_if(cond::not_exists("pk") || cond::between("n", N(1), N(2))));
  expect_error([&] { put_if(cond::lt("n", Value::map({}))); }, ErrorCode::ValidationError,
               {"\"n\"", "M"});
  expect_error([&] { put_if(cond::between("n", N(5), N(1))); }, ErrorCode::ValidationError,
               {"\"n\"", "lower bound"});
  expect_error([&] { put_if(cond::between("n", N(1), S("5"))); },
               ErrorCode::ValidationError, {"\"n\"", "types"});
  expect_error([&] { put_if(cond::begins_with("n", N(1))); }, ErrorCode::ValidationError,
               {"begins_with", "\"n\""});
  expect_error([&] { put_if(cond::eq("n", Value::string_set({}))); },
               ErrorCode::ValidationError, {"empty"});
  expect_error([&] { put_if(cond::exists("")); }, ErrorCode::ValidationError,
               {"attribute name"});
  expect_error([&] { put_if(Condition{condition_node::Not{}}); }, ErrorCode::ValidationError,
               {"NOT"});
  expect_error([&] { put_if(Condition{condition_node::And{}}); }, ErrorCode::ValidationError,
               {"AND"});
}

TEST(ValidateUpdateTest, AcceptsOrdinaryUpdates) {
  Update u;
  u.set("name", S("x")).add("count", N(1)).add("tags", Value::string_set({"a"}))
      .remove("old").set_if_not_exists("created", N(3)).set("owner", S("bob"));
  EXPECT_NO_THROW(validate(files_table(), UpdateRequest{"files", key("a", 1), u}));
}

TEST(ValidateUpdateTest, RejectsWhatDynamoDbRejects) {
  TableDescription t = files_table();
  auto update = [&](Update u) { validate(t, UpdateRequest{"files", key("a", 1), std::move(u)}); };
  expect_error([&] { update(Update()); }, ErrorCode::ValidationError, {"files", "no actions"});
  expect_error([&] { update(Update().set("pk", S("b"))); }, ErrorCode::ValidationError,
               {"\"pk\"", "key attribute"});
  expect_error([&] { update(Update().remove("sk")); }, ErrorCode::ValidationError, {"\"sk\""});
  expect_error([&] { update(Update().set("a", N(1)).remove("a")); },
               ErrorCode::ValidationError, {"\"a\"", "more than one action"});
  expect_error([&] { update(Update().add("a", S("x"))); }, ErrorCode::ValidationError,
               {"ADD", "\"a\"", "got S"});
  expect_error([&] { update(Update().set("a", Value::binary_set({}))); },
               ErrorCode::ValidationError, {"\"a\"", "empty"});
  expect_error([&] { update(Update().set("owner", N(1))); }, ErrorCode::ValidationError,
               {"by_owner", "\"owner\""});
  expect_error([&] { update(Update().add("owner", N(1))); }, ErrorCode::ValidationError,
               {"by_owner", "\"owner\""});
  EXPECT_NO_THROW(update(Update().add("created", N(1))));
  expect_error([&] { validate(t, UpdateRequest{"files", Item{{"pk", S("a")}}, Update().set("a", N(1))}); },
               ErrorCode::ValidationError, {"\"sk\""});
}

QueryRequest query(std::string index = "") {
  QueryRequest q;
  q.table = "files";
  q.index_name = std::move(index);
  q.hash_value = S("a");
  return q;
}

TEST(ValidateQueryTest, AcceptsTableAndIndexQueries) {
  TableDescription t = files_table();
  QueryRequest q = query();
  q.range_condition = RangeKeyCondition{KeyOperator::Between, N(1), N(5)};
  q.limit = 10;
  q.consistent_read = true;
  q.exclusive_start_key = key("a", 2);
  EXPECT_NO_THROW(validate(t, q));

  QueryRequest iq = query("by_owner");
  iq.range_condition = RangeKeyCondition{KeyOperator::Ge, N(1), std::nullopt};
  iq.exclusive_start_key = Item{{"pk", S("a")}, {"sk", N(1)}, {"owner", S("a")},
                                {"created", N(3)}};
  EXPECT_NO_THROW(validate(t, iq));

  QueryRequest sq{"names", "", S("h"), RangeKeyCondition{KeyOperator::BeginsWith, S("p")}};
  EXPECT_NO_THROW(validate(string_range_table(), sq));
}

TEST(ValidateQueryTest, RejectsBadIndexUse) {
  TableDescription t = files_table();
  expect_error([&] { validate(t, query("nope")); }, ErrorCode::ValidationError,
               {"files", "\"nope\""});
  QueryRequest q = query("by_owner");
  q.consistent_read = true;
  expect_error([&] { validate(t, q); }, ErrorCode::ValidationError,
               {"by_owner", "consistent"});
}

TEST(ValidateQueryTest, RejectsMistypedKeyConditions) {
  TableDescription t = files_table();
  QueryRequest q = query();
  q.hash_value = N(1);
  expect_error([&] { validate(t, q); }, ErrorCode::ValidationError, {"\"pk\"", "must be S"});
  q.hash_value = S("");
  expect_error([&] { validate(t, q); }, ErrorCode::ValidationError, {"\"pk\"", "empty"});

  auto with_range = [&](RangeKeyCondition c) {
    QueryRequest r = query();
    r.range_condition = std::move(c);
    validate(t, r);
  };
  expect_error([&] { with_range({KeyOperator::Eq, S("1")}); }, ErrorCode::ValidationError,
               {"\"sk\"", "must be N, got S"});
  expect_error([&] { with_range({KeyOperator::BeginsWith, N(1)}); },
               ErrorCode::ValidationError, {"begins_with", "\"sk\""});
  expect_error([&] { with_range({KeyOperator::Between, N(1)}); }, ErrorCode::ValidationError,
               {"BETWEEN", "upper"});
  expect_error([&] { with_range({KeyOperator::Between, N(5), N(1)}); },
               ErrorCode::ValidationError, {"BETWEEN", "lower bound"});
  expect_error([&] { with_range({KeyOperator::Between, N(1), S("5")}); },
               ErrorCode::ValidationError, {"upper bound", "must be N"});
  expect_error([&] { with_range({KeyOperator::Lt, N(1), N(5)}); }, ErrorCode::ValidationError,
               {"upper bound"});

  QueryRequest h{"blobs", "", S("x"), RangeKeyCondition{KeyOperator::Eq, S("y")}};
  expect_error([&] { validate(hash_only_table(), h); }, ErrorCode::ValidationError,
               {"blobs", "range key"});
}

TEST(ValidateQueryTest, RejectsBadLimitAndStartKey) {
  TableDescription t = files_table();
  QueryRequest q = query();
  q.limit = 0;
  expect_error([&] { validate(t, q); }, ErrorCode::ValidationError, {"limit"});

  QueryRequest missing = query("by_owner");
  missing.exclusive_start_key = key("a", 1);
  expect_error([&] { validate(t, missing); }, ErrorCode::ValidationError, {"\"owner\""});

  QueryRequest extra = query();
  extra.exclusive_start_key = Item{{"pk", S("a")}, {"sk", N(1)}, {"junk", N(1)}};
  expect_error([&] { validate(t, extra); }, ErrorCode::ValidationError, {"\"junk\""});

  QueryRequest wrong = query();
  wrong.exclusive_start_key = Item{{"pk", S("a")}, {"sk", S("1")}};
  expect_error([&] { validate(t, wrong); }, ErrorCode::ValidationError, {"\"sk\""});
}

TEST(ValidateScanTest, ChecksLimitAndStartKey) {
  TableDescription t = files_table();
  EXPECT_NO_THROW(validate(t, ScanRequest{"files", 5, key("a", 1)}));
  expect_error([&] { validate(t, ScanRequest{"files", 0}); }, ErrorCode::ValidationError,
               {"limit"});
  expect_error([&] { validate(t, ScanRequest{"files", {}, Item{{"pk", S("a")}}}); },
               ErrorCode::ValidationError, {"\"sk\""});
}

class ValidateTransactionTest : public ::testing::Test {
 protected:
  const TableDescription& table_of(std::string_view name) {
    if (name == files_.name) return files_;
    if (name == blobs_.name) return blobs_;
    throw Error(ErrorCode::ResourceNotFound, "no table " + std::string(name));
  }
  void check(const TransactWriteRequest& request) {
    validate(request, [this](std::string_view name) -> const TableDescription& {
      return table_of(name);
    });
  }

  TableDescription files_ = files_table();
  TableDescription blobs_ = hash_only_table();
};

TEST_F(ValidateTransactionTest, AcceptsOneActionPerItem) {
  TransactWriteRequest request;
  request.actions.push_back(PutRequest{"files", key("a", 1)});
  request.actions.push_back(UpdateRequest{"files", key("a", 2), Update().add("n", N(1))});
  request.actions.push_back(DeleteRequest{"files", key("b", 1)});
  request.actions.push_back(ConditionCheck{"files", key("c", 1), cond::exists("pk")});
  // The same key values in another table are another item.
  request.actions.push_back(PutRequest{"blobs", Item{{"id", S("a")}}});
  EXPECT_NO_THROW(check(request));
}

TEST_F(ValidateTransactionTest, EnforcesActionCount) {
  expect_error([&] { check(TransactWriteRequest{}); }, ErrorCode::ValidationError,
               {"at least one"});
  TransactWriteRequest request;
  for (int i = 0; i < 100; ++i) request.actions.push_back(DeleteRequest{"files", key("a", i)});
  EXPECT_NO_THROW(check(request));
  request.actions.push_back(DeleteRequest{"files", key("a", 100)});
  expect_error([&] { check(request); }, ErrorCode::TransactionTooLarge, {"101", "100"});
}

TEST_F(ValidateTransactionTest, RejectsTwoActionsOnOneItem) {
  TransactWriteRequest request;
  request.actions.push_back(PutRequest{"files", Item{{"pk", S("a")}, {"sk", N(1)}, {"v", N(1)}}});
  request.actions.push_back(DeleteRequest{"files", key("b", 1)});
  request.actions.push_back(
      UpdateRequest{"files", Item{{"pk", S("a")}, {"sk", Value::number(Number::parse("1.0"))}},
                    Update().set("v", N(2))});
  expect_error([&] { check(request); }, ErrorCode::ValidationError,
               {"1 and 3", "S \"a\"", "files"});
}

TEST_F(ValidateTransactionTest, ValidatesEveryActionAgainstItsTable) {
  TransactWriteRequest bad_return;
  bad_return.actions.push_back(DeleteRequest{"files", key("a", 1), {}, ReturnValues::AllOld});
  expect_error([&] { check(bad_return); }, ErrorCode::ValidationError,
               {"action 1", "ReturnValues"});

  TransactWriteRequest bad_key;
  bad_key.actions.push_back(PutRequest{"files", key("a", 1)});
  bad_key.actions.push_back(PutRequest{"blobs", key("a", 1)});
  expect_error([&] { check(bad_key); }, ErrorCode::ValidationError, {"action 2", "blobs"});

  TransactWriteRequest too_big;
  Item big = key("a", 1);
  big["data"] = Value::binary(std::string(limits::kMaxItemBytes, 'x'));
  too_big.actions.push_back(PutRequest{"files", big});
  expect_error([&] { check(too_big); }, ErrorCode::ItemTooLarge, {"action 1"});

  TransactWriteRequest unknown;
  unknown.actions.push_back(ConditionCheck{"nope", key("a", 1), cond::exists("pk")});
  expect_error([&] { check(unknown); }, ErrorCode::ResourceNotFound, {"nope"});

  TransactWriteRequest bad_condition;
  bad_condition.actions.push_back(
      ConditionCheck{"files", key("a", 1), cond::between("n", N(2), N(1))});
  expect_error([&] { check(bad_condition); }, ErrorCode::ValidationError, {"BETWEEN"});
}

TEST(KeyOfTest, ExtractsTheKeyAttributes) {
  Item item = key("a", 1);
  item["owner"] = S("x");
  EXPECT_EQ(key_of(files_table(), item), key("a", 1));
  EXPECT_EQ(key_of(hash_only_table(), Item{{"id", S("i")}, {"v", N(1)}}),
            (Item{{"id", S("i")}}));
  expect_error([&] { key_of(files_table(), Item{{"pk", S("a")}}); },
               ErrorCode::ValidationError, {"\"sk\""});
}

}  // namespace
}  // namespace stowage::table
