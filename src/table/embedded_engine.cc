#include "table/embedded_engine.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <set>
#include <utility>

#include "stowage/error.h"
#include "table/evaluation.h"
#include "table/item_codec.h"
#include "table/limits.h"
#include "table/validation.h"

namespace stowage::table {
namespace {

using Access = EmbeddedStore::Access;

// A store transaction that is abandoned unless committed.
class Transaction {
 public:
  Transaction(EmbeddedStore& store, Access access)
      : store_(store), transaction_(&store.begin(access)) {}
  ~Transaction() {
    if (transaction_ != nullptr) store_.abandon(*transaction_);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  StoreTransaction* operator->() { return transaction_; }
  StoreTransaction& operator*() { return *transaction_; }

  void commit() { store_.commit(*std::exchange(transaction_, nullptr)); }

 private:
  EmbeddedStore& store_;
  StoreTransaction* transaction_;
};

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// REQUIRES: `item` holds the attribute (the request was validated).
std::string order_bytes_of(const Item& item, const KeyAttribute& attribute) {
  return key_order_bytes(item.find(attribute.name)->second);
}

// REQUIRES: `item` holds the table's key attributes.
StoredKey stored_key(const TableDescription& table, const Item& item) {
  const KeySchema& schema = table.key_schema;
  return StoredKey{order_bytes_of(item, schema.hash),
                   schema.range ? order_bytes_of(item, *schema.range) : std::string()};
}

// The item's entries in the table's indexes: an item appears in an index
// only when it has the index's key attributes.
std::vector<IndexEntry> index_entries(const TableDescription& table, const Item& item) {
  std::vector<IndexEntry> entries;
  for (const GlobalSecondaryIndex& index : table.global_secondary_indexes) {
    const KeySchema& schema = index.key_schema;
    if (!item.contains(schema.hash.name)) continue;
    if (schema.range && !item.contains(schema.range->name)) continue;
    entries.push_back(IndexEntry{
        index.name, order_bytes_of(item, schema.hash),
        schema.range ? order_bytes_of(item, *schema.range) : std::string()});
  }
  return entries;
}

Error no_such_table(std::string_view name) {
  return Error(ErrorCode::ResourceNotFound, fmt::format("table \"{}\" does not exist", name));
}

Error condition_failed(const TableDescription& table, const Item& key_or_item) {
  return Error(ErrorCode::ConditionalCheckFailed,
               fmt::format("table \"{}\": the condition on item {} is false",
                           table.name, describe(key_of(table, key_or_item))));
}

void check_condition(const TableDescription& table, const std::optional<Condition>& condition,
                     const std::optional<Item>& current, const Item& key_or_item) {
  if (condition && !evaluate(*condition, current ? &*current : nullptr)) {
    throw condition_failed(table, key_or_item);
  }
}

// Checks `condition` on the item at `key` for a caller that needs nothing
// else of that item. A condition on key attributes alone is decided by
// whether the item exists, `key_or_item` (which holds the key) standing in
// for it: a materialization's Deletes and Puts, and every put-if-absent,
// then neither read nor decode the item.
void check_condition_at(StoreTransaction& transaction, const TableDescription& table,
                        const StoredKey& key, const std::optional<Condition>& condition,
                        const Item& key_or_item) {
  if (!condition) return;
  if (!names_only_key_attributes(*condition, table.key_schema)) {
    check_condition(table, condition, transaction.read(table, key), key_or_item);
    return;
  }
  const bool exists = transaction.contains(table, key);
  if (!evaluate(*condition, exists ? &key_or_item : nullptr)) {
    throw condition_failed(table, key_or_item);
  }
}

// The item an update leaves: the current item (or, when there is none, the
// key) with the actions applied, checked as a whole (size, index key types).
Item updated_item(const TableDescription& table, const UpdateRequest& request,
                  const std::optional<Item>& current) {
  Item item = current ? *current : request.key;
  apply_update(request.update, item);
  validate_item(table, item);
  return item;
}

// The smallest byte string above every string that starts with `prefix`;
// nullopt when there is none (the prefix is all 0xff bytes).
std::optional<std::string> prefix_successor(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff) {
    prefix.pop_back();
  }
  if (prefix.empty()) return std::nullopt;
  prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
  return prefix;
}

RangeBounds bounds_of(const RangeKeyCondition& condition) {
  RangeBounds bounds;
  std::string operand = key_order_bytes(condition.operand);
  switch (condition.op) {
    case KeyOperator::Eq:
      bounds.lower = operand;
      bounds.upper = std::move(operand);
      break;
    case KeyOperator::Lt:
      bounds.upper = std::move(operand);
      bounds.upper_inclusive = false;
      break;
    case KeyOperator::Le:
      bounds.upper = std::move(operand);
      break;
    case KeyOperator::Gt:
      bounds.lower = std::move(operand);
      bounds.lower_inclusive = false;
      break;
    case KeyOperator::Ge:
      bounds.lower = std::move(operand);
      break;
    case KeyOperator::Between:
      bounds.lower = std::move(operand);
      bounds.upper = key_order_bytes(*condition.upper);
      break;
    case KeyOperator::BeginsWith:
      bounds.upper = prefix_successor(operand);
      bounds.upper_inclusive = false;
      bounds.lower = std::move(operand);
      break;
  }
  return bounds;
}

// REQUIRES: `start_key` was validated as a start key of the table or index.
PartitionPosition position_of(const TableDescription& table,
                              const GlobalSecondaryIndex* index, const Item& start_key) {
  if (index == nullptr) {
    const auto& range = table.key_schema.range;
    return PartitionPosition{range ? order_bytes_of(start_key, *range) : std::string(), {}};
  }
  const auto& range = index->key_schema.range;
  return PartitionPosition{range ? order_bytes_of(start_key, *range) : std::string(),
                           stored_key(table, start_key)};
}

// Collects one page: at most `limit` items and at most 1 MB of item data,
// the item that reaches 1 MB included.
class PageBuilder final : public ItemSink {
 public:
  PageBuilder(const TableDescription& table, const GlobalSecondaryIndex* index,
              std::optional<std::size_t> limit)
      : table_(table), index_(index), limit_(limit) {}

