#include "table/number.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "stowage/error.h"

namespace stowage::table {
namespace {

std::string canonical(std::string_view text) {
  return Number::parse(text).to_string();
}

void expect_rejected(std::string_view text) {
  try {
    Number::parse(text);
    ADD_FAILURE() << "accepted \"" << text << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ValidationError) << text;
    EXPECT_NE(e.message().find(std::string(text)), std::string::npos)
        << "message does not name the input: " << e.message();
  }
}

TEST(NumberTest, ParsesDynamoDbSyntaxToCanonicalText) {
  EXPECT_EQ(canonical("-12.50"), "-12.5");
  EXPECT_EQ(canonical("+3"), "3");
  EXPECT_EQ(canonical("1e3"), "1000");
  EXPECT_EQ(canonical("1E-2"), "0.01");
  EXPECT_EQ(canonical(".5"), "0.5");
  EXPECT_EQ(canonical("5."), "5");
  EXPECT_EQ(canonical("0.001"), "0.001");
  EXPECT_EQ(canonical("000123.4500"), "123.45");
  EXPECT_EQ(canonical("1.50"), "1.5");
  EXPECT_EQ(canonical("12.5e-1"), "1.25");
  EXPECT_EQ(canonical("-0.5"), "-0.5");
  EXPECT_EQ(canonical("1e+2"), "100");
  EXPECT_EQ(canonical("1234.5e2"), "123450");
}

TEST(NumberTest, ZeroHasOneForm) {
  for (std::string_view zero : {"0", "-0", "+0", "0.000", "0e99", "-0.0e-5", "00"}) {
    Number n = Number::parse(zero);
    EXPECT_TRUE(n.is_zero()) << zero;
    EXPECT_FALSE(n.is_negative()) << zero;
    EXPECT_EQ(n.to_string(), "0") << zero;
    EXPECT_EQ(n, Number()) << zero;
  }
}

TEST(NumberTest, RejectsWhatIsNotANumber) {
  for (std::string_view bad :
       {"", "abc", "1e", "1e+", "e5", "NaN", "Infinity", "-Infinity", "-", "+",
        ".", "1.2.3", "1e2.5", " 1", "1 ", "0x10", "1,5", "--1", "1e-"}) {
    expect_rejected(bad);
  }
}

TEST(NumberTest, EnforcesPrecisionAndRange) {
  std::string digits38(38, '9');
  EXPECT_EQ(canonical(digits38), digits38);
  expect_rejected(digits38 + "1");
  // Trailing and leading zeros are not significant.
  EXPECT_EQ(canonical("000" + digits38 + "000"), digits38 + "000");

  EXPECT_EQ(canonical("1E-130"), "0." + std::string(129, '0') + "1");
  expect_rejected("1E-131");
  expect_rejected("0.9E-130");
  EXPECT_EQ(canonical("9.9999999999999999999999999999999999999E+125"),
            "99999999999999999999999999999999999999" + std::string(88, '0'));
  expect_rejected("1E+126");
  expect_rejected("1e99999999999999999999");
  expect_rejected("1e-99999999999999999999");
}

TEST(NumberTest, ConstructsFromInt64) {
  EXPECT_EQ(Number(0).to_string(), "0");
  EXPECT_EQ(Number(1000).to_string(), "1000");
  EXPECT_EQ(Number(-42).to_string(), "-42");
  EXPECT_EQ(Number(INT64_MAX).to_string(), "9223372036854775807");
  EXPECT_EQ(Number(INT64_MIN).to_string(), "-9223372036854775808");
  EXPECT_EQ(Number(1000), Number::parse("1e3"));
}

TEST(NumberTest, ToInt64OnlyForIntegersThatFit) {
  EXPECT_EQ(Number::parse("0").to_int64(), 0);
  EXPECT_EQ(Number::parse("1e3").to_int64(), 1000);
  EXPECT_EQ(Number::parse("-17").to_int64(), -17);
  EXPECT_EQ(Number::parse("9223372036854775807").to_int64(), INT64_MAX);
  EXPECT_EQ(Number::parse("-9223372036854775808").to_int64(), INT64_MIN);
  EXPECT_EQ(Number::parse("9223372036854775808").to_int64(), std::nullopt);
  EXPECT_EQ(Number::parse("-9223372036854775809").to_int64(), std::nullopt);
  EXPECT_EQ(Number::parse("1e20").to_int64(), std::nullopt);
  EXPECT_EQ(Number::parse("1.5").to_int64(), std::nullopt);
  EXPECT_EQ(Number::parse("0.1").to_int64(), std::nullopt);
}

TEST(NumberTest, AdditionIsExact) {
  auto sum = [](std::string_view a, std::string_view b) {
    return (Number::parse(a) + Number::parse(b)).to_string();
  };
  EXPECT_EQ(sum("9223372036854775807", "1"), "9223372036854775808");
  EXPECT_EQ(sum("99999999999999999999999999999999999999", "-1"),
            "99999999999999999999999999999999999998");
  EXPECT_EQ(sum("0.1", "0.2"), "0.3");
  EXPECT_EQ(sum("1.5", "-1.5"), "0");
  EXPECT_EQ(sum("-1.5", "1"), "-0.5");
  EXPECT_EQ(sum("1", "-1.5"), "-0.5");
  EXPECT_EQ(sum("999", "1"), "1000");
  EXPECT_EQ(sum("1000", "-1"), "999");
  EXPECT_EQ(sum("1e20", "0.5"), "100000000000000000000.5");
  EXPECT_EQ(sum("-7", "-8"), "-15");
  EXPECT_EQ(sum("0", "-3.25"), "-3.25");
  EXPECT_EQ(sum("12.345", "0"), "12.345");
  EXPECT_EQ((Number::parse("10") - Number::parse("0.01")).to_string(), "9.99");
  EXPECT_EQ((-Number::parse("2")).to_string(), "-2");
  EXPECT_EQ((-Number()).to_string(), "0");
}

TEST(NumberTest, AdditionMatchesInt64Arithmetic) {
  std::mt19937_64 random(20240611);
  std::uniform_int_distribution<std::int64_t> values(-(1LL << 61), 1LL << 61);
  for (int i = 0; i < 2000; ++i) {
    std::int64_t a = values(random);
    std::int64_t b = values(random);
    EXPECT_EQ((Number(a) + Number(b)).to_int64(), a + b) << a << " + " << b;
    EXPECT_EQ(Number(a) < Number(b), a < b) << a << " < " << b;
  }
}

TEST(NumberTest, AdditionOutsidePrecisionOrRangeThrows) {
  Number big = Number::parse(std::string(38, '9'));
  EXPECT_THROW(big + Number(1) + Number::parse("0.1"), Error);
  try {
    (void)(Number::parse("1e30") + Number::parse("1e-30"));
    ADD_FAILURE() << "61 significant digits accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ValidationError);
  }
  Number largest = Number::parse("9.9999999999999999999999999999999999999E+125");
  EXPECT_THROW(largest + largest, Error);
  // 38 nines + 1 is 1e38: one significant digit, still exact.
  EXPECT_EQ((big + Number(1)).to_string(), "1" + std::string(38, '0'));
}

TEST(NumberTest, OrdersNumerically) {
  EXPECT_LT(Number::parse("9"), Number::parse("10"));
  EXPECT_LT(Number::parse("-10"), Number::parse("-9"));
  EXPECT_LT(Number::parse("-0.5"), Number());
  EXPECT_LT(Number(), Number::parse("1e-130"));
  EXPECT_LT(Number::parse("0.5"), Number::parse("0.51"));
  EXPECT_LT(Number::parse("-0.51"), Number::parse("-0.5"));
  EXPECT_EQ(Number::parse("1.0") <=> Number::parse("1"), std::strong_ordering::equal);
}

std::vector<Number> ordering_sample() {
  std::vector<std::string> texts = {
      "-9.9999999999999999999999999999999999999E+125", "-1e20", "-1000", "-999",
      "-100.5", "-100", "-10", "-9.99", "-9.9", "-9", "-1", "-0.51", "-0.5",
      "-0.05", "-1e-130", "0", "1e-130", "0.05", "0.5", "0.51", "1", "1.5", "9",
      "9.9", "10", "100", "100.5", "999", "1000", "1e20",
      "9.9999999999999999999999999999999999999E+125"};
  std::vector<Number> numbers;
  for (const auto& t : texts) numbers.push_back(Number::parse(t));
  return numbers;
}

TEST(NumberTest, OrderKeyMemcmpOrderIsNumericOrder) {
  std::vector<Number> numbers = ordering_sample();
  ASSERT_TRUE(std::is_sorted(numbers.begin(), numbers.end()));
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    for (std::size_t j = 0; j < numbers.size(); ++j) {
      int key_order = numbers[i].order_key().compare(numbers[j].order_key());
      int numeric = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(key_order < 0, numeric < 0)
          << numbers[i].to_string() << " vs " << numbers[j].to_string();
      EXPECT_EQ(key_order == 0, numeric == 0)
          << numbers[i].to_string() << " vs " << numbers[j].to_string();
    }
  }
}

