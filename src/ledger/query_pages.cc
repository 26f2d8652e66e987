#include "ledger/query_pages.h"

namespace stowage::ledger {

void for_each_item(table::Engine& engine, table::QueryRequest request,
                   const std::function<bool(table::Item&)>& visit) {
  for (;;) {
    table::QueryResult page = engine.query(request);
    for (table::Item& item : page.items) {
      if (!visit(item)) return;
    }
    if (!page.last_evaluated_key) return;
    request.exclusive_start_key = std::move(page.last_evaluated_key);
  }
}

}  // namespace stowage::ledger
