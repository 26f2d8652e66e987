// The durable outbox: work that must happen after a change commits (delete
// a purged blob's bytes, purge a blob whose last attachment went, analyze a
// blob) is written as a Job item in the SAME transaction as the change, so
// a crash after the commit loses none of it. The jobs layer (src/jobs/)
// claims and runs these items; this header is only their format, so that the
// model can add them to its transactions without depending on the workers.
//
// Item layout (docs/attachments.md): H = ns#Jobs#<queue>, R = ns#Job#<id>.
// Thread-safe: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "schema/table_schema.h"
#include "table/requests.h"
#include "table/value.h"

namespace stowage::model {

// Job types the model enqueues. The jobs layer maps each to a handler.
inline constexpr std::string_view kPurgeBlobJob = "purge_blob";      // args: blob_id
inline constexpr std::string_view kDeleteBytesJob = "delete_bytes";  // args: service_name, key
inline constexpr std::string_view kAnalyzeBlobJob = "analyze_blob";  // args: blob_id
// args: account_id and/or board_id (the ledgers of one tracked change),
// coalesce_key (model/storage_tracking.h builds and reads them).
inline constexpr std::string_view kMaterializeJob = "materialize";

// The one queue every job goes to unless a caller names another.
inline constexpr std::string_view kDefaultQueue = "default";

struct Job {
  std::string id;        // UUID v7: time-ordered, so a queue drains oldest first
  std::string queue = std::string(kDefaultQueue);
  std::string type;
  table::Item args;
  std::int64_t run_at_micros = 0;   // not before (µs since the Unix epoch)
  std::int64_t attempts = 0;
  std::int64_t lease_until_micros = 0;  // 0: not claimed
  std::string created_at;
};

// H of the partition a queue's jobs wait in: ns#Jobs#<queue>.
std::string queue_partition(const schema::KeyScheme& keys, std::string_view queue);
// The job's key: H = queue_partition, R = ns#Job#<id>.
schema::LogicalKey job_key(const schema::KeyScheme& keys, const Job& job);

// A new job of `type` with `args`, runnable now.
Job make_job(std::string_view type, table::Item args);

// The transaction action that enqueues `job` (a Put conditioned on the
// item not existing, so a retried transaction cannot enqueue it twice).
table::TransactAction enqueue_action(const schema::TableSchema& schema,
                                     const Job& job);

table::Item job_to_item(const schema::TableSchema& schema, const Job& job);
// Throws Error(IntegrityError) naming the missing or mistyped attribute.
Job job_from_item(const table::Item& item);

}  // namespace stowage::model
