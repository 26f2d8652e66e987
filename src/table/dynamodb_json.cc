#include "table/dynamodb_json.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>

#include "common/digest.h"
#include "stowage/error.h"

namespace stowage::table::dynamodb_json {

namespace {

// DynamoDB nests documents at most 32 levels deep; anything deeper in a
// response is not DynamoDB talking, and the bound keeps recursion shallow.
constexpr int kMaxDepth = 32;

rapidjson::Value json_string(std::string_view text, Allocator& allocator) {
  return rapidjson::Value(text.data(), static_cast<rapidjson::SizeType>(text.size()),
                          allocator);
}

rapidjson::Value tagged(const char* descriptor, rapidjson::Value payload,
                        Allocator& allocator) {
  rapidjson::Value object(rapidjson::kObjectType);
  object.AddMember(rapidjson::StringRef(descriptor), std::move(payload), allocator);
  return object;
}

template <typename Set, typename ToText>
rapidjson::Value encode_set(const Set& set, ToText&& to_text, Allocator& allocator) {
  rapidjson::Value array(rapidjson::kArrayType);
  array.Reserve(static_cast<rapidjson::SizeType>(set.size()), allocator);
  for (const auto& element : set) {
    array.PushBack(json_string(to_text(element), allocator), allocator);
  }
  return array;
}

[[noreturn]] void malformed(std::string_view path, std::string_view what) {
  throw Error::malformed_response(fmt::format("{}: {}", path, what));
}

std::string_view view(const rapidjson::Value& string) {
  return {string.GetString(), string.GetStringLength()};
}

const char* json_type_name(const rapidjson::Value& json) {
  switch (json.GetType()) {
    case rapidjson::kNullType: return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return "a boolean";
    case rapidjson::kObjectType: return "an object";
    case rapidjson::kArrayType: return "an array";
    case rapidjson::kStringType: return "a string";
    case rapidjson::kNumberType: return "a number";
  }
  return "an unknown JSON type";
}

void expect(bool ok, const rapidjson::Value& json, const char* wanted, std::string_view path) {
  if (!ok) malformed(path, fmt::format("expected {}, got {}", wanted, json_type_name(json)));
}

std::string_view expect_string(const rapidjson::Value& json, std::string_view path) {
  expect(json.IsString(), json, "a string", path);
  return view(json);
}

Number decode_number(std::string_view text, std::string_view path) {
  try {
    return Number::parse(text);
  } catch (const Error& error) {
    malformed(path, fmt::format("not a DynamoDB number ({})", error.message()));
  }
}

std::string decode_binary(std::string_view text, std::string_view path) {
  std::optional<std::string> bytes = base64_decode(text);
  if (!bytes) malformed(path, "not canonical base64");
  return std::move(*bytes);
}

template <typename Element, typename Decode>
std::set<Element> decode_set(const rapidjson::Value& json, std::string_view path,
                             Decode&& decode) {
  expect(json.IsArray(), json, "an array", path);
  if (json.Empty()) malformed(path, "a set may not be empty");
  std::set<Element> set;
  for (rapidjson::SizeType i = 0; i < json.Size(); ++i) {
    std::string element_path = fmt::format("{}[{}]", path, i);
    if (!set.insert(decode(expect_string(json[i], element_path), element_path)).second) {
      malformed(element_path, "duplicate set element");
    }
  }
  return set;
}

Item decode_map(const rapidjson::Value& json, std::string_view path, int depth);

Value decode(const rapidjson::Value& json, std::string_view path, int depth) {
  if (depth > kMaxDepth) malformed(path, fmt::format("nested deeper than {} levels", kMaxDepth));
  expect(json.IsObject(), json, "an attribute value object", path);
  if (json.MemberCount() != 1) {
    malformed(path, fmt::format("an attribute value has exactly one type descriptor, got {}",
                                json.MemberCount()));
  }
  const auto& member = *json.MemberBegin();
  const std::string_view descriptor = view(member.name);
  const rapidjson::Value& payload = member.value;
  const std::string inner = fmt::format("{}.{}", path, descriptor);

  if (descriptor == "S") return Value::string(std::string(expect_string(payload, inner)));
  if (descriptor == "N") return Value::number(decode_number(expect_string(payload, inner), inner));
  if (descriptor == "B") return Value::binary(decode_binary(expect_string(payload, inner), inner));
  if (descriptor == "BOOL") {
    expect(payload.IsBool(), payload, "a boolean", inner);
    return Value::boolean(payload.GetBool());
  }
  if (descriptor == "NULL") {
    if (!payload.IsTrue()) malformed(inner, "NULL must be true");
    return Value::null();
  }
  if (descriptor == "M") return Value::map(decode_map(payload, inner, depth + 1));
  if (descriptor == "L") {
    expect(payload.IsArray(), payload, "an array", inner);
    List list;
    list.reserve(payload.Size());
    for (rapidjson::SizeType i = 0; i < payload.Size(); ++i) {
      list.push_back(decode(payload[i], fmt::format("{}[{}]", inner, i), depth + 1));
    }
    return Value::list(std::move(list));
  }
  if (descriptor == "SS") {
    return Value::string_set(decode_set<std::string>(
        payload, inner, [](std::string_view text, std::string_view) { return std::string(text); }));
  }
  if (descriptor == "NS") {
    return Value::number_set(decode_set<Number>(payload, inner, decode_number));
  }
  if (descriptor == "BS") {
    return Value::binary_set(decode_set<std::string>(payload, inner, decode_binary));
  }
  malformed(path, fmt::format("unknown type descriptor \"{}\"", descriptor));
}

Item decode_map(const rapidjson::Value& json, std::string_view path, int depth) {
  expect(json.IsObject(), json, "an object", path);
  Item item;
  for (const auto& member : json.GetObject()) {
    std::string name(view(member.name));
    std::string member_path = fmt::format("{}.{}", path, name);
    Value value = decode(member.value, member_path, depth);
    if (!item.emplace(std::move(name), std::move(value)).second) {
      malformed(member_path, "attribute given twice");
    }
  }
  return item;
}

}  // namespace

rapidjson::Value encode(const Value& value, Allocator& allocator) {
  switch (value.type()) {
    case Type::S: return tagged("S", json_string(value.as_string(), allocator), allocator);
    case Type::N:
      return tagged("N", json_string(value.as_number().to_string(), allocator), allocator);
    case Type::B:
      return tagged("B", json_string(base64_encode(value.as_binary()), allocator), allocator);
    case Type::BOOL: return tagged("BOOL", rapidjson::Value(value.as_bool()), allocator);
    case Type::NUL: return tagged("NULL", rapidjson::Value(true), allocator);
    case Type::M: return tagged("M", encode(value.as_map(), allocator), allocator);
    case Type::L: {
      rapidjson::Value array(rapidjson::kArrayType);
      array.Reserve(static_cast<rapidjson::SizeType>(value.as_list().size()), allocator);
      for (const Value& element : value.as_list()) {
        array.PushBack(encode(element, allocator), allocator);
      }
      return tagged("L", std::move(array), allocator);
    }
    case Type::SS:
      return tagged("SS",
                    encode_set(value.as_string_set(),
                               [](const std::string& s) -> const std::string& { return s; },
                               allocator),
                    allocator);
    case Type::NS:
      return tagged("NS",
                    encode_set(value.as_number_set(),
                               [](const Number& n) { return n.to_string(); }, allocator),
                    allocator);
    case Type::BS:
      return tagged("BS",
                    encode_set(value.as_binary_set(),
                               [](const std::string& b) { return base64_encode(b); }, allocator),
                    allocator);
  }
  throw Error::validation(fmt::format("value of unknown type {}", static_cast<int>(value.type())));
}

rapidjson::Value encode(const Item& item, Allocator& allocator) {
  rapidjson::Value object(rapidjson::kObjectType);
  for (const auto& [name, value] : item) {
    object.AddMember(json_string(name, allocator), encode(value, allocator), allocator);
  }
  return object;
}

Value decode_value(const rapidjson::Value& json, std::string_view path) {
  return decode(json, path, 1);
}

Item decode_item(const rapidjson::Value& json, std::string_view path) {
  return decode_map(json, path, 1);
}

}  // namespace stowage::table::dynamodb_json
