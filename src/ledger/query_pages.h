// for_each_item: every item of a query, following last_evaluated_key across
// pages (1 MB or `limit` items each).
//
// Thread safety: as the engine.
#pragma once

#include <functional>

#include "table/engine.h"

namespace stowage::ledger {

// Calls `visit` for each item in order; stops early when it returns false.
// The item is the visitor's: it may move from it rather than copy it.
void for_each_item(table::Engine& engine, table::QueryRequest request,
                   const std::function<bool(table::Item&)>& visit);

}  // namespace stowage::ledger
