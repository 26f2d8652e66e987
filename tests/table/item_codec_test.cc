#include "table/item_codec.h"

#include <gtest/gtest.h>

#include <random>

#include "stowage/error.h"

namespace stowage::table {
namespace {

Item sample_item() {
  return Item{
      {"pk", Value::string("Stowage#Blob#01HZX")},
      {"sk", Value::number(Number::parse("-12.5"))},
      {"bytes", Value::binary(std::string("\0\xff\x80zz", 5))},
      {"empty", Value::string("")},
      {"flag", Value::boolean(true)},
      {"off", Value::boolean(false)},
      {"nothing", Value::null()},
      {"big", Value::number(Number::parse("9.9999999999999999999999999999999999999E+125"))},
      {"tiny", Value::number(Number::parse("-1e-130"))},
      {"doc", Value::map({{"a", Value::list({Value::number(1), Value::string("two"),
                                             Value::map({})})},
                          {"", Value::null()}})},
      {"tags", Value::string_set({"x", "y", "\xC3\xA9"})},
      {"sizes", Value::number_set({Number(-3), Number(0), Number::parse("1e20")})},
      {"blobs", Value::binary_set({std::string("\0", 1), "\x01\x02"})},
      {"list", Value::list({})},
  };
}

TEST(ItemCodecTest, RoundTripsEveryType) {
  Item item = sample_item();
  EXPECT_EQ(decode_item(encode_item(item)), item);
}

TEST(ItemCodecTest, RoundTripsEmptyAndLargeItems) {
  EXPECT_EQ(decode_item(encode_item({})), Item{});
  Item large{{"pk", Value::string("k")}, {"data", Value::binary(std::string(300000, 'q'))}};
  EXPECT_EQ(decode_item(encode_item(large)), large);
}

TEST(ItemCodecTest, RoundTripsDeepNesting) {
  Value v = Value::string("leaf");
  for (int i = 0; i < 40; ++i) {
    v = i % 2 ? Value::map({{"m", v}}) : Value::list({v});
  }
  Item item{{"deep", v}};
  EXPECT_EQ(decode_item(encode_item(item)), item);
}

TEST(ItemCodecTest, EncodingIsCompact) {
  Item item{{"pk", Value::string("abc")}, {"n", Value::number(7)}};
  // format + count + (len "pk" tag len "abc") + (len "n" tag len "7")
  EXPECT_EQ(encode_item(item).size(), 1u + 1u + (1 + 2 + 1 + 1 + 3) + (1 + 1 + 1 + 1 + 1));
}

void expect_integrity_error(std::string_view bytes) {
  try {
    Item item = decode_item(bytes);
    ADD_FAILURE() << "decoded garbage into " << describe(item);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::IntegrityError);
    EXPECT_NE(e.message().find("offset"), std::string::npos) << e.message();
  }
}

TEST(ItemCodecTest, RejectsCorruptInput) {
  expect_integrity_error("");
  expect_integrity_error(std::string("\x07", 1));                  // unknown format
  expect_integrity_error(std::string("\x01", 1));                  // no count
  expect_integrity_error(std::string("\x01\x01", 2));              // no attribute
  expect_integrity_error(std::string("\x01\x01\x05" "ab", 5));     // name too long
  expect_integrity_error(std::string("\x01\x01\x01" "a" "\x63", 5));  // bad tag
  expect_integrity_error(std::string("\x01\x01\x01" "a" "\x04\x02", 6));  // bool 2
  expect_integrity_error(std::string("\x01\x01\x01" "a" "\x02\x03" "1x2", 9));  // bad N
  expect_integrity_error(std::string("\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12));
  expect_integrity_error(std::string("\x01\x80", 2));              // truncated varint
  expect_integrity_error(std::string("\x01\x00\x00", 3));          // trailing byte
  // Names out of order ("b" then "a") would silently lose an attribute.
  expect_integrity_error(std::string("\x01\x02\x01" "b" "\x05" "\x01" "a" "\x05", 8));
  // Duplicate set elements.
  expect_integrity_error(std::string("\x01\x01\x01" "s" "\x08\x02\x01x\x01x", 10));
}

TEST(ItemCodecTest, RejectsHostileNestingWithoutOverflowingTheStack) {
  // Every level is "a list of one element".
  std::string bytes("\x01\x01\x01" "a", 4);
  for (int i = 0; i < 100000; ++i) bytes += std::string("\x07\x01", 2);
  bytes += std::string("\x05", 1);
  expect_integrity_error(bytes);
}

TEST(ItemCodecTest, EveryTruncationAndBitFlipFailsCleanly) {
  std::string bytes = encode_item(sample_item());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    expect_integrity_error(std::string_view(bytes).substr(0, n));
  }
  std::mt19937 random(11);
  for (int i = 0; i < 2000; ++i) {
    std::string damaged = bytes;
    damaged[random() % damaged.size()] ^= static_cast<char>(1 << (random() % 8));
    try {
      decode_item(damaged);  // may decode to another valid item
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::IntegrityError) << e.what();
    }
  }
}

TEST(ItemCodecTest, KeyOrderBytesSortLikeDynamoDb) {
  EXPECT_EQ(key_order_bytes(Value::string("abc")), "abc");
  EXPECT_LT(key_order_bytes(Value::string("a")), key_order_bytes(Value::string("ab")));
  // UTF-8 byte order: 'z' (0x7a) sorts before 'é' (0xc3 0xa9).
  EXPECT_LT(key_order_bytes(Value::string("z")),
            key_order_bytes(Value::string("\xC3\xA9")));
  EXPECT_LT(key_order_bytes(Value::number(9)), key_order_bytes(Value::number(10)));
  EXPECT_LT(key_order_bytes(Value::number(-10)), key_order_bytes(Value::number(-9)));
  EXPECT_EQ(key_order_bytes(Value::number(Number::parse("1.0"))),
            key_order_bytes(Value::number(1)));
  for (const Value& v : {Value::binary("x"), Value::boolean(true), Value::null(),
                         Value::map({}), Value::string_set({"a"})}) {
    try {
      key_order_bytes(v);
      ADD_FAILURE() << "accepted " << describe(v);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::ValidationError);
    }
  }
}

}  // namespace
}  // namespace stowage::table
