// PlainSqlite: raw sqlite3 on the sqlite engine's schema (see
// table/sqlite_engine.h), the peer a benchmark compares the engine with:
// what a hand-written application would do, with nothing of ours between
// its statements and the file but the item encoding. Items are keyed by the
// default table's attributes (table/default_table.h).
//
// Thread safety: one thread at a time, as the engine uses each connection.
#pragma once

#include <sqlite3.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/error.h"
#include "table/default_table.h"
#include "table/item_codec.h"

namespace stowage::bench {

using table::Item;
using table::Value;
using table::kDefaultHashAttribute;
using table::kDefaultRangeAttribute;
using table::decode_item;
using table::encode_item;
using table::key_order_bytes;

class PlainSqlite {
 public:
  PlainSqlite(const std::string& path, std::string table) : table_(std::move(table)) {
    // One thread uses this connection, as the engine uses each of its own.
    if (sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      fail("opening " + path);
    }
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    exec(R"sql(
      CREATE TABLE catalog(name TEXT PRIMARY KEY, description BLOB NOT NULL) WITHOUT ROWID;
      CREATE TABLE items(tbl TEXT NOT NULL, h BLOB NOT NULL, r BLOB NOT NULL,
        body BLOB NOT NULL, PRIMARY KEY(tbl, h, r)) WITHOUT ROWID;
      CREATE TABLE index_entries(tbl TEXT NOT NULL, idx TEXT NOT NULL,
        gh BLOB NOT NULL, gr BLOB NOT NULL, h BLOB NOT NULL, r BLOB NOT NULL,
        PRIMARY KEY(tbl, idx, gh, gr, h, r)) WITHOUT ROWID;
      CREATE INDEX index_entries_by_item ON index_entries(tbl, h, r);
      CREATE TABLE idempotency_tokens(token TEXT PRIMARY KEY,
        fingerprint BLOB NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
    )sql");
    select_ = prepare("SELECT body FROM items WHERE tbl = ?1 AND h = ?2 AND r = ?3");
    upsert_ = prepare("INSERT OR REPLACE INTO items(tbl, h, r, body) VALUES(?1, ?2, ?3, ?4)");
    query_ = prepare("SELECT body FROM items WHERE tbl = ?1 AND h = ?2 ORDER BY r");
    begin_ = prepare("BEGIN IMMEDIATE");
    commit_ = prepare("COMMIT");
  }
  ~PlainSqlite() {
    for (sqlite3_stmt* statement : {select_, upsert_, query_, begin_, commit_}) {
      sqlite3_finalize(statement);
    }
    sqlite3_close(db_);
  }
  PlainSqlite(const PlainSqlite&) = delete;
  PlainSqlite& operator=(const PlainSqlite&) = delete;

  std::optional<Item> read(const Item& key) {
    bind_key(select_, key);
    std::optional<Item> item;
    if (step(select_) == SQLITE_ROW) item = decode_item(column_blob(select_));
    sqlite3_reset(select_);
    return item;
  }

  void write(const Item& item) {
    std::string body = encode_item(item);
    bind_key(upsert_, item);
    bind_blob(upsert_, 4, body);
    step(upsert_);
    sqlite3_reset(upsert_);
  }

  std::vector<Item> partition(const std::string& hash) {
    std::string hash_bytes = key_order_bytes(Value::string(hash));
    sqlite3_bind_text(query_, 1, table_.c_str(), -1, SQLITE_STATIC);
    bind_blob(query_, 2, hash_bytes);
    std::vector<Item> items;
    while (step(query_) == SQLITE_ROW) items.push_back(decode_item(column_blob(query_)));
    sqlite3_reset(query_);
    return items;
  }

  void begin() { run(begin_); }
  void commit() { run(commit_); }

 private:
  void bind_key(sqlite3_stmt* statement, const Item& item) {
    // The statement only borrows the bytes; keep them until it is reset.
    key_hash_ = key_order_bytes(item.find(kDefaultHashAttribute)->second);
    key_range_ = key_order_bytes(item.find(kDefaultRangeAttribute)->second);
    sqlite3_bind_text(statement, 1, table_.c_str(), -1, SQLITE_STATIC);
    bind_blob(statement, 2, key_hash_);
    bind_blob(statement, 3, key_range_);
  }
  static void bind_blob(sqlite3_stmt* statement, int index, const std::string& bytes) {
    sqlite3_bind_blob(statement, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_STATIC);
  }
  static std::string_view column_blob(sqlite3_stmt* statement) {
    return {static_cast<const char*>(sqlite3_column_blob(statement, 0)),
            static_cast<std::size_t>(sqlite3_column_bytes(statement, 0))};
  }
  int step(sqlite3_stmt* statement) {
    int rc = sqlite3_step(statement);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail(sqlite3_sql(statement));
    return rc;
  }
  void run(sqlite3_stmt* statement) {
    step(statement);
    sqlite3_reset(statement);
  }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr) !=
        SQLITE_OK) {
      fail(sql);
    }
    return statement;
  }
  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
  }
  [[noreturn]] void fail(const std::string& what) {
    throw Error::io("plain sqlite: " + what + ": " + sqlite3_errmsg(db_));
  }

  std::string table_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* select_ = nullptr;
  sqlite3_stmt* upsert_ = nullptr;
  sqlite3_stmt* query_ = nullptr;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  std::string key_hash_;
  std::string key_range_;
};

}  // namespace stowage::bench
