// stamped_update: an UpdateItem of the item with a logical key that is
// right even when it creates the item: in Mode B the GSI's key attributes
// are ordinary attributes the update must SET itself (stamp() writes them
// for a Put).
//
// Thread safety: pure function.
#pragma once

#include "schema/table_schema.h"
#include "table/requests.h"

namespace stowage::ledger {

// The request's key, table and (Mode B) SETs of the GSI attributes; the
// caller adds its actions and condition.
table::UpdateRequest stamped_update(const schema::TableSchema& schema,
                                    const schema::LogicalKey& key);

}  // namespace stowage::ledger
