// Engine: the table contract (DESIGN §2), modelled on DynamoDB's API.
//
// Every layer above talks to its table through this interface only. Engines:
// memory (tests), sqlite (embedded default), dynamodb (JSON protocol over
// HTTPS); wrappers add retries, fault injection or request counting around
// any engine. The conformance suite in tests/table defines "same semantics".
//
// Thread safety: every Engine is safe for concurrent use from many threads.
// Errors: every method throws stowage::Error; invalid requests are rejected
// before any write, and a failed write changes nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "stowage/error.h"
#include "table/requests.h"
#include "table/table_description.h"

namespace stowage::table {

// What transact_write_sequence did: the first `committed` transactions
// committed, in order; when that is fewer than were given, `failure` is the
// error of the next one, and it and those after it wrote nothing.
struct SequenceResult {
  std::size_t committed = 0;
  std::optional<Error> failure;
};

class Engine {
 public:
  virtual ~Engine() = default;

  // ResourceInUse if the table exists. Returns once the table is usable.
  virtual void create_table(const TableDescription& description) = 0;
  // ResourceNotFound if the table does not exist.
  virtual void delete_table(std::string_view table) = 0;
  // ResourceNotFound if the table does not exist.
  virtual TableDescription describe(std::string_view table) = 0;

  // nullopt when there is no item with that key.
  virtual std::optional<Item> get(const GetRequest& request) = 0;
  // The old item when return_values == AllOld and one existed.
  // ConditionalCheckFailed when the condition is false.
  virtual std::optional<Item> put(const PutRequest& request) = 0;
  virtual std::optional<Item> remove(const DeleteRequest& request) = 0;
  // AllOld / AllNew images as asked.
  virtual std::optional<Item> update(const UpdateRequest& request) = 0;
  virtual QueryResult query(const QueryRequest& request) = 0;
  // The whole table in pages, in no promised order.
  virtual QueryResult scan(const ScanRequest& request) = 0;
  // All or nothing. TransactionCanceled carries one reason per action.
  // TransactionTooLarge for more than 100 actions and ValidationError for two
  // actions on one item, both before any write.
  virtual void transact_write(const TransactWriteRequest& request) = 0;
  // Commits `requests` in order, each all or nothing exactly as
  // transact_write would, stopping at the first that fails; never throws
  // stowage::Error (it is in the result). An engine that can make several
  // transactions durable with one commit does (sqlite: one fsync for the
  // whole sequence, so a crash keeps all of them or none); this default
  // sends them one by one, as DynamoDB must. A transaction may be
  // conditioned on what the ones before it write (e.g. a version each bumps).
  virtual SequenceResult transact_write_sequence(
      std::span<const TransactWriteRequest> requests);
};

}  // namespace stowage::table
