// check_invariants(): DESIGN §4's invariants checked against real state — the
// whole table read page by page and every service listed — never against
// counters the code under test keeps.
//
//   I1  each blob's as_attachments_count (absent = 0) equals the number of
//       attachment items whose as_blob_id names it
//   I2  every attachment (and variant record) names a blob item that exists,
//       and carries that blob's immutable fields; no blob item is a
//       count-only zombie (every blob item reads as a whole blob)
//   I4  every owner context's tracked bytes equal Σ byte_size of the owner's
//       tracked attachment items; for every account and board named by a
//       context or a ledger entry, exact usage (Total + pending entries) and
//       Σ of all its entries both equal Σ byte_size of the tracked
//       attachments of the owners whose context names it. Pending entries
//       are leftovers: once materialized, the Total alone is that sum
//   I5  every blob's bytes exist in its service with its byte size; bytes no
//       blob references are orphans
//
// Orphaned bytes and job items are reported apart, as leftovers: while work
// is in flight they are expected, but once the jobs are drained and a sweep
// with grace 0 has run, none may be left.
//
// Extending: a new invariant is a function of the TableSnapshot (and the
// services) that appends to the report, called from check_invariants().
//
// Thread safety: reads only; run it while nothing writes, or a concurrent
// change may be seen half-way between its transaction and its bytes.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "model/blob_store.h"
#include "schema/table_schema.h"
#include "table/engine.h"
#include "table/value.h"

namespace stowage::testing {

// Every item of the table, sorted by as_kind.
struct TableSnapshot {
  std::vector<table::Item> blobs;
  std::vector<table::Item> attachments;
  std::vector<table::Item> variant_records;
  std::vector<table::Item> jobs;  // live and dead-lettered
  // Everything else (owner contexts, ledger items), for the checks of the
  // layers that own them.
  std::vector<table::Item> others;
};

// Scans the whole table with consistent reads, following every page.
TableSnapshot read_table(table::Engine& engine, const schema::TableSchema& schema);

struct InvariantReport {
  // Broken state: never acceptable.
  std::vector<std::string> violations;
  // Work not finished yet: orphaned bytes, job items.
  std::vector<std::string> leftovers;
  // What was read, so a test can tell an empty check from a passing one.
  std::size_t blobs = 0;
  std::size_t attachments = 0;
  std::size_t objects = 0;
  std::size_t ledgers = 0;  // accounts and boards checked for I4
};

std::ostream& operator<<(std::ostream& out, const InvariantReport& report);

InvariantReport check_invariants(table::Engine& engine, const schema::TableSchema& schema,
                                 const model::ServiceMap& services);

}  // namespace stowage::testing
