// Request validation against a table's description: every check DynamoDB
// makes before it touches data, shared by all engines so that each rejects
// the same requests with the same codes before any I/O.
//
// Throws Error with a message naming the table, attribute and limit:
//   ValidationError  missing/extra/blank/wrong-typed key attribute, empty
//                    set, key attribute in an update, attribute in two update
//                    actions, consistent read on a GSI, unknown index,
//                    ReturnValues not allowed for the operation, two actions
//                    on one item in a transaction, key too long
//   ItemTooLarge     item (after an update: checked by the engine) > 400 KB
//   TransactionTooLarge  more than 100 actions, or none
// Pure functions; thread-safe.
#pragma once

#include <functional>
#include <string_view>

#include "table/requests.h"
#include "table/table_description.h"

namespace stowage::table {

// `key` must hold exactly the table's key attributes, typed as declared.
void validate_key(const TableDescription& table, const Item& key);
// Key attributes present and well-typed, no empty sets, size within limit;
// item attributes that are an index's key must have the index's key type.
void validate_item(const TableDescription& table, const Item& item);

void validate(const TableDescription& table, const GetRequest& request);
void validate(const TableDescription& table, const PutRequest& request);
void validate(const TableDescription& table, const DeleteRequest& request);
void validate(const TableDescription& table, const UpdateRequest& request);
void validate(const TableDescription& table, const QueryRequest& request);
void validate(const TableDescription& table, const ScanRequest& request);
// The transaction's shape (1..100 actions, one action per item, return
// values None) and every action against its own table, found by `table_of`
// (which throws ResourceNotFound for an unknown table).
void validate(
    const TransactWriteRequest& request,
    const std::function<const TableDescription&(std::string_view)>& table_of);

// Extracts the key attributes of `item` for `table`.
Item key_of(const TableDescription& table, const Item& item);

}  // namespace stowage::table
