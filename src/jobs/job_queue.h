// JobQueue: the durable job items of one table (docs/attachments.md, Job)
// as a queue that several workers in several processes drain together.
//
// A job lives in its queue's partition, ns#Jobs#<queue>, and is run by
// whoever claims it:
//   due       lists jobs whose run_at has come and that nobody holds
//   claim     one conditional update takes the lease (as_lease_until =
//             now + lease) and counts the attempt; of two claimers exactly
//             one succeeds
//   complete  deletes the job
//   retry_later / discard
//             put it back with a backoff / delete it without running it
// Every write after the claim is conditioned on as_lease_until still being
// the value this claim set. A worker whose lease ran out and whose job was
// claimed again therefore changes nothing (it gets `false`), and the new
// owner's claim stands. Lease values only grow (a claim needs the old lease
// to be in the past), so one value names one claim.
//
// The guarantee is at-least-once: a worker that crashes, or runs a job for
// longer than the lease, leaves the job to be claimed and run again when the
// lease has expired. Handlers must be safe to run twice.
//
// After max_attempts failed runs, retry_later moves the job to the queue's
// dead-letter partition, ns#DeadJobs#<queue> (same sort key, the item
// otherwise unchanged plus as_last_error), and logs it: nothing drains that
// partition, so a job that keeps failing stops costing work but stays for an
// operator to inspect or re-enqueue.
//
// Times come from the injected clock, so tests can move a lease past its
// expiry; clocks of processes sharing a table should agree to well within
// the lease.
//
// Thread-safe: holds only immutable state; the engine and the schema must
// outlive it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/outbox.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::jobs {

// The time seam: system_clock::now in production.
using Clock = std::function<std::chrono::system_clock::time_point()>;

struct JobQueueOptions {
  // How long a claim keeps other workers off a job. Longer than any handler
  // runs, or a slow job is run twice.
  std::chrono::microseconds lease = std::chrono::minutes(5);
  // The n-th failed attempt waits first_backoff * 2^(n-1), at most
  // max_backoff.
  std::chrono::microseconds first_backoff = std::chrono::seconds(1);
  std::chrono::microseconds max_backoff = std::chrono::hours(1);
  // Failed attempts after which a job is dead-lettered.
  std::int64_t max_attempts = 12;
  Clock clock = [] { return std::chrono::system_clock::now(); };
};

class JobQueue {
 public:
  // Throws Error(ConfigurationError) unless the lease and the backoffs are
  // positive and max_attempts is at least 1.
  JobQueue(table::Engine& engine, const schema::TableSchema& schema,
           JobQueueOptions options = {});

  // Writes a job that no other change is tied to (changes add
  // model::enqueue_action to their own transactions instead). Enqueuing a
  // job whose item already exists is a no-op, so a retried call is safe.
  void enqueue(const model::Job& job);

  // Up to `limit` jobs of `queue` that may be claimed now (run_at reached,
  // no lease or an expired one), oldest first. In Mode B the listing reads
  // the GSI and may lag; claim() is what decides. An item that is not a
  // readable job is logged and skipped, so it cannot stall the queue.
  std::vector<model::Job> due(std::string_view queue, std::size_t limit) const;

  // Takes the lease on `job` and counts the attempt. Returns the job as
  // claimed (attempts and lease_until updated), or nullopt when it is gone,
  // held by a live lease, or not yet due (another worker claimed it first,
  // or put it back with a backoff).
  std::optional<model::Job> claim(const model::Job& job) const;

  // The three ends of a claimed run. Each returns false, changing nothing,
  // when the claim has been lost (the job is gone or claimed again).
  // REQUIRES: `job` is what claim() returned.
  //
  // complete: the job is done; its item is deleted.
  bool complete(const model::Job& job) const;
  // The run failed with `error`: the job becomes due again after the
  // backoff for its attempt count, with the error kept in as_last_error,
  // or is dead-lettered when that count has reached max_attempts.
  bool retry_later(const model::Job& job, std::string_view error) const;
  // The job can never succeed (its target is gone): deleted unrun, with a
  // log line giving `reason`.
  bool discard(const model::Job& job, std::string_view reason) const;

  // How long a job waits after its n-th failed attempt (n >= 1).
  std::chrono::microseconds backoff(std::int64_t attempts) const;

  // The partitions jobs of `queue` live in while queued and once dead.
  std::string queue_partition(std::string_view queue) const;
  std::string dead_letter_partition(std::string_view queue) const;

 private:
  std::int64_t now_micros() const;
  // The condition every write after a claim carries.
  table::Condition lease_is(const model::Job& job) const;
  bool dead_letter(const model::Job& job, std::string_view error) const;

  table::Engine& engine_;
  const schema::TableSchema& schema_;
  const JobQueueOptions options_;
};

}  // namespace stowage::jobs
