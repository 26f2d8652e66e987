// Compact binary encoding of Items for the embedded engines' storage (the
// sqlite engine keeps each item as one BLOB). Not a wire format: DynamoDB's
// JSON lives in the dynamodb engine. decode(encode(x)) == x for every item.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "table/value.h"

namespace stowage::table {

std::string encode_item(const Item& item);
// Throws Error(IntegrityError) when `bytes` is not an encoded item (a
// corrupted file), naming the offset.
Item decode_item(std::string_view bytes);

// Bytes of a key attribute value whose memcmp order is DynamoDB's sort order
// for that key type (S: UTF-8 bytes; N: numeric via Number::order_key).
std::string key_order_bytes(const Value& key_value);

}  // namespace stowage::table
