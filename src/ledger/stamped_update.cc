#include "ledger/stamped_update.h"

namespace stowage::ledger {

table::UpdateRequest stamped_update(const schema::TableSchema& schema,
                                    const schema::LogicalKey& key) {
  table::UpdateRequest request;
  request.table = schema.table_name();
  request.key = schema.physical_key(key);
  table::Item stamped;
  schema.stamp(stamped, key);
  for (auto& [name, value] : stamped) {
    if (!request.key.contains(name)) request.update.set(name, value);
  }
  return request;
}

}  // namespace stowage::ledger
