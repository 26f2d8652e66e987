// table_bench: what the table layer costs.
//
// 1. Throughput of the sqlite engine side by side with a plain SQLite loop
//    doing the same work — raw prepared statements, WAL, synchronous=FULL,
//    the engine's own schema and encoded item blobs, the same read-check-
//    write inside BEGIN IMMEDIATE. Target: the engine reaches at least 70 %
//    of the plain loop's ops/s for every operation.
// 2. Requests per operation on the dynamodb engine against moto, counted
//    both as Engine calls (CountingEngine) and as HTTP exchanges. Target: 1.
//
// The two sides run in alternating small batches, so a burst of noise on a
// shared machine penalises neither. Exits 1 when a target is missed.
// Databases live in a temporary directory removed at the end.
#include <sqlite3.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "aws/http_client.h"
#include "stowage/error.h"
#include "support/engines.h"
#include "table/counting_engine.h"
#include "table/default_table.h"
#include "table/engine.h"
#include "table/item_codec.h"
#include "table/sqlite_engine.h"
#include "plain_sqlite.h"

namespace {

using stowage::Error;
using stowage::ErrorCode;
using namespace stowage::table;

using stowage::bench::PlainSqlite;
using Clock = std::chrono::steady_clock;

constexpr double kThroughputTarget = 0.70;
constexpr const char* kTable = "bench";

// ---------------------------------------------------------------- data set

std::string sort_key(std::string_view prefix, int number) {
  return fmt::format("{}#{:04d}", prefix, number);
}

Item item_key(std::string partition, std::string sort) {
  return Item{{std::string(kDefaultHashAttribute), Value::string(std::move(partition))},
              {std::string(kDefaultRangeAttribute), Value::string(std::move(sort))}};
}

// About the size of a blob record: a few strings, numbers and a small map.
Item sample_item(std::string partition, std::string sort) {
  Item item = item_key(std::move(partition), std::move(sort));
  item["as_filename"] = Value::string("holiday-photo-2024-07-14.jpeg");
  item["as_content_type"] = Value::string("image/jpeg");
  item["as_byte_size"] = Value::number(std::int64_t{2'483'917});
  item["as_checksum"] = Value::string("q3VfCv2Yt0j7cFjkKqYt2w==");
  item["as_service_name"] = Value::string("local");
  item["as_count"] = Value::number(std::int64_t{0});
  item["as_metadata"] = Value::map(Item{{"width", Value::number(std::int64_t{4032})},
                                        {"height", Value::number(std::int64_t{3024})},
                                        {"analyzed", Value::boolean(true)}});
  return item;
}

// The partitions each operation works on, seeded identically on both sides.
constexpr int kGetItems = 100;
constexpr int kPutItems = 1000;
constexpr int kQueryItems = 10;
constexpr int kTransactionPutItems = 100;
const std::string kGetPartition = "bench#get";
const std::string kPutPartition = "bench#put";
const std::string kUpdatePartition = "bench#update";
const std::string kQueryPartition = "bench#query";
const std::string kTransactionPartition = "bench#transaction";

std::vector<Item> seed_items() {
  std::vector<Item> items;
  for (int i = 0; i < kGetItems; ++i) items.push_back(sample_item(kGetPartition, sort_key("item", i)));
  items.push_back(sample_item(kUpdatePartition, "counter"));
  for (int i = 0; i < kQueryItems; ++i) {
    items.push_back(sample_item(kQueryPartition, sort_key("item", i)));
  }
  for (const char* name : {"anchor", "counter-a", "counter-b"}) {
    items.push_back(sample_item(kTransactionPartition, name));
  }
  return items;
}

// ---------------------------------------------------------------- temp dir

class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "stowage-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error::io("cannot create a temporary directory from " + pattern);
    }
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  std::string file(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// ---------------------------------------------------------------- the engine side

// Increments as_count on an existing item: the shape of Stowage's refcount
// updates, which are always conditioned on the item's existence.
UpdateRequest increment(const std::string& table, Item key) {
  UpdateRequest request;
  request.table = table;
  request.key = std::move(key);
  request.update.add("as_count", Value::number(std::int64_t{1}));
  request.condition = cond::exists(std::string(kDefaultHashAttribute));
  return request;
}

// One condition check, two increments, two puts: an attach in miniature.
TransactWriteRequest five_actions(const std::string& table, int iteration) {
  TransactWriteRequest request;
  request.actions.push_back(ConditionCheck{table, item_key(kTransactionPartition, "anchor"),
                                           cond::exists(std::string(kDefaultHashAttribute))});
  for (const char* counter : {"counter-a", "counter-b"}) {
    request.actions.push_back(increment(table, item_key(kTransactionPartition, counter)));
  }
  for (const char* prefix : {"put-a", "put-b"}) {
    request.actions.push_back(PutRequest{
        table, sample_item(kTransactionPartition, sort_key(prefix, iteration % kTransactionPutItems))});
  }
  return request;
}

struct EngineSide {
  Engine& engine;

  void get(int i) {
    if (!engine.get({kTable, item_key(kGetPartition, sort_key("item", i % kGetItems))})) {
      throw Error(ErrorCode::IntegrityError, "engine get found no item");
    }
  }
  void put(int i) { engine.put({kTable, sample_item(kPutPartition, sort_key("item", i % kPutItems))}); }
  void update(int) { engine.update(increment(kTable, item_key(kUpdatePartition, "counter"))); }
  void query(int) {
    QueryRequest request;
    request.table = kTable;
    request.hash_value = Value::string(kQueryPartition);
    request.consistent_read = true;
    if (engine.query(request).items.size() != kQueryItems) {
      throw Error(ErrorCode::IntegrityError, "engine query returned the wrong number of items");
    }
  }
  void transaction(int i) { engine.transact_write(five_actions(kTable, i)); }
};

// ---------------------------------------------------------------- the plain side

// What a hand-written application would do for the same requests.
struct PlainSide {
  PlainSqlite& db;

  void get(int i) {
    if (!db.read(item_key(kGetPartition, sort_key("item", i % kGetItems)))) {
      throw Error(ErrorCode::IntegrityError, "plain get found no item");
    }
  }
  void put(int i) { db.write(sample_item(kPutPartition, sort_key("item", i % kPutItems))); }
  void update(int) {
    db.begin();
    increment_existing(item_key(kUpdatePartition, "counter"));
    db.commit();
  }
  void query(int) {
    if (db.partition(kQueryPartition).size() != kQueryItems) {
      throw Error(ErrorCode::IntegrityError, "plain query returned the wrong number of items");
    }
  }
  void transaction(int i) {
    db.begin();
    if (!db.read(item_key(kTransactionPartition, "anchor"))) {
      throw Error(ErrorCode::IntegrityError, "plain transaction: anchor missing");
    }
    increment_existing(item_key(kTransactionPartition, "counter-a"));
    increment_existing(item_key(kTransactionPartition, "counter-b"));
    for (const char* prefix : {"put-a", "put-b"}) {
      db.write(sample_item(kTransactionPartition, sort_key(prefix, i % kTransactionPutItems)));
    }
    db.commit();
  }

 private:
  // REQUIRES: inside begin()/commit().
  void increment_existing(const Item& key) {
    auto item = db.read(key);
    if (!item) throw Error(ErrorCode::IntegrityError, "plain update: item missing");
    Value& count = item->at("as_count");
    count = Value::number(count.as_number() + Number(1));
    db.write(*item);
  }
};

// ---------------------------------------------------------------- timing

struct Operation {
  std::string name;
  int count;       // per side
  int batch_size;  // ops per timed batch
  std::function<void(int)> engine;
  std::function<void(int)> plain;
};

std::chrono::duration<double> time_batch(const std::function<void(int)>& op, int first,
                                         int count) {
  auto start = Clock::now();
  for (int i = first; i < first + count; ++i) op(i);
  return Clock::now() - start;
}

struct Comparison {
  double engine_ops_per_second = 0;
  double plain_ops_per_second = 0;
};

// The sides alternate in small batches (and swap which goes first each
// time), so noise from other processes lands on both alike.
Comparison compare(const Operation& operation) {
  time_batch(operation.engine, 0, operation.batch_size);
  time_batch(operation.plain, 0, operation.batch_size);
  std::chrono::duration<double> engine_time{0};
  std::chrono::duration<double> plain_time{0};
  for (int first = operation.batch_size; first < operation.batch_size + operation.count;
       first += operation.batch_size) {
    bool engine_first = (first / operation.batch_size) % 2 == 0;
    if (engine_first) engine_time += time_batch(operation.engine, first, operation.batch_size);
    plain_time += time_batch(operation.plain, first, operation.batch_size);
    if (!engine_first) engine_time += time_batch(operation.engine, first, operation.batch_size);
  }
  return {operation.count / engine_time.count(), operation.count / plain_time.count()};
}

// Both sides ran the same requests, so they must have ended with the same
// items; a difference means the comparison measured different work.
void check_same_results(Engine& engine, PlainSqlite& plain) {
  for (const auto& [partition, sort] :
       {std::pair{kUpdatePartition, std::string("counter")},
        std::pair{kTransactionPartition, std::string("counter-a")},
        std::pair{kPutPartition, sort_key("item", 7)}}) {
    Item key = item_key(partition, sort);
    if (engine.get({kTable, key}) != plain.read(key)) {
      throw Error(ErrorCode::IntegrityError,
                  "the engine and the plain loop disagree on " + describe(key));
    }
  }
}

bool run_sqlite_comparison(const TemporaryDirectory& directory) {
  SqliteOptions options;
  options.path = directory.file("engine.db");
  options.synchronous = "FULL";
  std::unique_ptr<Engine> engine = make_sqlite_engine(options);
  engine->create_table(default_table_description(kTable, KeyLayout::ModeA));
  PlainSqlite plain(directory.file("plain.db"), kTable);
  for (const Item& item : seed_items()) {
    engine->put({kTable, item});
    plain.write(item);
  }

  EngineSide on_engine{*engine};
  PlainSide on_plain{plain};
  // Durable writes cost one fsync each (~0.2-5 ms); sized so the whole run
  // stays well under a minute on a slow, shared disk.
  std::vector<Operation> operations;
  auto add = [&](std::string name, int count, int batch_size, auto engine_member,
                 auto plain_member) {
    operations.push_back({std::move(name), count, batch_size,
                          [&, engine_member](int i) { (on_engine.*engine_member)(i); },
                          [&, plain_member](int i) { (on_plain.*plain_member)(i); }});
  };
  add("get", 20000, 500, &EngineSide::get, &PlainSide::get);
  add("put", 2000, 20, &EngineSide::put, &PlainSide::put);
  add("conditional update", 2000, 20, &EngineSide::update, &PlainSide::update);
  add("query (10 items)", 5000, 100, &EngineSide::query, &PlainSide::query);
  add("transaction (5 actions)", 1000, 20, &EngineSide::transaction, &PlainSide::transaction);

  fmt::print("sqlite engine vs plain SQLite (WAL, synchronous=FULL, same schema), "
             "interleaved batches\n\n");
  fmt::print("{:<26}{:>7}{:>15}{:>15}{:>8}{:>9}  {}\n", "operation", "ops", "engine ops/s",
             "plain ops/s", "ratio", "target", "result");
  bool all_met = true;
  for (const Operation& operation : operations) {
    Comparison result = compare(operation);
    double ratio = result.engine_ops_per_second / result.plain_ops_per_second;
    bool met = ratio >= kThroughputTarget;
    all_met = all_met && met;
    fmt::print("{:<26}{:>7}{:>15.0f}{:>15.0f}{:>8.2f}{:>9}  {}\n", operation.name,
               operation.count, result.engine_ops_per_second, result.plain_ops_per_second, ratio,
               fmt::format(">= {:.2f}", kThroughputTarget), met ? "PASS" : "MISS");
  }
  check_same_results(*engine, plain);
  return all_met;
}

// ---------------------------------------------------------------- dynamodb

// Counts HTTP exchanges, so a request the engine makes on its own behalf
// (a DescribeTable, a retry) shows up even though CountingEngine cannot see it.
class CountingHttpClient final : public stowage::aws::HttpClient {
 public:
  explicit CountingHttpClient(std::shared_ptr<stowage::aws::HttpClient> inner)
      : inner_(std::move(inner)) {}

  stowage::aws::HttpResponse send(const stowage::aws::HttpRequest& request) override {
    ++sent_;
    return inner_->send(request);
  }
  std::uint64_t sent() const { return sent_; }
  void reset() { sent_ = 0; }

 private:
  std::shared_ptr<stowage::aws::HttpClient> inner_;
  std::atomic<std::uint64_t> sent_{0};
};

std::string moto_binary() {
  const char* configured = std::getenv("STOWAGE_MOTO_SERVER");
  return configured != nullptr && *configured != '\0' ? configured : STOWAGE_DEFAULT_MOTO_SERVER;
}

bool run_dynamodb_request_counts() {
  std::string binary = moto_binary();
  if (!std::filesystem::exists(binary)) {
    fmt::print("requests per operation on the dynamodb engine: skipped, no moto server at {}\n"
               "(install it with the setup script or set STOWAGE_MOTO_SERVER)\n",
               binary);
    return true;
  }
  auto http = std::make_shared<CountingHttpClient>(stowage::aws::make_curl_http_client());
  CountingEngine engine(stowage::testing::make_moto_dynamodb_engine(http));
  std::string table = stowage::testing::unique_table_name("bench");
  engine.create_table(default_table_description(table, KeyLayout::ModeA));
  // The first request on a table fetches its description once; seeding
  // pays for that, so the counts below are per operation only.
  for (const char* name : {"anchor", "counter-a", "counter-b"}) {
    engine.put({table, sample_item(kTransactionPartition, name)});
  }

  QueryRequest query;
  query.table = table;
  query.hash_value = Value::string(kTransactionPartition);
  query.consistent_read = true;

  std::vector<std::pair<std::string, std::function<void()>>> operations = {
      {"get", [&] { engine.get({table, item_key(kTransactionPartition, "anchor")}); }},
      {"put", [&] { engine.put({table, sample_item(kPutPartition, "item")}); }},
      {"conditional update",
       [&] { engine.update(increment(table, item_key(kTransactionPartition, "counter-a"))); }},
      {"query", [&] { engine.query(query); }},
      {"transaction (5 actions)", [&] { engine.transact_write(five_actions(table, 0)); }},
  };

  fmt::print("requests per operation on the dynamodb engine (moto)\n\n");
  fmt::print("{:<26}{:>14}{:>15}{:>9}  {}\n", "operation", "engine calls", "HTTP requests",
             "target", "result");
  bool all_met = true;
  for (const auto& [name, operation] : operations) {
    engine.reset();
    http->reset();
    operation();
    std::uint64_t calls = engine.counts().total();
    std::uint64_t requests = http->sent();
    bool met = calls == 1 && requests == 1;
    all_met = all_met && met;
    fmt::print("{:<26}{:>14}{:>15}{:>9}  {}\n", name, calls, requests, "1", met ? "PASS" : "MISS");
  }
  engine.delete_table(table);
  return all_met;
}

}  // namespace

int main() {
  try {
    TemporaryDirectory directory;
    bool sqlite_met = run_sqlite_comparison(directory);
    fmt::print("\n");
    bool dynamodb_met = run_dynamodb_request_counts();
    fmt::print("\n{}\n", sqlite_met && dynamodb_met ? "all targets met" : "some targets missed");
    return sqlite_met && dynamodb_met ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "table_bench: %s\n", error.what());
    return 2;
  }
}
