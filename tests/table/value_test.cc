#include "table/value.h"

#include <gtest/gtest.h>

#include "stowage/error.h"

namespace stowage::table {
namespace {

TEST(ValueTest, DefaultIsNull) {
  Value v;
  EXPECT_EQ(v.type(), Type::NUL);
  EXPECT_EQ(v, Value::null());
  EXPECT_EQ(type_name(v.type()), "NULL");
}

TEST(ValueTest, AccessorsReturnWhatWasStored) {
  EXPECT_EQ(Value::string("abc").as_string(), "abc");
  EXPECT_EQ(Value::number(42).as_number(), Number(42));
  EXPECT_EQ(Value::number(Number::parse("1.5")).as_number().to_string(), "1.5");
  EXPECT_EQ(Value::binary(std::string("\0\1", 2)).as_binary(), std::string("\0\1", 2));
  EXPECT_TRUE(Value::boolean(true).as_bool());
  EXPECT_FALSE(Value::boolean(false).as_bool());
  Item m{{"k", Value::string("v")}};
  EXPECT_EQ(Value::map(m).as_map(), m);
  List l{Value::number(1), Value::string("x")};
  EXPECT_EQ(Value::list(l).as_list(), l);
  EXPECT_EQ(Value::string_set({"a", "b"}).as_string_set(),
            (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(Value::number_set({Number(1), Number(2)}).as_number_set(),
            (std::set<Number>{Number(1), Number(2)}));
  EXPECT_EQ(Value::binary_set({"x"}).as_binary_set(), (std::set<std::string>{"x"}));
}

TEST(ValueTest, TypesAreReportedWithDynamoDbDescriptors) {
  EXPECT_EQ(type_name(Value::string("").type()), "S");
  EXPECT_EQ(type_name(Value::number(0).type()), "N");
  EXPECT_EQ(type_name(Value::binary("").type()), "B");
  EXPECT_EQ(type_name(Value::boolean(true).type()), "BOOL");
  EXPECT_EQ(type_name(Value::map({}).type()), "M");
  EXPECT_EQ(type_name(Value::list({}).type()), "L");
  EXPECT_EQ(type_name(Value::string_set({"a"}).type()), "SS");
  EXPECT_EQ(type_name(Value::number_set({Number(1)}).type()), "NS");
  EXPECT_EQ(type_name(Value::binary_set({"a"}).type()), "BS");
}

TEST(ValueTest, WrongTypeAccessThrowsNamingBothTypes) {
  try {
    (void)Value::string("12").as_number();
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ValidationError);
    EXPECT_EQ(e.message(), "expected N, got S");
  }
  // S and B share storage but are different types.
  EXPECT_THROW((void)Value::binary("x").as_string(), Error);
  EXPECT_THROW((void)Value::string("x").as_binary(), Error);
  EXPECT_THROW((void)Value::string_set({"x"}).as_binary_set(), Error);
  EXPECT_THROW((void)Value::null().as_bool(), Error);
  EXPECT_THROW((void)Value::list({}).as_map(), Error);
}

TEST(ValueTest, EqualityIsDeepAndTypeAware) {
  EXPECT_EQ(Value::number(Number::parse("1.0")), Value::number(1));
  EXPECT_NE(Value::string("1"), Value::number(1));
  EXPECT_NE(Value::string("x"), Value::binary("x"));
  EXPECT_NE(Value::string_set({"x"}), Value::binary_set({"x"}));
  Item a{{"n", Value::list({Value::map({{"x", Value::number(1)}})})}};
  Item b{{"n", Value::list({Value::map({{"x", Value::number(1)}})})}};
  Item c{{"n", Value::list({Value::map({{"x", Value::number(2)}})})}};
  EXPECT_EQ(Value::map(a), Value::map(b));
  EXPECT_NE(Value::map(a), Value::map(c));
  EXPECT_NE(Value::list({Value::number(1), Value::number(2)}),
            Value::list({Value::number(2), Value::number(1)}));
}

TEST(ValueTest, StorageSizeFollowsDynamoDb) {
  EXPECT_EQ(Value::string("hello").storage_size(), 5u);
  EXPECT_EQ(Value::string("\xC3\xA9").storage_size(), 2u);  // é is 2 UTF-8 bytes
  EXPECT_EQ(Value::binary(std::string(10, '\0')).storage_size(), 10u);
  EXPECT_EQ(Value::number(123).storage_size(), 3u);
  EXPECT_EQ(Value::boolean(true).storage_size(), 1u);
  EXPECT_EQ(Value::null().storage_size(), 1u);
  EXPECT_EQ(Value::map({}).storage_size(), 3u);
  EXPECT_EQ(Value::list({}).storage_size(), 3u);
  // 3 + (1 + |"ab"| + |"xyz"|) + (1 + |"c"| + 1 for BOOL)
  EXPECT_EQ(Value::map({{"ab", Value::string("xyz")}, {"c", Value::boolean(false)}})
                .storage_size(),
            3u + 6u + 3u);
  // 3 + (1 + 3) + (1 + 3)
  EXPECT_EQ(Value::list({Value::string("abc"), Value::list({})}).storage_size(), 11u);
  EXPECT_EQ(Value::string_set({"a", "bcd"}).storage_size(), 4u);
  EXPECT_EQ(Value::binary_set({"xy"}).storage_size(), 2u);
  EXPECT_EQ(Value::number_set({Number(1), Number(123)}).storage_size(), 5u);
}

TEST(ValueTest, ItemSizeCountsNamesAndValues) {
  Item item{{"pk", Value::string("abc")}, {"count", Value::number(12)}};
  EXPECT_EQ(item_size(item), 2u + 3u + 5u + 2u);
  EXPECT_EQ(item_size({}), 0u);
}

TEST(ValueTest, DescribeIsShortAndReadable) {
  EXPECT_EQ(describe(Value::string("a")), "S \"a\"");
  EXPECT_EQ(describe(Value::number(Number::parse("-1.50"))), "N -1.5");
  EXPECT_EQ(describe(Value::boolean(true)), "BOOL true");
  EXPECT_EQ(describe(Value::null()), "NULL");
  EXPECT_EQ(describe(Value::binary("abc")), "B (3 bytes)");
  EXPECT_EQ(describe(Value::list({Value::number(1), Value::string("x")})),
            "L [N 1, S \"x\"]");
  EXPECT_EQ(describe(Value::string_set({"b", "a"})), "SS {\"a\", \"b\"}");
  EXPECT_EQ(describe(Value::number_set({Number(2), Number(10)})), "NS {2, 10}");
  EXPECT_EQ(describe(Item{{"pk", Value::string("a")}, {"n", Value::number(1)}}),
            "{\"n\": N 1, \"pk\": S \"a\"}");
  EXPECT_EQ(describe(Value::map({{"k", Value::null()}})), "M {\"k\": NULL}");

  std::string long_text(5000, 'x');
  std::string d = describe(Value::string(long_text));
  EXPECT_LT(d.size(), 100u);
  EXPECT_NE(d.find("5000 bytes"), std::string::npos) << d;

  List many(100, Value::number(7));
  std::string dl = describe(Value::list(many));
  EXPECT_LT(dl.size(), 120u);
  EXPECT_NE(dl.find("92 more"), std::string::npos) << dl;
}

}  // namespace
}  // namespace stowage::table
