#include "table/dynamodb_json.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <random>
#include <string>

#include "stowage/error.h"

namespace stowage::table {
namespace {

rapidjson::Document parse(std::string_view text) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

std::string serialize(const rapidjson::Value& json) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  json.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

std::string to_json(const Value& value) {
  rapidjson::Document document;
  return serialize(dynamodb_json::encode(value, document.GetAllocator()));
}

Item sample_item() {
  return Item{
      {"s", Value::string("héllo \"quoted\" \n")},
      {"n", Value::number(Number::parse("-12.50"))},
      {"b", Value::binary(std::string("\x00\x01\xff", 3))},
      {"t", Value::boolean(true)},
      {"f", Value::boolean(false)},
      {"z", Value::null()},
      {"m", Value::map({{"inner", Value::list({Value::number(1), Value::string("x")})},
                        {"empty", Value::map({})}})},
      {"l", Value::list({})},
      {"ss", Value::string_set({"a", "b"})},
      {"ns", Value::number_set({Number(1), Number::parse("2.5")})},
      {"bs", Value::binary_set({std::string("\x00", 1), "\xfe"})},
      {"name.with#odd chars", Value::string("ok")},
  };
}

TEST(DynamoDbJson, EncodesEachTypeWithItsDescriptor) {
  EXPECT_EQ(to_json(Value::string("x")), R"({"S":"x"})");
  EXPECT_EQ(to_json(Value::number(Number::parse("1e3"))), R"({"N":"1000"})");
  EXPECT_EQ(to_json(Value::binary(std::string("\x00\x01\x02\xff", 4))), R"({"B":"AAEC/w=="})");
  EXPECT_EQ(to_json(Value::boolean(true)), R"({"BOOL":true})");
  EXPECT_EQ(to_json(Value::null()), R"({"NULL":true})");
  EXPECT_EQ(to_json(Value::map({{"a", Value::number(1)}})), R"({"M":{"a":{"N":"1"}}})");
  EXPECT_EQ(to_json(Value::list({Value::string("a"), Value::boolean(false)})),
            R"({"L":[{"S":"a"},{"BOOL":false}]})");
  EXPECT_EQ(to_json(Value::string_set({"b", "a"})), R"({"SS":["a","b"]})");
  EXPECT_EQ(to_json(Value::number_set({Number(10), Number(9)})), R"({"NS":["9","10"]})");
  EXPECT_EQ(to_json(Value::binary_set({"ab"})), R"({"BS":["YWI="]})");
}

TEST(DynamoDbJson, ItemRoundTripsThroughTheWire) {
  const Item item = sample_item();
  rapidjson::Document document;
  const std::string wire = serialize(dynamodb_json::encode(item, document.GetAllocator()));
  rapidjson::Document parsed = parse(wire);
  EXPECT_EQ(dynamodb_json::decode_item(parsed, "Item"), item);
}

TEST(DynamoDbJson, DecodesWhatDynamoDbSends) {
  rapidjson::Document json = parse(
      R"({"pk":{"S":"a"},"n":{"N":"0.001"},"tags":{"L":[{"S":"x"},{"NULL":true}]},)"
      R"("bytes":{"B":"AQI="},"nums":{"NS":["3","-1"]}})");
  const Item item = dynamodb_json::decode_item(json, "Item");
  EXPECT_EQ(item.at("pk"), Value::string("a"));
  EXPECT_EQ(item.at("n"), Value::number(Number::parse("0.001")));
  EXPECT_EQ(item.at("tags"), Value::list({Value::string("x"), Value::null()}));
  EXPECT_EQ(item.at("bytes"), Value::binary("\x01\x02"));
  EXPECT_EQ(item.at("nums"), Value::number_set({Number(3), Number(-1)}));
}

struct MalformedCase {
  const char* json;
  const char* path_in_message;  // the path the error must name
};

class DynamoDbJsonMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(DynamoDbJsonMalformed, IsMalformedResponseNamingThePath) {
  rapidjson::Document json = parse(GetParam().json);
  try {
    dynamodb_json::decode_item(json, "Item");
    FAIL() << "decoded " << GetParam().json;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::MalformedResponse) << error.what();
    EXPECT_NE(error.message().find(GetParam().path_in_message), std::string::npos)
        << error.message();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DynamoDbJsonMalformed,
    ::testing::Values(
        MalformedCase{R"([])", "Item"},
        MalformedCase{R"({"a":"plain"})", "Item.a"},
        MalformedCase{R"({"a":{}})", "Item.a"},
        MalformedCase{R"({"a":{"S":"x","N":"1"}})", "Item.a"},
        MalformedCase{R"({"a":{"X":"x"}})", "unknown type descriptor \"X\""},
        MalformedCase{R"({"a":{"S":1}})", "Item.a.S"},
        MalformedCase{R"({"a":{"N":1}})", "Item.a.N"},
        MalformedCase{R"({"a":{"N":"12abc"}})", "Item.a.N"},
        MalformedCase{R"({"a":{"N":""}})", "Item.a.N"},
        MalformedCase{R"({"a":{"B":"not base64!"}})", "Item.a.B"},
        MalformedCase{R"({"a":{"BOOL":"true"}})", "Item.a.BOOL"},
        MalformedCase{R"({"a":{"NULL":false}})", "Item.a.NULL"},
        MalformedCase{R"({"a":{"M":[]}})", "Item.a.M"},
        MalformedCase{R"({"a":{"M":{"b":{"Q":1}}}})", "Item.a.M.b"},
        MalformedCase{R"({"a":{"L":{}}})", "Item.a.L"},
        MalformedCase{R"({"a":{"L":[{"S":"ok"},{"S":null}]}})", "Item.a.L[1].S"},
        MalformedCase{R"({"a":{"SS":[]}})", "Item.a.SS"},
        MalformedCase{R"({"a":{"SS":"x"}})", "Item.a.SS"},
        MalformedCase{R"({"a":{"SS":["x",1]}})", "Item.a.SS[1]"},
        MalformedCase{R"({"a":{"SS":["x","x"]}})", "Item.a.SS[1]"},
        MalformedCase{R"({"a":{"NS":["1","one"]}})", "Item.a.NS[1]"},
        MalformedCase{R"({"a":{"NS":["1","1.0"]}})", "Item.a.NS[1]"},
        MalformedCase{R"({"a":{"BS":["AA==","%%"]}})", "Item.a.BS[1]"},
        MalformedCase{R"({"a":{"S":"x"},"a":{"S":"y"}})", "Item.a"}));

TEST(DynamoDbJson, NestingDeeperThanDynamoDbAllowsIsMalformed) {
  std::string json = R"({"a":)";
  for (int i = 0; i < 40; ++i) json += R"({"L":[)";
  json += R"({"S":"deep"})";
  for (int i = 0; i < 40; ++i) json += "]}";
  json += "}";
  rapidjson::Document document = parse(json);
  try {
    dynamodb_json::decode_item(document, "Item");
    FAIL() << "decoded 40 levels";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::MalformedResponse);
    EXPECT_NE(error.message().find("nested deeper"), std::string::npos) << error.message();
  }
}

// Random corruptions of a valid item either still decode or are rejected as
// MalformedResponse; nothing else escapes (and nothing crashes).
TEST(DynamoDbJson, CorruptedInputIsDecodedOrRejectedNeverAnythingElse) {
  rapidjson::Document document;
  const std::string wire = serialize(dynamodb_json::encode(sample_item(), document.GetAllocator()));
  const std::string alphabet = R"({}[]":,SNBLM0123456789 trueflsAQ=)";
  std::mt19937 random(20240611);
  int rejected = 0;
  int parsed_documents = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string corrupted = wire;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = random() % corrupted.size();
      switch (random() % 3) {
        case 0: corrupted[at] = alphabet[random() % alphabet.size()]; break;
        case 1: corrupted.erase(at, 1); break;
        default: corrupted.insert(at, 1, alphabet[random() % alphabet.size()]); break;
      }
    }
    rapidjson::Document json;
    json.Parse(corrupted.data(), corrupted.size());
    if (json.HasParseError()) continue;
    ++parsed_documents;
    try {
      dynamodb_json::decode_item(json, "Item");
    } catch (const Error& error) {
      ASSERT_EQ(error.code(), ErrorCode::MalformedResponse) << corrupted << "\n" << error.what();
      ++rejected;
    }
  }
  EXPECT_GT(parsed_documents, 100);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace stowage::table
