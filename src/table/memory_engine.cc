#include "table/memory_engine.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <set>

#include "stowage/error.h"
#include "table/embedded_engine.h"

namespace stowage::table {
namespace {

struct StoredItem {
  Item item;
  std::vector<IndexEntry> entries;
};

struct MemoryTable {
  std::shared_ptr<const TableDescription> description;
  // hash → range → item, in key_order_bytes order.
  std::map<std::string, std::map<std::string, StoredItem>> partitions;
  // index name → index hash → positions in index order.
  std::map<std::string, std::map<std::string, std::set<PartitionPosition>>> indexes;
};

template <typename Iterator>
const auto& key_at(Iterator it) {
  if constexpr (requires { it->first; }) {
    return it->first;
  } else {
    return *it;
  }
}

// The part [first, last) of the ordered container `ordered` (keyed by range
// bytes, or by positions built from them with `key_for`) that lies within
// `bounds` and, in walk order, after `after`.
template <typename Ordered, typename KeyFor>
std::pair<typename Ordered::const_iterator, typename Ordered::const_iterator> bounded(
    const Ordered& ordered, const RangeBounds& bounds,
    const std::optional<typename Ordered::key_type>& after, bool forward, KeyFor key_for) {
  const auto end = ordered.end();
  auto later = [&](auto a, auto b) {
    if (a == end || b == end) return end;
    return key_at(a) < key_at(b) ? b : a;
  };
  auto earlier = [&](auto a, auto b) {
    if (a == end) return b;
    if (b == end) return a;
    return key_at(a) < key_at(b) ? a : b;
  };
  // A byte string followed by '\0' is the smallest one above it.
  auto first = ordered.begin();
  if (bounds.lower) {
    first = ordered.lower_bound(
        key_for(bounds.lower_inclusive ? *bounds.lower : *bounds.lower + '\0'));
  }
  auto last = end;
  if (bounds.upper) {
    last = ordered.lower_bound(
        key_for(bounds.upper_inclusive ? *bounds.upper + '\0' : *bounds.upper));
  }
  if (after) {
    if (forward) {
      first = later(first, ordered.upper_bound(*after));
    } else {
      last = earlier(last, ordered.lower_bound(*after));
    }
  }
  if (first == end || (last != end && !(key_at(first) < key_at(last)))) {
    return {end, end};
  }
  return {first, last};
}

// Calls `visit` on [first, last) forward or backward until it returns false.
template <typename Iterator, typename Visit>
void walk(Iterator first, Iterator last, bool forward, Visit visit) {
  if (forward) {
    for (auto it = first; it != last; ++it) {
      if (!visit(it)) return;
    }
  } else {
    for (auto it = last; it != first;) {
      --it;
      if (!visit(it)) return;
    }
  }
}

// The store of the memory engine. It is its own (only) transaction: begin
// takes the one mutex and commit or abandon releases it, so transactions run
// one at a time.
class MemoryStore final : public EmbeddedStore, private StoreTransaction {
 public:
  std::shared_ptr<const TableDescription> find_table(std::string_view name) override {
    std::lock_guard lock(mutex_);
    auto it = tables_.find(name);
    return it == tables_.end() ? nullptr : it->second.description;
  }

  void create_table(const TableDescription& description) override {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = tables_.try_emplace(description.name);
    if (!inserted) {
      throw Error(ErrorCode::ResourceInUse,
                  fmt::format("table \"{}\" already exists", description.name));
    }
    it->second.description = std::make_shared<const TableDescription>(description);
  }

  void delete_table(std::string_view name) override {
    std::lock_guard lock(mutex_);
    auto it = tables_.find(name);
    if (it == tables_.end()) {
      throw Error(ErrorCode::ResourceNotFound,
                  fmt::format("table \"{}\" does not exist", name));
    }
    tables_.erase(it);
  }

  StoreTransaction& begin(Access) override {
    mutex_.lock();
    return *this;
  }
  void commit(StoreTransaction&) override { mutex_.unlock(); }
  void abandon(StoreTransaction&) noexcept override { mutex_.unlock(); }

 private:
  std::optional<Item> read(const TableDescription& table, const StoredKey& key) override {
    const MemoryTable& t = table_at(table);
    auto partition = t.partitions.find(key.hash);
    if (partition == t.partitions.end()) return std::nullopt;
    auto it = partition->second.find(key.range);
    if (it == partition->second.end()) return std::nullopt;
    return it->second.item;
  }

