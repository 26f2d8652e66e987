#include "table/sqlite_engine.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "stowage/error.h"
#include "table/embedded_engine.h"
#include "table/item_codec.h"

namespace stowage::table {
namespace {

constexpr const char* kSchema = R"sql(
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS catalog(name TEXT PRIMARY KEY, description BLOB NOT NULL)
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS items(tbl TEXT NOT NULL, h BLOB NOT NULL, r BLOB NOT NULL,
  body BLOB NOT NULL, PRIMARY KEY(tbl, h, r)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS index_entries(tbl TEXT NOT NULL, idx TEXT NOT NULL,
  gh BLOB NOT NULL, gr BLOB NOT NULL, h BLOB NOT NULL, r BLOB NOT NULL,
  PRIMARY KEY(tbl, idx, gh, gr, h, r)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS index_entries_by_item ON index_entries(tbl, h, r);
CREATE TABLE IF NOT EXISTS idempotency_tokens(token TEXT PRIMARY KEY,
  fingerprint BLOB NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
COMMIT;
)sql";

// The error for result code `rc` of `db` while doing `what`.
Error sqlite_error(sqlite3* db, int rc, std::string_view path, std::string_view what) {
  if ((rc & 0xff) == SQLITE_FULL) {
    return Error::io(fmt::format("sqlite database \"{}\": disk full ({})", path, what));
  }
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  return Error::io(fmt::format("sqlite database \"{}\": {}: {}", path, what, message));
}

// The table description as an item, so the catalog stores it with the same
// codec as the items.
Value key_attribute_value(const KeyAttribute& attribute) {
  return Value::map(Item{{"name", Value::string(attribute.name)},
                         {"type", Value::string(attribute.type == KeyType::S ? "S" : "N")}});
}

Value key_schema_value(const KeySchema& schema) {
  Item item{{"hash", key_attribute_value(schema.hash)}};
  if (schema.range) item.emplace("range", key_attribute_value(*schema.range));
  return Value::map(std::move(item));
}

std::string encode_description(const TableDescription& description) {
  List indexes;
  for (const GlobalSecondaryIndex& index : description.global_secondary_indexes) {
    indexes.push_back(Value::map(Item{{"name", Value::string(index.name)},
                                      {"key_schema", key_schema_value(index.key_schema)}}));
  }
  return encode_item(Item{{"name", Value::string(description.name)},
                          {"key_schema", key_schema_value(description.key_schema)},
                          {"indexes", Value::list(std::move(indexes))}});
}

const Value& field(const Item& item, std::string_view name) {
  auto it = item.find(name);
  if (it == item.end()) {
    throw Error(ErrorCode::IntegrityError, fmt::format("field \"{}\" is missing", name));
  }
  return it->second;
}

KeyAttribute key_attribute_of(const Value& value) {
  const std::string& type = field(value.as_map(), "type").as_string();
  if (type != "S" && type != "N") {
    throw Error(ErrorCode::IntegrityError, fmt::format("key type \"{}\" is not S or N", type));
  }
  return KeyAttribute{field(value.as_map(), "name").as_string(),
                      type == "S" ? KeyType::S : KeyType::N};
}

KeySchema key_schema_of(const Value& value) {
  const Item& item = value.as_map();
  KeySchema schema{key_attribute_of(field(item, "hash")), std::nullopt};
  if (item.contains("range")) schema.range = key_attribute_of(field(item, "range"));
  return schema;
}

TableDescription decode_description(std::string_view bytes) {
  Item item = decode_item(bytes);
  TableDescription description{field(item, "name").as_string(),
                               key_schema_of(field(item, "key_schema")), {}};
  for (const Value& index : field(item, "indexes").as_list()) {
    description.global_secondary_indexes.push_back(GlobalSecondaryIndex{
        field(index.as_map(), "name").as_string(),
        key_schema_of(field(index.as_map(), "key_schema"))});
  }
  return description;
}

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, std::string_view path, std::string_view sql) {
    int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &statement_, nullptr);
    if (rc != SQLITE_OK) throw sqlite_error(db, rc, path, fmt::format("preparing \"{}\"", sql));
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(Statement&& other) noexcept
      : statement_(std::exchange(other.statement_, nullptr)) {}
  Statement& operator=(Statement&& other) noexcept {
    std::swap(statement_, other.statement_);
    return *this;
  }

  sqlite3_stmt* get() const { return statement_; }
  explicit operator bool() const { return statement_ != nullptr; }

 private:
  sqlite3_stmt* statement_ = nullptr;
};

// One execution of a prepared statement. Values are bound without copies,
// so they must outlive the Run; the statement is reset when the Run ends.
class Run {
 public:
  Run(sqlite3* db, std::string_view path, const Statement& statement)
      : db_(db), path_(path), statement_(statement.get()) {}
  ~Run() { sqlite3_reset(statement_); }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  Run& text(int index, std::string_view value) {
    check(sqlite3_bind_text(statement_, index, value.data(), static_cast<int>(value.size()),
                            SQLITE_STATIC));
    return *this;
  }
  Run& blob(int index, std::string_view value) {
    // A null pointer would bind NULL, not an empty blob.
    check(value.empty() ? sqlite3_bind_zeroblob(statement_, index, 0)
                        : sqlite3_bind_blob(statement_, index, value.data(),
                                            static_cast<int>(value.size()), SQLITE_STATIC));
    return *this;
  }
  Run& integer(int index, std::int64_t value) {
    check(sqlite3_bind_int64(statement_, index, value));
    return *this;
  }

