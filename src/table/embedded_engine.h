// EmbeddedEngine: the Engine semantics of the embedded engines (memory,
// sqlite), written once on top of EmbeddedStore, a small storage interface
// each of them implements: items by key, ordered partition ranges of the base
// table and of its indexes, the table catalog and idempotency tokens, all
// inside store transactions.
//
// The engine validates every request (validation.h) before it touches the
// store, and within a write transaction it finishes every check that can fail
// (conditions, update results) before its first write, so a store without
// rollback is still all-or-nothing.
//
// Thread safety: EmbeddedEngine is safe for concurrent use; every
// EmbeddedStore must be too.
#pragma once

#include <atomic>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "table/engine.h"
#include "table/idempotency_tokens.h"

namespace stowage::table {

// An item's primary key as stored: key_order_bytes of the hash and of the
// range key value (range is empty when the table has no range key), so that
// byte order is DynamoDB's key order.
struct StoredKey {
  std::string hash;
  std::string range;
  friend auto operator<=>(const StoredKey&, const StoredKey&) = default;
};

// An item's entry in one global secondary index, in key_order_bytes.
struct IndexEntry {
  std::string index_name;
  std::string hash;
  std::string range;
};

// A place in a partition's order: the range key bytes and, on an index where
// range keys repeat, the base table key that breaks ties (empty on the base
// table).
struct PartitionPosition {
  std::string range;
  StoredKey base;
  friend auto operator<=>(const PartitionPosition&,
                          const PartitionPosition&) = default;
};

// Bounds on the range key bytes of a partition; absent bounds are open.
struct RangeBounds {
  std::optional<std::string> lower;
  bool lower_inclusive = true;
  std::optional<std::string> upper;
  bool upper_inclusive = true;
};

// One page's walk through a partition of the base table or of an index.
struct PartitionQuery {
  const GlobalSecondaryIndex* index = nullptr;  // nullptr: the base table
  std::string hash;
  RangeBounds bounds;
  // Exclusive, in walk order: the walk resumes after (forward) or before
  // (backward) this position.
  std::optional<PartitionPosition> after;
  bool forward = true;
};

// Receives the items of a walk in order.
class ItemSink {
 public:
  // Returns false to end the walk.
  virtual bool accept(Item item) = 0;

 protected:
  ~ItemSink() = default;
};

// The reads and writes of one store transaction. Used by one thread at a
// time, between EmbeddedStore::begin and commit/abandon.
class StoreTransaction {
 public:
  virtual std::optional<Item> read(const TableDescription& table,
                                   const StoredKey& key) = 0;
  // Whether there is an item at `key`, without reading it.
  virtual bool contains(const TableDescription& table, const StoredKey& key) = 0;
  // Inserts or replaces the item; `entries` replace the old item's index
  // entries.
  virtual void write(const TableDescription& table, const StoredKey& key,
                     const Item& item, const std::vector<IndexEntry>& entries) = 0;
  // No-op when there is no such item.
  virtual void erase(const TableDescription& table, const StoredKey& key) = 0;
  virtual void query(const TableDescription& table, const PartitionQuery& query,
                     ItemSink& sink) = 0;
  // The whole table in (hash, range) byte order, after `after` when given.
  virtual void scan(const TableDescription& table,
                    const std::optional<StoredKey>& after, ItemSink& sink) = 0;

  virtual std::optional<IdempotencyRecord> find_token(std::string_view token) = 0;
  virtual void save_token(std::string_view token,
                          const IdempotencyRecord& record) = 0;
  // Forgets tokens that expired at or before `now` (seconds since the epoch).
  virtual void purge_tokens(std::int64_t now) = 0;

 protected:
  ~StoreTransaction() = default;
};

class EmbeddedStore {
 public:
  // Read: each read sees committed data (the engine makes one read per read
  // transaction). Write: isolated from every other transaction, in this
  // process and in others sharing the store, until commit or abandon.
  enum class Access { Read, Write };

  virtual ~EmbeddedStore() = default;

  // nullptr when there is no such table.
  virtual std::shared_ptr<const TableDescription> find_table(std::string_view name) = 0;
  // ResourceInUse when the table exists.
  virtual void create_table(const TableDescription& description) = 0;
  // Drops the table and its items. ResourceNotFound when there is none.
  virtual void delete_table(std::string_view name) = 0;

  virtual StoreTransaction& begin(Access access) = 0;
  // Makes the transaction's writes durable and ends it; ends it (without
  // its writes) also when commit throws.
  virtual void commit(StoreTransaction& transaction) = 0;
  // Ends the transaction without its writes.
  virtual void abandon(StoreTransaction& transaction) noexcept = 0;
};

class EmbeddedEngine final : public Engine {
 public:
  explicit EmbeddedEngine(std::unique_ptr<EmbeddedStore> store);

  void create_table(const TableDescription& description) override;
  void delete_table(std::string_view table) override;
  TableDescription describe(std::string_view table) override;

  std::optional<Item> get(const GetRequest& request) override;
  std::optional<Item> put(const PutRequest& request) override;
  std::optional<Item> remove(const DeleteRequest& request) override;
  std::optional<Item> update(const UpdateRequest& request) override;
  QueryResult query(const QueryRequest& request) override;
  QueryResult scan(const ScanRequest& request) override;
  void transact_write(const TransactWriteRequest& request) override;
  // One store transaction, so one commit, for the whole sequence.
  SequenceResult transact_write_sequence(
      std::span<const TransactWriteRequest> requests) override;

 private:
  // The tables of the transactions one call writes, looked up once and
  // before the store transaction begins (a store may hold its lock while a
  // transaction is open, and finding a table takes it too).
  class TableCache {
   public:
    TableCache(EmbeddedStore& store, std::span<const TransactWriteRequest> requests);
    // ResourceNotFound when there is no such table.
    const TableDescription& get(std::string_view name) const;

   private:
    // nullptr: no such table.
    std::map<std::string, std::shared_ptr<const TableDescription>, std::less<>> tables_;
  };

  // One transaction action, checked against the current item in the first
  // pass and written in the second.
  // A Put's item is written from the request itself rather than copied: a
  // materialization moves many entries a transaction, and copying each item's
  // attribute map cost more than writing it.
  struct PlannedWrite {
    const TableDescription* table = nullptr;
    StoredKey key;
    const Item* put_item = nullptr;  // a Put's item, owned by the request
    std::optional<Item> updated;     // an Update's result
    bool writes = true;              // false for a condition check

    // nullptr: erase.
    const Item* item() const { return updated ? &*updated : put_item; }
  };

  // A transaction whose checks passed, ready to write.
  struct CheckedTransaction {
    std::vector<PlannedWrite> writes;  // one per action
    std::string fingerprint;           // of a request with a client token
  };

  // ResourceNotFound when there is no such table.
  std::shared_ptr<const TableDescription> table(std::string_view name);
  // The first pass of a transaction: validation, the client token, every
  // condition and update result. Throws (TransactionCanceled with one reason
  // per action, ...) before anything is written; nullopt when the token
  // shows the transaction applied before.
  std::optional<CheckedTransaction> check(StoreTransaction& transaction,
                                          const TransactWriteRequest& request,
                                          const TableCache& tables, std::int64_t now);
  // The second pass: the writes, and the token remembered.
  void write(StoreTransaction& transaction, const TransactWriteRequest& request,
             const CheckedTransaction& checked, std::int64_t now);
  void purge_tokens_now_and_then(StoreTransaction& transaction, std::int64_t now);

  std::unique_ptr<EmbeddedStore> store_;
  std::atomic<std::int64_t> next_token_purge_{0};
};

}  // namespace stowage::table