  bool accept(Item item) override {
    bytes_ += item_size(item);
    items_.push_back(std::move(item));
    full_ = (limit_ && items_.size() >= *limit_) || bytes_ >= limits::kMaxPageBytes;
    return !full_;
  }

  // Like DynamoDB, a full page carries last_evaluated_key even when nothing
  // follows it.
  QueryResult result() && {
    QueryResult result;
    if (full_) result.last_evaluated_key = page_key(items_.back());
    result.items = std::move(items_);
    return result;
  }

 private:
  // The table's key and, on an index, the index's key.
  Item page_key(const Item& item) const {
    Item key = key_of(table_, item);
    if (index_ != nullptr) {
      const KeySchema& schema = index_->key_schema;
      key.insert(*item.find(schema.hash.name));
      if (schema.range) key.insert(*item.find(schema.range->name));
    }
    return key;
  }

  const TableDescription& table_;
  const GlobalSecondaryIndex* index_;
  std::optional<std::size_t> limit_;
  std::vector<Item> items_;
  std::size_t bytes_ = 0;
  bool full_ = false;
};

// DynamoDB's naming rules for tables and indexes.
void check_name(std::string_view what, std::string_view name) {
  bool valid = name.size() >= 3 && name.size() <= 255;
  for (char c : name) {
    bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    valid = valid && allowed;
  }
  if (!valid) {
    throw Error::validation(fmt::format(
        "{} name \"{}\" must be 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' "
        "and '.'",
        what, name));
  }
}

// Every key attribute keeps one type across the table and its indexes
// (DynamoDB declares each attribute once).
void check_key_schema(std::string_view owner, const KeySchema& schema,
                      std::map<std::string, KeyType>& types) {
  auto check = [&](const KeyAttribute& attribute) {
    if (attribute.name.empty()) {
      throw Error::validation(fmt::format("{}: a key attribute name may not be empty", owner));
    }
    auto [it, inserted] = types.try_emplace(attribute.name, attribute.type);
    if (!inserted && it->second != attribute.type) {
      throw Error::validation(fmt::format(
          "{}: key attribute \"{}\" is declared both S and N", owner, attribute.name));
    }
  };
  check(schema.hash);
  if (!schema.range) return;
  if (schema.range->name == schema.hash.name) {
    throw Error::validation(fmt::format(
        "{}: hash and range key are both \"{}\"", owner, schema.hash.name));
  }
  check(*schema.range);
}

void validate_description(const TableDescription& description) {
  check_name("table", description.name);
  std::string owner = fmt::format("table \"{}\"", description.name);
  std::map<std::string, KeyType> types;
  check_key_schema(owner, description.key_schema, types);
  std::set<std::string_view> index_names;
  for (const GlobalSecondaryIndex& index : description.global_secondary_indexes) {
    check_name("index", index.name);
    if (!index_names.insert(index.name).second) {
      throw Error::validation(fmt::format("{}: two indexes are named \"{}\"", owner,
                                          index.name));
    }
    check_key_schema(fmt::format("index \"{}\" of {}", index.name, owner),
                     index.key_schema, types);
  }
}

}  // namespace

EmbeddedEngine::EmbeddedEngine(std::unique_ptr<EmbeddedStore> store)
    : store_(std::move(store)) {}

std::shared_ptr<const TableDescription> EmbeddedEngine::table(std::string_view name) {
  auto description = store_->find_table(name);
  if (description == nullptr) throw no_such_table(name);
  return description;
}

void EmbeddedEngine::create_table(const TableDescription& description) {
  validate_description(description);
  store_->create_table(description);
}

void EmbeddedEngine::delete_table(std::string_view table) { store_->delete_table(table); }

TableDescription EmbeddedEngine::describe(std::string_view table) {
  return *this->table(table);
}

std::optional<Item> EmbeddedEngine::get(const GetRequest& request) {
  auto table = this->table(request.table);
  validate(*table, request);
  StoredKey key = stored_key(*table, request.key);
  Transaction transaction(*store_, Access::Read);
  std::optional<Item> item = transaction->read(*table, key);
  transaction.commit();
  return item;
}

std::optional<Item> EmbeddedEngine::put(const PutRequest& request) {
  auto table = this->table(request.table);
  validate(*table, request);
  StoredKey key = stored_key(*table, request.item);
  std::vector<IndexEntry> entries = index_entries(*table, request.item);
  bool wants_old = request.return_values == ReturnValues::AllOld;
  Transaction transaction(*store_, Access::Write);
  std::optional<Item> old;
  if (wants_old) {
    old = transaction->read(*table, key);
    check_condition(*table, request.condition, old, request.item);
  } else {
    check_condition_at(*transaction, *table, key, request.condition, request.item);
  }
  transaction->write(*table, key, request.item, entries);
  transaction.commit();
  return wants_old ? old : std::nullopt;
}

std::optional<Item> EmbeddedEngine::remove(const DeleteRequest& request) {
  auto table = this->table(request.table);
  validate(*table, request);
  StoredKey key = stored_key(*table, request.key);
  bool wants_old = request.return_values == ReturnValues::AllOld;
  Transaction transaction(*store_, Access::Write);
  std::optional<Item> old;
  if (wants_old) {
    old = transaction->read(*table, key);
    check_condition(*table, request.condition, old, request.key);
  } else {
    check_condition_at(*transaction, *table, key, request.condition, request.key);
  }
  transaction->erase(*table, key);
  transaction.commit();
  return wants_old ? old : std::nullopt;
}

std::optional<Item> EmbeddedEngine::update(const UpdateRequest& request) {
  auto table = this->table(request.table);
  validate(*table, request);
  StoredKey key = stored_key(*table, request.key);
  Transaction transaction(*store_, Access::Write);
  std::optional<Item> old = transaction->read(*table, key);
  check_condition(*table, request.condition, old, request.key);
  Item item = updated_item(*table, request, old);
  transaction->write(*table, key, item, index_entries(*table, item));
  transaction.commit();
  switch (request.return_values) {
    case ReturnValues::AllOld: return old;
    case ReturnValues::AllNew: return item;
    case ReturnValues::None: return std::nullopt;
  }
  return std::nullopt;
}

QueryResult EmbeddedEngine::query(const QueryRequest& request) {
  auto table = this->table(request.table);
  validate(*table, request);
  PartitionQuery query;
  if (!request.index_name.empty()) query.index = table->find_index(request.index_name);
  query.hash = key_order_bytes(request.hash_value);
  if (request.range_condition) query.bounds = bounds_of(*request.range_condition);
  if (request.exclusive_start_key) {
    query.after = position_of(*table, query.index, *request.exclusive_start_key);
  }
  query.forward = request.scan_forward;
  PageBuilder page(*table, query.index, request.limit);
  Transaction transaction(*store_, Access::Read);
  transaction->query(*table, query, page);
  transaction.commit();
  return std::move(page).result();
}

QueryResult EmbeddedEngine::scan(const ScanRequest& request) {
  auto table = this->table(request.table);
  validate(*table, request);
  std::optional<StoredKey> after;
  if (request.exclusive_start_key) after = stored_key(*table, *request.exclusive_start_key);
  PageBuilder page(*table, nullptr, request.limit);
  Transaction transaction(*store_, Access::Read);
  transaction->scan(*table, after, page);
  transaction.commit();
  return std::move(page).result();
}

void EmbeddedEngine::transact_write(const TransactWriteRequest& request) {
  const TableCache tables(*store_, std::span(&request, 1));
  const std::int64_t now = now_seconds();
  Transaction transaction(*store_, Access::Write);
  const std::optional<CheckedTransaction> checked = check(*transaction, request, tables, now);
  if (checked) write(*transaction, request, *checked, now);
  transaction.commit();
}

SequenceResult EmbeddedEngine::transact_write_sequence(
    std::span<const TransactWriteRequest> requests) {
  SequenceResult result;
  try {
    const TableCache tables(*store_, requests);
    const std::int64_t now = now_seconds();
    Transaction transaction(*store_, Access::Write);
    std::size_t written = 0;
    for (const TransactWriteRequest& request : requests) {
      // A transaction that fails its checks has written nothing, so the
      // ones before it can still commit.
      std::optional<CheckedTransaction> checked;
      try {
        checked = check(*transaction, request, tables, now);
      } catch (const Error& error) {
        result.failure = error;
        break;
      }
      if (checked) write(*transaction, request, *checked, now);
      ++written;
    }
    transaction.commit();
    result.committed = written;
  } catch (const Error& error) {
    // A write or the commit failed: the store transaction, and with it
    // every transaction of the sequence, is abandoned.
    result.committed = 0;
    result.failure = error;
  }
  return result;
}

EmbeddedEngine::TableCache::TableCache(EmbeddedStore& store,
                                       std::span<const TransactWriteRequest> requests) {
  for (const TransactWriteRequest& request : requests) {
    for (const TransactAction& action : request.actions) {
      std::visit(
          [&](const auto& a) {
            if (!tables_.contains(a.table)) tables_.emplace(a.table, store.find_table(a.table));
          },
          action);
    }
  }
}

const TableDescription& EmbeddedEngine::TableCache::get(std::string_view name) const {
  auto it = tables_.find(name);
  if (it == tables_.end() || it->second == nullptr) throw no_such_table(name);
  return *it->second;
}

std::optional<EmbeddedEngine::CheckedTransaction> EmbeddedEngine::check(
    StoreTransaction& transaction, const TransactWriteRequest& request, const TableCache& tables,
    std::int64_t now) {
  auto table_of = [&](std::string_view name) -> const TableDescription& {
    return tables.get(name);
  };
  validate(request, table_of);
  CheckedTransaction checked;
  const std::string& token = request.client_request_token;
  if (!token.empty()) {
    checked.fingerprint = transaction_fingerprint(request);
    std::optional<IdempotencyRecord> record = transaction.find_token(token);
    if (record && record->expires_at > now) {
      if (record->fingerprint != checked.fingerprint) {
        throw Error(ErrorCode::IdempotentParameterMismatch,
                    fmt::format("client request token \"{}\" was used for a "
                                "different transaction in the last {} seconds",
                                token, limits::kIdempotencyWindowSeconds));
      }
      return std::nullopt;  // applied before: nothing to write
    }
  }

  checked.writes.resize(request.actions.size());
  std::vector<CancellationReason> reasons;
  bool canceled = false;
  for (std::size_t i = 0; i < request.actions.size(); ++i) {
    PlannedWrite& write = checked.writes[i];
    CancellationReason reason{"None", ""};
    try {
      std::visit(
          [&](const auto& action) {
            using A = std::decay_t<decltype(action)>;
            const TableDescription& table = table_of(action.table);
            write.table = &table;
            if constexpr (std::is_same_v<A, PutRequest>) {
              write.key = stored_key(table, action.item);
              check_condition_at(transaction, table, write.key, action.condition, action.item);
              write.put_item = &action.item;
            } else if constexpr (std::is_same_v<A, UpdateRequest>) {
              write.key = stored_key(table, action.key);
              std::optional<Item> current = transaction.read(table, write.key);
              check_condition(table, action.condition, current, action.key);
              write.updated = updated_item(table, action, current);
            } else if constexpr (std::is_same_v<A, DeleteRequest>) {
              write.key = stored_key(table, action.key);
              check_condition_at(transaction, table, write.key, action.condition, action.key);
            } else {
              write.key = stored_key(table, action.key);
              check_condition_at(transaction, table, write.key, action.condition, action.key);
              write.writes = false;
            }
          },
          request.actions[i]);
    } catch (const Error& e) {
      bool condition = e.code() == ErrorCode::ConditionalCheckFailed;
      bool invalid = e.code() == ErrorCode::ValidationError || e.code() == ErrorCode::ItemTooLarge;
      if (!condition && !invalid) throw;
      reason = CancellationReason{condition ? "ConditionalCheckFailed" : "ValidationError",
                                  e.message()};
      canceled = true;
    }
    reasons.push_back(std::move(reason));
  }
  if (canceled) {
    std::string codes;
    for (const CancellationReason& reason : reasons) {
      codes += (codes.empty() ? "" : ", ") + reason.code;
    }
    throw Error(ErrorCode::TransactionCanceled,
                fmt::format("transaction canceled, nothing was written; reasons [{}]", codes),
                std::move(reasons));
  }
  return checked;
}

void EmbeddedEngine::write(StoreTransaction& transaction, const TransactWriteRequest& request,
                           const CheckedTransaction& checked, std::int64_t now) {
  for (const PlannedWrite& write : checked.writes) {
    if (!write.writes) continue;
    if (const Item* item = write.item()) {
      transaction.write(*write.table, write.key, *item, index_entries(*write.table, *item));
    } else {
      transaction.erase(*write.table, write.key);
    }
  }
  if (!request.client_request_token.empty()) {
    transaction.save_token(request.client_request_token,
                           IdempotencyRecord{checked.fingerprint,
                                             now + limits::kIdempotencyWindowSeconds});
    purge_tokens_now_and_then(transaction, now);
  }
}

// Expired tokens are only garbage, so sweeping them once a minute keeps the
// token store small without a sweep on every transaction.
void EmbeddedEngine::purge_tokens_now_and_then(StoreTransaction& transaction,
                                               std::int64_t now) {
  constexpr std::int64_t kPurgeIntervalSeconds = 60;
  std::int64_t due = next_token_purge_.load(std::memory_order_relaxed);
  if (now < due) return;
  if (!next_token_purge_.compare_exchange_strong(due, now + kPurgeIntervalSeconds)) return;
  transaction.purge_tokens(now);
}

}  // namespace stowage::table