  // True while there is a row to read.
  bool next() {
    int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) throw sqlite_error(db_, rc, path_, sqlite3_sql(statement_));
    return false;
  }
  void done() { next(); }

  std::string_view blob_column(int column) const {
    const void* data = sqlite3_column_blob(statement_, column);
    int size = sqlite3_column_bytes(statement_, column);
    if (data == nullptr) return {};
    return std::string_view(static_cast<const char*>(data), size);
  }
  std::int64_t integer_column(int column) const {
    return sqlite3_column_int64(statement_, column);
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) throw sqlite_error(db_, rc, path_, sqlite3_sql(statement_));
  }

  sqlite3* db_;
  std::string_view path_;
  sqlite3_stmt* statement_;
};

enum Bound { kOpen = 0, kInclusive = 1, kExclusive = 2 };

Bound bound_kind(const std::optional<std::string>& bound, bool inclusive) {
  return !bound ? kOpen : inclusive ? kInclusive : kExclusive;
}

// Parameters: ?1 table, ?2 partition hash, ?3 lower and ?4 upper range
// bound, ?5 start range; on an index also ?6 index name and ?7, ?8 the start
// position's base key.
std::string query_sql(bool on_index, Bound lower, Bound upper, bool has_after, bool forward) {
  std::string_view range = on_index ? "e.gr" : "r";
  std::string sql = on_index
                        ? "SELECT i.body FROM index_entries e CROSS JOIN items i ON i.tbl = "
                          "e.tbl AND i.h = e.h AND i.r = e.r WHERE e.tbl = ?1 AND e.idx = ?6 "
                          "AND e.gh = ?2"
                        : "SELECT body FROM items WHERE tbl = ?1 AND h = ?2";
  if (lower != kOpen) sql += fmt::format(" AND {} {} ?3", range, lower == kInclusive ? ">=" : ">");
  if (upper != kOpen) sql += fmt::format(" AND {} {} ?4", range, upper == kInclusive ? "<=" : "<");
  if (has_after) {
    std::string_view op = forward ? ">" : "<";
    sql += on_index ? fmt::format(" AND (e.gr, e.h, e.r) {} (?5, ?7, ?8)", op)
                    : fmt::format(" AND r {} ?5", op);
  }
  std::string_view direction = forward ? "" : " DESC";
  sql += on_index ? fmt::format(" ORDER BY e.gr{0}, e.h{0}, e.r{0}", direction)
                  : fmt::format(" ORDER BY r{}", direction);
  return sql;
}

