// Condition evaluation and update application on in-memory items: the
// semantics the embedded engines (memory, sqlite) share, written once.
// Pure functions; thread-safe.
#pragma once

#include "table/condition.h"
#include "table/table_description.h"
#include "table/update.h"
#include "table/value.h"

namespace stowage::table {

// Evaluates `condition` against `item` (nullptr: no such item, so every
// attribute is absent), with DynamoDB's semantics: comparisons with a
// missing attribute or across types are false; ordering applies to S (UTF-8
// bytes), N (numeric) and B (bytes).
bool evaluate(const Condition& condition, const Item* item);

// Whether every attribute `condition` names is a key attribute of
// `key_schema`. Such a condition has the same value on the stored item as on
// anything holding the item's key, so the engines decide it from whether the
// item exists, without reading it.
bool names_only_key_attributes(const Condition& condition, const KeySchema& key_schema);

// Applies the update's actions to `item` in order. Throws
// Error(ValidationError) naming the attribute when an ADD meets an attribute
// of another type or an operand that is neither a number nor a set; `item`
// is then unchanged.
void apply_update(const Update& update, Item& item);

}  // namespace stowage::table
