#include "table/expression_renderer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "stowage/error.h"

namespace stowage::table {
namespace {

using Names = std::map<std::string, std::string>;

Condition all_of(std::vector<Condition> operands) {
  return Condition{condition_node::And{std::move(operands)}};
}
Condition any_of(std::vector<Condition> operands) {
  return Condition{condition_node::Or{std::move(operands)}};
}

TEST(ExpressionRenderer, RendersEachConditionWithAliases) {
  struct Case {
    Condition condition;
    const char* expression;
  };
  const Value one = Value::number(1);
  const Case cases[] = {
      {cond::exists("a"), "attribute_exists(#n0)"},
      {cond::not_exists("a"), "attribute_not_exists(#n0)"},
      {cond::eq("a", one), "#n0 = :v0"},
      {cond::ne("a", one), "#n0 <> :v0"},
      {cond::lt("a", one), "#n0 < :v0"},
      {cond::le("a", one), "#n0 <= :v0"},
      {cond::gt("a", one), "#n0 > :v0"},
      {cond::ge("a", one), "#n0 >= :v0"},
      {cond::between("a", one, Value::number(9)), "#n0 BETWEEN :v0 AND :v1"},
      {cond::begins_with("a", Value::string("p")), "begins_with(#n0, :v0)"},
      {cond::contains("a", Value::string("p")), "contains(#n0, :v0)"},
      {!cond::exists("a"), "(NOT attribute_exists(#n0))"},
  };
  for (const Case& c : cases) {
    ExpressionRenderer renderer;
    EXPECT_EQ(renderer.condition(c.condition), c.expression);
    EXPECT_EQ(renderer.names(), (Names{{"#n0", "a"}}));
  }
}

TEST(ExpressionRenderer, ValuesKeepTheirOrderAndTypes) {
  ExpressionRenderer renderer;
  EXPECT_EQ(renderer.condition(cond::between("a", Value::string("lo"), Value::string("hi"))),
            "#n0 BETWEEN :v0 AND :v1");
  ASSERT_EQ(renderer.values().size(), 2u);
  EXPECT_EQ(renderer.values()[0].first, ":v0");
  EXPECT_EQ(renderer.values()[0].second, Value::string("lo"));
  EXPECT_EQ(renderer.values()[1].first, ":v1");
  EXPECT_EQ(renderer.values()[1].second, Value::string("hi"));
}

TEST(ExpressionRenderer, NestsJunctionsInParentheses) {
  ExpressionRenderer renderer;
  const Condition condition =
      all_of({cond::eq("a", Value::number(1)),
              any_of({cond::lt("b", Value::number(2)), !cond::exists("c")}),
              !all_of({cond::exists("d"), cond::exists("e")})});
  EXPECT_EQ(renderer.condition(condition),
            "(#n0 = :v0 AND (#n1 < :v1 OR (NOT attribute_exists(#n2))) AND "
            "(NOT (attribute_exists(#n3) AND attribute_exists(#n4))))");
  EXPECT_EQ(renderer.names(),
            (Names{{"#n0", "a"}, {"#n1", "b"}, {"#n2", "c"}, {"#n3", "d"}, {"#n4", "e"}}));
  EXPECT_EQ(renderer.values().size(), 2u);
}

TEST(ExpressionRenderer, ARepeatedNameSharesOneAliasButValuesDoNot) {
  ExpressionRenderer renderer;
  EXPECT_EQ(renderer.condition(cond::exists("a") && cond::eq("a", Value::number(1)) &&
                               cond::ne("a", Value::number(1))),
            "(attribute_exists(#n0) AND #n0 = :v0 AND #n0 <> :v1)");
  EXPECT_EQ(renderer.names(), (Names{{"#n0", "a"}}));
  EXPECT_EQ(renderer.values().size(), 2u);
}

TEST(ExpressionRenderer, AnyAttributeNameIsOnlyEverAnAlias) {
  ExpressionRenderer renderer;
  const std::string expression = renderer.condition(
      cond::exists("a.b") && cond::exists("#x") && cond::exists("size") &&
      cond::exists("naïve 名前") && cond::exists(":v0") && cond::exists("a b)"));
  EXPECT_EQ(expression,
            "(attribute_exists(#n0) AND attribute_exists(#n1) AND attribute_exists(#n2) AND "
            "attribute_exists(#n3) AND attribute_exists(#n4) AND attribute_exists(#n5))");
  EXPECT_EQ(renderer.names(), (Names{{"#n0", "a.b"},
                                     {"#n1", "#x"},
                                     {"#n2", "size"},
                                     {"#n3", "naïve 名前"},
                                     {"#n4", ":v0"},
                                     {"#n5", "a b)"}}));
}

TEST(ExpressionRenderer, EmptyJunctionsAndBadNotAreValidationErrors) {
  for (const Condition& condition :
       {all_of({}), any_of({}),
        Condition{condition_node::Not{{cond::exists("a"), cond::exists("b")}}}}) {
    ExpressionRenderer renderer;
    try {
      renderer.condition(condition);
      FAIL() << "rendered an invalid condition";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::ValidationError);
    }
  }
}

TEST(ExpressionRenderer, GroupsUpdateActionsIntoClausesInRequestOrder) {
  Update update;
  update.remove("gone")
      .set("a", Value::string("x"))
      .add("count", Value::number(1))
      .set_if_not_exists("created", Value::number(7))
      .remove("old")
      .add("tags", Value::string_set({"t"}));
  ExpressionRenderer renderer;
  EXPECT_EQ(renderer.update(update),
            "SET #n1 = :v0, #n3 = if_not_exists(#n3, :v2) ADD #n2 :v1, #n5 :v3 "
            "REMOVE #n0, #n4");
  EXPECT_EQ(renderer.names(), (Names{{"#n0", "gone"},
                                     {"#n1", "a"},
                                     {"#n2", "count"},
                                     {"#n3", "created"},
                                     {"#n4", "old"},
                                     {"#n5", "tags"}}));
  ASSERT_EQ(renderer.values().size(), 4u);
  EXPECT_EQ(renderer.values()[2].second, Value::number(7));
}

TEST(ExpressionRenderer, SingleClauseUpdates) {
  {
    ExpressionRenderer renderer;
    EXPECT_EQ(renderer.update(Update().remove("a").remove("b")), "REMOVE #n0, #n1");
    EXPECT_TRUE(renderer.values().empty());
  }
  {
    ExpressionRenderer renderer;
    EXPECT_EQ(renderer.update(Update().add("n", Value::number(-2))), "ADD #n0 :v0");
  }
}

TEST(ExpressionRenderer, UpdateAndConditionShareOneAliasSpace) {
  ExpressionRenderer renderer;
  EXPECT_EQ(renderer.update(Update().add("count", Value::number(1))), "ADD #n0 :v0");
  EXPECT_EQ(renderer.condition(cond::exists("count") && cond::lt("count", Value::number(10))),
            "(attribute_exists(#n0) AND #n0 < :v1)");
  EXPECT_EQ(renderer.names(), (Names{{"#n0", "count"}}));
  EXPECT_EQ(renderer.values().size(), 2u);
}

TEST(ExpressionRenderer, KeyConditions) {
  const Value h = Value::string("h");
  const Value r = Value::number(5);
  struct Case {
    std::optional<RangeKeyCondition> range;
    const char* expression;
  };
  const Case cases[] = {
      {std::nullopt, "#n0 = :v0"},
      {RangeKeyCondition{KeyOperator::Eq, r, std::nullopt}, "#n0 = :v0 AND #n1 = :v1"},
      {RangeKeyCondition{KeyOperator::Lt, r, std::nullopt}, "#n0 = :v0 AND #n1 < :v1"},
      {RangeKeyCondition{KeyOperator::Le, r, std::nullopt}, "#n0 = :v0 AND #n1 <= :v1"},
      {RangeKeyCondition{KeyOperator::Gt, r, std::nullopt}, "#n0 = :v0 AND #n1 > :v1"},
      {RangeKeyCondition{KeyOperator::Ge, r, std::nullopt}, "#n0 = :v0 AND #n1 >= :v1"},
      {RangeKeyCondition{KeyOperator::Between, r, Value::number(9)},
       "#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2"},
      {RangeKeyCondition{KeyOperator::BeginsWith, Value::string("p"), std::nullopt},
       "#n0 = :v0 AND begins_with(#n1, :v1)"},
  };
  for (const Case& c : cases) {
    ExpressionRenderer renderer;
    EXPECT_EQ(renderer.key_condition("pk", h, "sk", c.range), c.expression);
    EXPECT_EQ(renderer.names().at("#n0"), "pk");
    if (c.range) {
      EXPECT_EQ(renderer.names().at("#n1"), "sk");
    }
    EXPECT_EQ(renderer.values().front().second, h);
  }
}

}  // namespace
}  // namespace stowage::table