using Access = EmbeddedStore::Access;

// One SQLite connection with its prepared statements; one thread at a time
// uses it, as a store transaction.
class Connection final : public StoreTransaction {
 public:
  Connection(const SqliteOptions& options, bool create_schema) : path_(options.path) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path_.c_str(), &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    db_.reset(db);
    if (rc != SQLITE_OK) throw sqlite_error(db, rc, path_, "opening");
    sqlite3_busy_timeout(db, static_cast<int>(options.busy_timeout.count()));
    std::string journal_mode;
    exec("PRAGMA journal_mode=WAL", "enabling WAL", &journal_mode);
    if (journal_mode != "wal") {
      throw Error::io(fmt::format("sqlite database \"{}\": cannot use WAL (journal mode is {})",
                                  path_, journal_mode));
    }
    exec("PRAGMA synchronous=" + options.synchronous, "setting synchronous", nullptr);
    if (create_schema) exec(kSchema, "creating the schema", nullptr);
    select_item_ = prepare("SELECT body FROM items WHERE tbl = ?1 AND h = ?2 AND r = ?3");
    item_exists_ = prepare("SELECT 1 FROM items WHERE tbl = ?1 AND h = ?2 AND r = ?3");
    upsert_item_ = prepare("INSERT OR REPLACE INTO items(tbl, h, r, body) VALUES(?1, ?2, ?3, ?4)");
    delete_item_ = prepare("DELETE FROM items WHERE tbl = ?1 AND h = ?2 AND r = ?3");
    delete_item_entries_ =
        prepare("DELETE FROM index_entries WHERE tbl = ?1 AND h = ?2 AND r = ?3");
    insert_entry_ = prepare(
        "INSERT INTO index_entries(tbl, idx, gh, gr, h, r) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    select_token_ =
        prepare("SELECT fingerprint, expires_at FROM idempotency_tokens WHERE token = ?1");
    upsert_token_ = prepare(
        "INSERT OR REPLACE INTO idempotency_tokens(token, fingerprint, expires_at) "
        "VALUES(?1, ?2, ?3)");
    purge_tokens_ = prepare("DELETE FROM idempotency_tokens WHERE expires_at <= ?1");
    begin_ = prepare("BEGIN IMMEDIATE");
    commit_ = prepare("COMMIT");
    rollback_ = prepare("ROLLBACK");
    scan_ = prepare("SELECT body FROM items WHERE tbl = ?1 ORDER BY h, r");
    scan_after_ = prepare(
        "SELECT body FROM items WHERE tbl = ?1 AND (h, r) > (?2, ?3) ORDER BY h, r");
  }

  // How the transaction on this connection began.
  Access access = Access::Read;

  void begin_write() { run(begin_).done(); }
  void commit_write() { run(commit_).done(); }
  void rollback_write() noexcept {
    // SQLite may already have rolled back (e.g. after SQLITE_FULL).
    if (sqlite3_get_autocommit(db_.get()) == 0) {
      sqlite3_step(rollback_.get());
      sqlite3_reset(rollback_.get());
    }
  }

  std::map<std::string, std::shared_ptr<const TableDescription>, std::less<>> load_catalog() {
    std::map<std::string, std::shared_ptr<const TableDescription>, std::less<>> catalog;
    Statement select = prepare("SELECT name, description FROM catalog");
    Run rows = run(select);
    while (rows.next()) {
      std::string name(rows.blob_column(0));
      try {
        catalog.emplace(name, std::make_shared<const TableDescription>(
                                  decode_description(rows.blob_column(1))));
      } catch (const Error& e) {
        throw Error(ErrorCode::IntegrityError,
                    fmt::format("sqlite database \"{}\": the catalog entry of table \"{}\" is "
                                "corrupted: {}",
                                path_, name, e.message()));
      }
    }
    return catalog;
  }

