#include "table/evaluation.h"

#include <gtest/gtest.h>

#include "stowage/error.h"

namespace stowage::table {
namespace {

Value S(std::string s) { return Value::string(std::move(s)); }
Value N(std::int64_t n) { return Value::number(n); }
Value B(std::string b) { return Value::binary(std::move(b)); }

const Item kItem{
    {"name", S("report.pdf")},
    {"size", N(10)},
    {"digest", B("\x01\x02\x03")},
    {"done", Value::boolean(false)},
    {"tags", Value::string_set({"a", "b"})},
    {"sizes", Value::number_set({Number(1), Number(2)})},
    {"blobs", Value::binary_set({"x"})},
    {"list", Value::list({S("one"), N(2)})},
    {"meta", Value::map({{"k", S("v")}})},
};

bool eval(const Condition& c) { return evaluate(c, &kItem); }

TEST(EvaluateTest, ExistenceChecks) {
  EXPECT_TRUE(eval(cond::exists("name")));
  EXPECT_FALSE(eval(cond::exists("missing")));
  EXPECT_TRUE(eval(cond::not_exists("missing")));
  EXPECT_FALSE(eval(cond::not_exists("name")));
  EXPECT_FALSE(evaluate(cond::exists("name"), nullptr));
  EXPECT_TRUE(evaluate(cond::not_exists("name"), nullptr));
}

TEST(EvaluateTest, EqualityIsDeepForAnyType) {
  EXPECT_TRUE(eval(cond::eq("name", S("report.pdf"))));
  EXPECT_TRUE(eval(cond::eq("size", Value::number(Number::parse("10.0")))));
  EXPECT_FALSE(eval(cond::eq("size", S("10"))));
  EXPECT_TRUE(eval(cond::eq("meta", Value::map({{"k", S("v")}}))));
  EXPECT_TRUE(eval(cond::eq("tags", Value::string_set({"b", "a"}))));
  EXPECT_TRUE(eval(cond::eq("list", Value::list({S("one"), N(2)}))));
  EXPECT_FALSE(eval(cond::eq("list", Value::list({N(2), S("one")}))));
  EXPECT_TRUE(eval(cond::ne("size", N(11))));
  EXPECT_FALSE(eval(cond::ne("size", N(10))));
  EXPECT_TRUE(eval(cond::ne("size", S("10"))));
}

TEST(EvaluateTest, MissingAttributeComparesFalseExceptNotEqual) {
  EXPECT_FALSE(eval(cond::eq("missing", N(1))));
  EXPECT_TRUE(eval(cond::ne("missing", N(1))));
  EXPECT_FALSE(eval(cond::lt("missing", N(1))));
  EXPECT_FALSE(eval(cond::ge("missing", N(1))));
  EXPECT_FALSE(eval(cond::between("missing", N(0), N(5))));
  EXPECT_FALSE(eval(cond::begins_with("missing", S(""))));
  EXPECT_FALSE(eval(cond::contains("missing", S("a"))));
  EXPECT_TRUE(evaluate(cond::ne("x", N(1)), nullptr));
  EXPECT_FALSE(evaluate(cond::eq("x", N(1)), nullptr));
}

TEST(EvaluateTest, OrderingComparisons) {
  EXPECT_TRUE(eval(cond::gt("size", N(9))));   // numeric, not "10" < "9"
  EXPECT_FALSE(eval(cond::gt("size", N(10))));
  EXPECT_TRUE(eval(cond::ge("size", N(10))));
  EXPECT_TRUE(eval(cond::lt("size", N(11))));
  EXPECT_TRUE(eval(cond::le("size", N(10))));
  EXPECT_FALSE(eval(cond::le("size", N(9))));
  EXPECT_TRUE(eval(cond::lt("name", S("s"))));
  EXPECT_TRUE(eval(cond::gt("name", S("report"))));
  EXPECT_TRUE(eval(cond::lt("digest", B("\x01\x02\x04"))));
  EXPECT_TRUE(eval(cond::gt("digest", B("\x01\x02"))));
}

TEST(EvaluateTest, OrderingAcrossTypesIsFalse) {
  EXPECT_FALSE(eval(cond::lt("size", S("99"))));
  EXPECT_FALSE(eval(cond::gt("size", S("1"))));
  EXPECT_FALSE(eval(cond::lt("name", B("zzz"))));
  EXPECT_FALSE(eval(cond::lt("tags", Value::string_set({"z"}))));
  EXPECT_FALSE(eval(cond::ge("done", Value::boolean(false))));
}

TEST(EvaluateTest, BetweenIsInclusive) {
  EXPECT_TRUE(eval(cond::between("size", N(10), N(10))));
  EXPECT_TRUE(eval(cond::between("size", N(1), N(100))));
  EXPECT_FALSE(eval(cond::between("size", N(11), N(100))));
  EXPECT_FALSE(eval(cond::between("size", N(1), N(9))));
  EXPECT_TRUE(eval(cond::between("name", S("a"), S("s"))));
  EXPECT_FALSE(eval(cond::between("size", S("0"), S("9"))));
}

TEST(EvaluateTest, BeginsWith) {
  EXPECT_TRUE(eval(cond::begins_with("name", S("rep"))));
  EXPECT_TRUE(eval(cond::begins_with("name", S(""))));
  EXPECT_TRUE(eval(cond::begins_with("name", S("report.pdf"))));
  EXPECT_FALSE(eval(cond::begins_with("name", S("report.pdf!"))));
  EXPECT_FALSE(eval(cond::begins_with("name", S("port"))));
  EXPECT_TRUE(eval(cond::begins_with("digest", B("\x01"))));
  EXPECT_FALSE(eval(cond::begins_with("digest", S("\x01"))));
  EXPECT_FALSE(eval(cond::begins_with("size", S("1"))));
}

TEST(EvaluateTest, Contains) {
  EXPECT_TRUE(eval(cond::contains("name", S("port"))));
  EXPECT_FALSE(eval(cond::contains("name", S("xls"))));
  EXPECT_TRUE(eval(cond::contains("tags", S("a"))));
  EXPECT_FALSE(eval(cond::contains("tags", S("c"))));
  EXPECT_TRUE(eval(cond::contains("sizes", Value::number(Number::parse("2.0")))));
  EXPECT_FALSE(eval(cond::contains("sizes", S("2"))));
  EXPECT_TRUE(eval(cond::contains("blobs", B("x"))));
  EXPECT_FALSE(eval(cond::contains("blobs", S("x"))));
  EXPECT_TRUE(eval(cond::contains("list", N(2))));
  EXPECT_FALSE(eval(cond::contains("list", S("2"))));
  EXPECT_FALSE(eval(cond::contains("size", N(1))));
  EXPECT_FALSE(eval(cond::contains("meta", S("k"))));
}

TEST(EvaluateTest, LogicalOperators) {
  Condition yes = cond::exists("name");
  Condition no = cond::exists("missing");
  EXPECT_TRUE(eval(yes && yes));
  EXPECT_FALSE(eval(yes && no));
  EXPECT_TRUE(eval(yes || no));
  EXPECT_FALSE(eval(no || no));
  EXPECT_FALSE(eval(!yes));
  EXPECT_TRUE(eval(!no));
  EXPECT_TRUE(eval(!(no || no) && (yes || no) && !!yes));
  EXPECT_TRUE(evaluate(cond::not_exists("pk") || cond::eq("v", N(1)), nullptr));
}

TEST(EvaluateTest, JunctionsStayFlat) {
  Condition c = cond::exists("a") && cond::exists("b") && cond::exists("c");
  const auto* all = std::get_if<condition_node::And>(&c.node);
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->operands.size(), 3u);
  Condition d = (cond::exists("a") || cond::exists("b")) && cond::exists("c");
  const auto* mixed = std::get_if<condition_node::And>(&d.node);
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(mixed->operands.size(), 2u);
}

TEST(EvaluateTest, TellsAConditionOnKeyAttributesAlone) {
  const KeySchema keys{{"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N}};
  EXPECT_TRUE(names_only_key_attributes(cond::not_exists("pk"), keys));
  EXPECT_TRUE(names_only_key_attributes(cond::exists("sk"), keys));
  EXPECT_TRUE(names_only_key_attributes(
      !(cond::eq("pk", S("a")) || cond::exists("sk")) && cond::exists("pk"), keys));
  EXPECT_FALSE(names_only_key_attributes(cond::exists("v"), keys));
  EXPECT_FALSE(names_only_key_attributes(cond::exists("pk") && cond::eq("v", N(1)), keys));
  EXPECT_FALSE(names_only_key_attributes(!cond::exists("v"), keys));
  const KeySchema hash_only{{"pk", KeyType::S}, std::nullopt};
  EXPECT_FALSE(names_only_key_attributes(cond::exists("sk"), hash_only));
}

TEST(EvaluateTest, NotWithoutExactlyOneOperandIsRejected) {
  Condition broken{condition_node::Not{}};
  EXPECT_THROW(eval(broken), Error);
}

TEST(ApplyTest, SetAndSetIfNotExists) {
  Item item{{"pk", S("k")}, {"a", N(1)}};
  table::apply_update(Update().set("a", S("x")).set("b", N(2)), item);
  EXPECT_EQ(item.at("a"), S("x"));
  EXPECT_EQ(item.at("b"), N(2));
  table::apply_update(Update().set_if_not_exists("a", S("y")).set_if_not_exists("c", N(3)), item);
  EXPECT_EQ(item.at("a"), S("x"));
  EXPECT_EQ(item.at("c"), N(3));
}

TEST(ApplyTest, AddNumbersExactlyWithMissingAsZero) {
  Item item{{"pk", S("k")}, {"count", Value::number(Number::parse("9223372036854775807"))}};
  table::apply_update(Update().add("count", N(1)).add("fresh", N(-5)), item);
  EXPECT_EQ(item.at("count").as_number().to_string(), "9223372036854775808");
  EXPECT_EQ(item.at("fresh"), N(-5));
  table::apply_update(Update().add("count", Value::number(Number::parse("-0.5"))), item);
  EXPECT_EQ(item.at("count").as_number().to_string(), "9223372036854775807.5");
}

TEST(ApplyTest, AddSetsIsUnion) {
  Item item{{"tags", Value::string_set({"a", "b"})}};
  table::apply_update(Update()
            .add("tags", Value::string_set({"b", "c"}))
            .add("ids", Value::number_set({Number(1)}))
            .add("bs", Value::binary_set({"z"})),
        item);
  EXPECT_EQ(item.at("tags"), Value::string_set({"a", "b", "c"}));
  EXPECT_EQ(item.at("ids"), Value::number_set({Number(1)}));
  table::apply_update(Update().add("ids", Value::number_set({Number(2), Number(1)})), item);
  EXPECT_EQ(item.at("ids"), Value::number_set({Number(1), Number(2)}));
  table::apply_update(Update().add("bs", Value::binary_set({"y"})), item);
  EXPECT_EQ(item.at("bs"), Value::binary_set({"y", "z"}));
}

void expect_add_rejected(Item item, const Update& update, std::string_view attribute) {
  Item before = item;
  try {
    table::apply_update(update, item);
    ADD_FAILURE() << "update applied";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ValidationError);
    EXPECT_NE(e.message().find("\"" + std::string(attribute) + "\""), std::string::npos)
        << e.message();
  }
  EXPECT_EQ(item, before) << "a failed update changed the item";
}

TEST(ApplyTest, AddTypeMismatchNamesTheAttributeAndChangesNothing) {
  Item item{{"name", S("x")}, {"n", N(1)}, {"tags", Value::string_set({"a"})}};
  expect_add_rejected(item, Update().set("z", N(1)).add("name", N(1)), "name");
  expect_add_rejected(item, Update().add("n", Value::string_set({"a"})), "n");
  expect_add_rejected(item, Update().add("tags", N(1)), "tags");
  expect_add_rejected(item, Update().add("tags", Value::number_set({Number(1)})), "tags");
  expect_add_rejected(item, Update().add("new", S("x")), "new");
  expect_add_rejected(item, Update().add("new", Value::list({})), "new");
  Item full{{"n", Value::number(Number::parse(std::string(38, '9')))}};
  expect_add_rejected(full, Update().add("n", Value::number(Number::parse("0.1"))), "n");
}

TEST(ApplyTest, RemoveIsANoOpWhenAbsent) {
  Item item{{"pk", S("k")}, {"a", N(1)}};
  table::apply_update(Update().remove("a").remove("never"), item);
  EXPECT_EQ(item, (Item{{"pk", S("k")}}));
}

TEST(ApplyTest, ActionsApplyInOrder) {
  Item item;
  table::apply_update(Update().add("n", N(2)).set("m", N(5)), item);
  EXPECT_EQ(item, (Item{{"n", N(2)}, {"m", N(5)}}));
}

}  // namespace
}  // namespace stowage::table