  bool contains(const TableDescription& table, const StoredKey& key) override {
    const MemoryTable& t = table_at(table);
    auto partition = t.partitions.find(key.hash);
    return partition != t.partitions.end() && partition->second.contains(key.range);
  }

  void write(const TableDescription& table, const StoredKey& key, const Item& item,
             const std::vector<IndexEntry>& entries) override {
    MemoryTable& t = table_at(table);
    StoredItem& stored = t.partitions[key.hash][key.range];
    unindex(t, key, stored.entries);
    stored.item = item;
    stored.entries = entries;
    for (const IndexEntry& entry : entries) {
      t.indexes[entry.index_name][entry.hash].insert(PartitionPosition{entry.range, key});
    }
  }

  void erase(const TableDescription& table, const StoredKey& key) override {
    MemoryTable& t = table_at(table);
    auto partition = t.partitions.find(key.hash);
    if (partition == t.partitions.end()) return;
    auto it = partition->second.find(key.range);
    if (it == partition->second.end()) return;
    unindex(t, key, it->second.entries);
    partition->second.erase(it);
    if (partition->second.empty()) t.partitions.erase(partition);
  }

  void query(const TableDescription& table, const PartitionQuery& query,
             ItemSink& sink) override {
    const MemoryTable& t = table_at(table);
    if (query.index == nullptr) {
      auto partition = t.partitions.find(query.hash);
      if (partition == t.partitions.end()) return;
      std::optional<std::string> after;
      if (query.after) after = query.after->range;
      auto [first, last] = bounded(partition->second, query.bounds, after, query.forward,
                                   [](std::string range) { return range; });
      walk(first, last, query.forward,
           [&](auto it) { return sink.accept(it->second.item); });
      return;
    }
    auto index = t.indexes.find(query.index->name);
    if (index == t.indexes.end()) return;
    auto partition = index->second.find(query.hash);
    if (partition == index->second.end()) return;
    auto [first, last] = bounded(partition->second, query.bounds, query.after, query.forward,
                                 [](std::string range) {
                                   return PartitionPosition{std::move(range), {}};
                                 });
    walk(first, last, query.forward, [&](auto it) {
      const StoredKey& base = it->base;
      return sink.accept(t.partitions.at(base.hash).at(base.range).item);
    });
  }

  void scan(const TableDescription& table, const std::optional<StoredKey>& after,
            ItemSink& sink) override {
    const MemoryTable& t = table_at(table);
    auto partition = after ? t.partitions.lower_bound(after->hash) : t.partitions.begin();
    for (; partition != t.partitions.end(); ++partition) {
      const auto& items = partition->second;
      auto it = after && partition->first == after->hash ? items.upper_bound(after->range)
                                                         : items.begin();
      for (; it != items.end(); ++it) {
        if (!sink.accept(it->second.item)) return;
      }
    }
  }

  std::optional<IdempotencyRecord> find_token(std::string_view token) override {
    auto it = tokens_.find(token);
    if (it == tokens_.end()) return std::nullopt;
    return it->second;
  }

  void save_token(std::string_view token, const IdempotencyRecord& record) override {
    tokens_.insert_or_assign(std::string(token), record);
  }

  void purge_tokens(std::int64_t now) override {
    std::erase_if(tokens_, [now](const auto& entry) { return entry.second.expires_at <= now; });
  }

  // A table deleted since the engine looked it up is gone for the caller too.
  MemoryTable& table_at(const TableDescription& table) {
    auto it = tables_.find(table.name);
    if (it == tables_.end()) {
      throw Error(ErrorCode::ResourceNotFound,
                  fmt::format("table \"{}\" does not exist", table.name));
    }
    return it->second;
  }

  static void unindex(MemoryTable& t, const StoredKey& key,
                      const std::vector<IndexEntry>& entries) {
    for (const IndexEntry& entry : entries) {
      auto& partitions = t.indexes[entry.index_name];
      auto partition = partitions.find(entry.hash);
      partition->second.erase(PartitionPosition{entry.range, key});
      if (partition->second.empty()) partitions.erase(partition);
    }
  }

  std::mutex mutex_;
  std::map<std::string, MemoryTable, std::less<>> tables_;
  std::map<std::string, IdempotencyRecord, std::less<>> tokens_;
};

}  // namespace

std::unique_ptr<Engine> make_memory_engine() {
  return std::make_unique<EmbeddedEngine>(std::make_unique<MemoryStore>());
}

}  // namespace stowage::table