  // False when the table exists. Drops rows a process that still believed
  // in a deleted table may have written since.
  bool insert_table(const TableDescription& description) {
    std::string encoded = encode_description(description);
    Statement insert = prepare("INSERT OR IGNORE INTO catalog(name, description) VALUES(?1, ?2)");
    run(insert).text(1, description.name).blob(2, encoded).done();
    if (sqlite3_changes(db_.get()) == 0) return false;
    delete_table_rows(description.name);
    return true;
  }

  // False when there is no such table.
  bool drop_table(std::string_view name) {
    Statement remove = prepare("DELETE FROM catalog WHERE name = ?1");
    run(remove).text(1, name).done();
    if (sqlite3_changes(db_.get()) == 0) return false;
    delete_table_rows(name);
    return true;
  }

  std::optional<Item> read(const TableDescription& table, const StoredKey& key) override {
    Run row = run(select_item_);
    row.text(1, table.name).blob(2, key.hash).blob(3, key.range);
    if (!row.next()) return std::nullopt;
    return decode(table, row.blob_column(0));
  }

  bool contains(const TableDescription& table, const StoredKey& key) override {
    Run row = run(item_exists_);
    row.text(1, table.name).blob(2, key.hash).blob(3, key.range);
    return row.next();
  }

  void write(const TableDescription& table, const StoredKey& key, const Item& item,
             const std::vector<IndexEntry>& entries) override {
    std::string body = encode_item(item);
    run(upsert_item_).text(1, table.name).blob(2, key.hash).blob(3, key.range).blob(4, body).done();
    if (table.global_secondary_indexes.empty()) return;
    run(delete_item_entries_).text(1, table.name).blob(2, key.hash).blob(3, key.range).done();
    for (const IndexEntry& entry : entries) {
      run(insert_entry_)
          .text(1, table.name)
          .text(2, entry.index_name)
          .blob(3, entry.hash)
          .blob(4, entry.range)
          .blob(5, key.hash)
          .blob(6, key.range)
          .done();
    }
  }

  void erase(const TableDescription& table, const StoredKey& key) override {
    run(delete_item_).text(1, table.name).blob(2, key.hash).blob(3, key.range).done();
    if (table.global_secondary_indexes.empty()) return;
    run(delete_item_entries_).text(1, table.name).blob(2, key.hash).blob(3, key.range).done();
  }

  void query(const TableDescription& table, const PartitionQuery& query,
             ItemSink& sink) override {
    const RangeBounds& bounds = query.bounds;
    Bound lower = bound_kind(bounds.lower, bounds.lower_inclusive);
    Bound upper = bound_kind(bounds.upper, bounds.upper_inclusive);
    bool on_index = query.index != nullptr;
    bool has_after = query.after.has_value();
    std::size_t variant =
        ((((on_index ? 1 : 0) * 3 + lower) * 3 + upper) * 2 + (has_after ? 1 : 0)) * 2 +
        (query.forward ? 1 : 0);
    Statement& statement = queries_[variant];
    if (!statement) {
      statement = prepare(query_sql(on_index, lower, upper, has_after, query.forward));
    }

    Run rows = run(statement);
    rows.text(1, table.name).blob(2, query.hash);
    if (lower != kOpen) rows.blob(3, *bounds.lower);
    if (upper != kOpen) rows.blob(4, *bounds.upper);
    if (has_after) rows.blob(5, query.after->range);
    if (on_index) {
      rows.text(6, query.index->name);
      if (has_after) rows.blob(7, query.after->base.hash).blob(8, query.after->base.range);
    }
    while (rows.next()) {
      if (!sink.accept(decode(table, rows.blob_column(0)))) return;
    }
  }

  void scan(const TableDescription& table, const std::optional<StoredKey>& after,
            ItemSink& sink) override {
    Run rows = run(after ? scan_after_ : scan_);
    rows.text(1, table.name);
    if (after) rows.blob(2, after->hash).blob(3, after->range);
    while (rows.next()) {
      if (!sink.accept(decode(table, rows.blob_column(0)))) return;
    }
  }