TEST(NumberTest, OrderKeyMatchesOrderingOnRandomDecimals) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> digit(0, 9), length(1, 12), exponent(-20, 20);
  std::vector<Number> numbers;
  for (int i = 0; i < 500; ++i) {
    std::string text = random() % 2 ? "-" : "";
    int n = length(random);
    for (int k = 0; k < n; ++k) text.push_back(static_cast<char>('0' + digit(random)));
    text += "e" + std::to_string(exponent(random));
    numbers.push_back(Number::parse(text));
  }
  for (std::size_t i = 1; i < numbers.size(); ++i) {
    const Number& a = numbers[i - 1];
    const Number& b = numbers[i];
    int key_order = a.order_key().compare(b.order_key());
    EXPECT_EQ(key_order < 0, a < b) << a.to_string() << " vs " << b.to_string();
    EXPECT_EQ(key_order == 0, a == b) << a.to_string() << " vs " << b.to_string();
  }
}

TEST(NumberTest, StorageSizeIsAboutOneBytePerTwoDigits) {
  EXPECT_EQ(Number().storage_size(), 1u);
  EXPECT_EQ(Number(7).storage_size(), 2u);
  EXPECT_EQ(Number(12).storage_size(), 2u);
  EXPECT_EQ(Number(123).storage_size(), 3u);
  // Trailing zeros are trimmed before sizing.
  EXPECT_EQ(Number::parse("1000000").storage_size(), 2u);
  EXPECT_EQ(Number::parse(std::string(38, '9')).storage_size(), 20u);
}

}  // namespace
}  // namespace stowage::table
