// The sqlite engine: the embedded default. The Engine semantics of the
// embedded engines, durably in one SQLite file (WAL; PRAGMA synchronous as
// configured), shared safely by many threads (a pool of connections, each
// used by one thread at a time) and by several processes (every write is a
// BEGIN IMMEDIATE transaction, so a read-check-write is atomic across them).
// Thread-safe.
//
// Schema (the benchmark's plain-SQLite peer uses the same):
//
//   CREATE TABLE catalog(name TEXT PRIMARY KEY, description BLOB NOT NULL)
//     WITHOUT ROWID;
//   CREATE TABLE items(tbl TEXT NOT NULL, h BLOB NOT NULL, r BLOB NOT NULL,
//     body BLOB NOT NULL, PRIMARY KEY(tbl, h, r)) WITHOUT ROWID;
//   CREATE TABLE index_entries(tbl TEXT NOT NULL, idx TEXT NOT NULL,
//     gh BLOB NOT NULL, gr BLOB NOT NULL, h BLOB NOT NULL, r BLOB NOT NULL,
//     PRIMARY KEY(tbl, idx, gh, gr, h, r)) WITHOUT ROWID;
//   CREATE INDEX index_entries_by_item ON index_entries(tbl, h, r);
//   CREATE TABLE idempotency_tokens(token TEXT PRIMARY KEY,
//     fingerprint BLOB NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
//
// h, r, gh, gr are key_order_bytes of the key values (r and gr are empty
// blobs when there is no range key), so SQLite's memcmp order of blobs is
// DynamoDB's key order; body is encode_item of the whole item; description
// is encode_item of the table description as an item. A point read is
// `SELECT body FROM items WHERE tbl=? AND h=? AND r=?`.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "table/engine.h"

namespace stowage::table {

struct SqliteOptions {
  std::string path;                       // database file; created if missing
  std::string synchronous = "FULL";       // FULL | NORMAL | OFF (PRAGMA synchronous)
  std::chrono::milliseconds busy_timeout{30000};
};

// Opens (creating if needed) the database. Throws Error(ConfigurationError)
// for an empty path or an unknown synchronous setting, Error(IoError) when
// the file cannot be opened or set up.
std::unique_ptr<Engine> make_sqlite_engine(const SqliteOptions& options);

}  // namespace stowage::table