  std::optional<IdempotencyRecord> find_token(std::string_view token) override {
    Run row = run(select_token_);
    row.text(1, token);
    if (!row.next()) return std::nullopt;
    return IdempotencyRecord{std::string(row.blob_column(0)), row.integer_column(1)};
  }

  void save_token(std::string_view token, const IdempotencyRecord& record) override {
    run(upsert_token_)
        .text(1, token)
        .blob(2, record.fingerprint)
        .integer(3, record.expires_at)
        .done();
  }

  void purge_tokens(std::int64_t now) override { run(purge_tokens_).integer(1, now).done(); }

 private:
  struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };

  Statement prepare(std::string_view sql) { return Statement(db_.get(), path_, sql); }
  Run run(const Statement& statement) { return Run(db_.get(), path_, statement); }

  // `result`, when given, receives the first column of the last row.
  void exec(const std::string& sql, std::string_view what, std::string* result) {
    auto keep_first_column = [](void* out, int columns, char** values, char**) {
      if (out != nullptr && columns > 0 && values[0] != nullptr) {
        *static_cast<std::string*>(out) = values[0];
      }
      return 0;
    };
    int rc = sqlite3_exec(db_.get(), sql.c_str(), keep_first_column, result, nullptr);
    if (rc != SQLITE_OK) {
      Error error = sqlite_error(db_.get(), rc, path_, what);
      if (sqlite3_get_autocommit(db_.get()) == 0) {
        sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
      }
      throw error;
    }
  }

  void delete_table_rows(std::string_view name) {
    Statement items = prepare("DELETE FROM items WHERE tbl = ?1");
    run(items).text(1, name).done();
    Statement entries = prepare("DELETE FROM index_entries WHERE tbl = ?1");
    run(entries).text(1, name).done();
  }

  Item decode(const TableDescription& table, std::string_view body) const {
    try {
      return decode_item(body);
    } catch (const Error& e) {
      throw Error(ErrorCode::IntegrityError,
                  fmt::format("sqlite database \"{}\", table \"{}\": a stored item is "
                              "corrupted: {}",
                              path_, table.name, e.message()));
    }
  }

  const std::string& path_;
  // Declared first so that it closes after every statement is finalized.
  std::unique_ptr<sqlite3, Closer> db_;
  Statement select_item_, item_exists_, upsert_item_, delete_item_, delete_item_entries_;
  Statement insert_entry_;
  Statement select_token_, upsert_token_, purge_tokens_;
  Statement begin_, commit_, rollback_;
  Statement scan_, scan_after_;
  // Prepared on first use, one per shape of query (see query_sql).
  std::array<Statement, 72> queries_;
};

std::string normalized_synchronous(const std::string& synchronous) {
  std::string upper = synchronous;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper != "FULL" && upper != "NORMAL" && upper != "OFF") {
    throw Error::configuration(fmt::format(
        "sqlite synchronous setting \"{}\" is not one of FULL, NORMAL, OFF", synchronous));
  }
  return upper;
}

SqliteOptions checked(SqliteOptions options) {
  if (options.path.empty()) {
    throw Error::configuration("the sqlite engine needs a database path");
  }
  options.synchronous = normalized_synchronous(options.synchronous);
  return options;
}

// The store of the sqlite engine: a pool of connections and the catalog
// cached in memory (reloaded when a lookup misses, since another process may
// have created the table).
class SqliteStore final : public EmbeddedStore {
 public:
  explicit SqliteStore(const SqliteOptions& options) : options_(checked(options)) {
    connections_.push_back(std::make_unique<Connection>(options_, true));
    idle_.push_back(connections_.back().get());
    catalog_ = connections_.back()->load_catalog();
  }

