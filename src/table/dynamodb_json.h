// DynamoDB's JSON encoding of values and items, the wire format of the
// dynamodb engine: {"S":"x"}, {"N":"1"}, {"B":"<base64>"}, {"BOOL":true},
// {"NULL":true}, {"M":{…}}, {"L":[…]}, {"SS":[…]}, {"NS":[…]}, {"BS":[…]}.
//
// Decoding is strict because its input comes from the network: any shape
// other than the above (a descriptor that is unknown, missing or not alone,
// a member of the wrong JSON type, a bad number or base64 text, an empty or
// duplicated set, a map key given twice, nesting deeper than DynamoDB
// allows) throws Error(MalformedResponse) naming the path of the offending
// value, e.g. `Item.tags.L[2]`. Pure functions; thread-safe.
#pragma once

#include <rapidjson/document.h>

#include <string_view>

#include "table/value.h"

namespace stowage::table::dynamodb_json {

using Allocator = rapidjson::Document::AllocatorType;

// The value's JSON, allocated from `allocator` (which must outlive it).
rapidjson::Value encode(const Value& value, Allocator& allocator);
// An item as a JSON object of attribute name → encoded value.
rapidjson::Value encode(const Item& item, Allocator& allocator);

// `path` names the decoded JSON in error messages.
Value decode_value(const rapidjson::Value& json, std::string_view path);
Item decode_item(const rapidjson::Value& json, std::string_view path);

}  // namespace stowage::table::dynamodb_json
