// Condition evaluation and update application on in-memory items: the
// semantics the embedded engines (memory, sqlite) share, written once.
// Pure functions; thread-safe.
#pragma once

#include <optional>

#include "table/condition.h"
#include "table/update.h"
#include "table/value.h"

namespace stowage::table {

// Evaluates `condition` against `item` (nullopt: no such item, so every
// attribute is absent), with DynamoDB's semantics: comparisons with a
// missing attribute or across types are false; ordering applies to S (UTF-8
// bytes), N (numeric) and B (bytes).
bool evaluate(const Condition& condition, const std::optional<Item>& item);

// Applies the update's actions to `item` in order. Throws
// Error(ValidationError) naming the attribute when an ADD meets an attribute
// of another type or an operand that is neither a number nor a set; `item`
// is then unchanged.
void apply_update(const Update& update, Item& item);

}  // namespace stowage::table