  std::shared_ptr<const TableDescription> find_table(std::string_view name) override {
    {
      std::shared_lock lock(catalog_mutex_);
      auto it = catalog_.find(name);
      if (it != catalog_.end()) return it->second;
    }
    Connection& connection = acquire();
    auto catalog = [&] {
      Released released(*this, connection);
      return connection.load_catalog();
    }();
    std::unique_lock lock(catalog_mutex_);
    catalog_ = std::move(catalog);
    auto it = catalog_.find(name);
    return it == catalog_.end() ? nullptr : it->second;
  }

  void create_table(const TableDescription& description) override {
    auto& connection = static_cast<Connection&>(begin(Access::Write));
    bool created;
    try {
      created = connection.insert_table(description);
    } catch (...) {
      abandon(connection);
      throw;
    }
    if (!created) {
      abandon(connection);
      throw Error(ErrorCode::ResourceInUse,
                  fmt::format("table \"{}\" already exists", description.name));
    }
    commit(connection);
    std::unique_lock lock(catalog_mutex_);
    catalog_.insert_or_assign(description.name,
                              std::make_shared<const TableDescription>(description));
  }

  void delete_table(std::string_view name) override {
    auto& connection = static_cast<Connection&>(begin(Access::Write));
    bool dropped;
    try {
      dropped = connection.drop_table(name);
    } catch (...) {
      abandon(connection);
      throw;
    }
    if (!dropped) {
      abandon(connection);
      throw Error(ErrorCode::ResourceNotFound, fmt::format("table \"{}\" does not exist", name));
    }
    commit(connection);
    std::unique_lock lock(catalog_mutex_);
    auto it = catalog_.find(name);
    if (it != catalog_.end()) catalog_.erase(it);
  }

  // Writers of this process queue on write_mutex_ rather than in SQLite's
  // sleeping busy handler; other processes are held off by BEGIN IMMEDIATE.
  StoreTransaction& begin(Access access) override {
    Connection& connection = acquire();
    connection.access = access;
    if (access == Access::Read) return connection;
    write_mutex_.lock();
    try {
      connection.begin_write();
    } catch (...) {
      write_mutex_.unlock();
      release(connection);
      throw;
    }
    return connection;
  }

  void commit(StoreTransaction& transaction) override {
    auto& connection = static_cast<Connection&>(transaction);
    if (connection.access == Access::Write) {
      try {
        connection.commit_write();
      } catch (...) {
        abandon(connection);
        throw;
      }
      write_mutex_.unlock();
    }
    release(connection);
  }

  void abandon(StoreTransaction& transaction) noexcept override {
    auto& connection = static_cast<Connection&>(transaction);
    if (connection.access == Access::Write) {
      connection.rollback_write();
      write_mutex_.unlock();
    }
    release(connection);
  }

 private:
  // Returns a connection to the pool when it goes out of scope.
  class Released {
   public:
    Released(SqliteStore& store, Connection& connection) : store_(store), connection_(connection) {}
    ~Released() { store_.release(connection_); }
    Released(const Released&) = delete;
    Released& operator=(const Released&) = delete;

   private:
    SqliteStore& store_;
    Connection& connection_;
  };

  Connection& acquire() {
    {
      std::lock_guard lock(pool_mutex_);
      if (!idle_.empty()) {
        Connection* connection = idle_.back();
        idle_.pop_back();
        return *connection;
      }
    }
    auto connection = std::make_unique<Connection>(options_, false);
    std::lock_guard lock(pool_mutex_);
    connections_.push_back(std::move(connection));
    return *connections_.back();
  }

  void release(Connection& connection) noexcept {
    std::lock_guard lock(pool_mutex_);
    idle_.push_back(&connection);
  }

  const SqliteOptions options_;
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> idle_;
  std::mutex write_mutex_;
  std::shared_mutex catalog_mutex_;
  std::map<std::string, std::shared_ptr<const TableDescription>, std::less<>> catalog_;
};

}  // namespace

std::unique_ptr<Engine> make_sqlite_engine(const SqliteOptions& options) {
  return std::make_unique<EmbeddedEngine>(std::make_unique<SqliteStore>(options));
}

}  // namespace stowage::table
