#include "jobs/job_queue.h"

#include <algorithm>
#include <utility>
#include <variant>

#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "stowage/error.h"

namespace stowage::jobs {

namespace {

using table::Value;
namespace cond = table::cond;

// The Job item's attributes that the queue writes (docs/attachments.md);
// model::job_to_item writes the rest.
constexpr char kRunAtAttribute[] = "as_run_at";
constexpr char kAttemptsAttribute[] = "as_attempts";
constexpr char kLeaseUntilAttribute[] = "as_lease_until";
constexpr char kLastErrorAttribute[] = "as_last_error";

// An error message is kept for an operator, not as a record of everything
// a handler said; the cap keeps a job far below the 400 KB item limit.
constexpr std::size_t kLastErrorLimit = 1024;

// At most `limit` bytes of `text`, cut at a UTF-8 character boundary (the
// table rejects invalid UTF-8).
std::string truncated(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

bool is_conditional_failure(const Error& error) {
  return error.code() == ErrorCode::ConditionalCheckFailed;
}

}  // namespace

JobQueue::JobQueue(table::Engine& engine, const schema::TableSchema& schema,
                   JobQueueOptions options)
    : engine_(engine), schema_(schema), options_(std::move(options)) {
  using std::chrono::microseconds;
  if (options_.lease <= microseconds::zero() ||
      options_.first_backoff <= microseconds::zero() ||
      options_.max_backoff < options_.first_backoff) {
    throw Error::configuration(
        "job queue: the lease and first_backoff must be positive and "
        "max_backoff at least first_backoff");
  }
  if (options_.max_attempts < 1) {
    throw Error::configuration("job queue: max_attempts must be at least 1, got " +
                               std::to_string(options_.max_attempts));
  }
  if (!options_.clock) throw Error::configuration("job queue: no clock given");
}

void JobQueue::enqueue(const model::Job& job) {
  table::PutRequest put = std::get<table::PutRequest>(model::enqueue_action(schema_, job));
  try {
    engine_.put(put);
  } catch (const Error& error) {
    // The item exists: this job was enqueued already (a retried call).
    if (!is_conditional_failure(error)) throw;
  }
}

std::vector<model::Job> JobQueue::due(std::string_view queue,
                                      std::size_t limit) const {
  std::vector<model::Job> jobs;
  if (limit == 0) return jobs;
  const std::int64_t now = now_micros();
  table::QueryRequest request = schema_.listing_query(queue_partition(queue), {});
  // Jobs waiting out a backoff share the partition with due ones, so pages
  // are read until `limit` due jobs are found, not `limit` items.
  while (true) {
    table::QueryResult page = engine_.query(request);
    for (const table::Item& item : page.items) {
      model::Job job;
      try {
        job = model::job_from_item(item);
      } catch (const Error& error) {
        spdlog::error("job queue {}: skipping an unreadable item: {}", queue,
                      error.what());
        continue;
      }
      const bool free = job.lease_until_micros == 0 || job.lease_until_micros < now;
      if (job.run_at_micros <= now && free) {
        jobs.push_back(std::move(job));
        if (jobs.size() == limit) return jobs;
      }
    }
    if (!page.last_evaluated_key) return jobs;
    request.exclusive_start_key = std::move(page.last_evaluated_key);
  }
}

std::optional<model::Job> JobQueue::claim(const model::Job& job) const {
  const std::int64_t now = now_micros();
  table::UpdateRequest request;
  request.table = schema_.table_name();
  request.key = schema_.physical_key(model::job_key(schema_.keys(), job));
  request.update.set(kLeaseUntilAttribute, Value::number(now + options_.lease.count()))
      .add(kAttemptsAttribute, Value::number(std::int64_t{1}));
  // Existence keeps a claim from creating a stub item for a finished job;
  // run_at keeps it from cutting short a backoff set since due() read it.
  request.condition = cond::exists(schema_.partition_key().name) &&
                      cond::le(kRunAtAttribute, Value::number(now)) &&
                      (cond::not_exists(kLeaseUntilAttribute) ||
                       cond::lt(kLeaseUntilAttribute, Value::number(now)));
  request.return_values = table::ReturnValues::AllNew;
  try {
    std::optional<table::Item> claimed = engine_.update(request);
    return model::job_from_item(claimed.value());
  } catch (const Error& error) {
    if (!is_conditional_failure(error)) throw;
    return std::nullopt;
  }
}

bool JobQueue::complete(const model::Job& job) const {
  table::DeleteRequest request;
  request.table = schema_.table_name();
  request.key = schema_.physical_key(model::job_key(schema_.keys(), job));
  request.condition = lease_is(job);
  try {
    engine_.remove(request);
    return true;
  } catch (const Error& error) {
    if (!is_conditional_failure(error)) throw;
    return false;
  }
}

bool JobQueue::retry_later(const model::Job& job, std::string_view error) const {
  if (job.attempts >= options_.max_attempts) return dead_letter(job, error);
  table::UpdateRequest request;
  request.table = schema_.table_name();
  request.key = schema_.physical_key(model::job_key(schema_.keys(), job));
  request.update
      .set(kRunAtAttribute, Value::number(now_micros() + backoff(job.attempts).count()))
      .remove(kLeaseUntilAttribute)
      .set(kLastErrorAttribute, Value::string(truncated(error, kLastErrorLimit)));
  request.condition = lease_is(job);
  try {
    engine_.update(request);
    return true;
  } catch (const Error& failure) {
    if (!is_conditional_failure(failure)) throw;
    return false;
  }
}

bool JobQueue::discard(const model::Job& job, std::string_view reason) const {
  if (!complete(job)) return false;
  spdlog::warn("discarded job {} ({}) of queue {} after {} attempt(s): {}", job.id,
               job.type, job.queue, job.attempts, reason);
  return true;
}

std::chrono::microseconds JobQueue::backoff(std::int64_t attempts) const {
  std::chrono::microseconds wait = options_.first_backoff;
  for (std::int64_t n = 1; n < attempts && wait < options_.max_backoff; ++n) wait *= 2;
  return std::min(wait, options_.max_backoff);
}

std::string JobQueue::queue_partition(std::string_view queue) const {
  return model::queue_partition(schema_.keys(), queue);
}

std::string JobQueue::dead_letter_partition(std::string_view queue) const {
  return schema_.keys().compose({{"kind", "DeadJobs"}, {"queue", queue}});
}

std::int64_t JobQueue::now_micros() const {
  return micros_since_epoch(options_.clock());
}

table::Condition JobQueue::lease_is(const model::Job& job) const {
  return cond::eq(kLeaseUntilAttribute, Value::number(job.lease_until_micros));
}

bool JobQueue::dead_letter(const model::Job& job, std::string_view error) const {
  model::Job dead = job;
  dead.lease_until_micros = 0;
  table::PutRequest put;
  put.table = schema_.table_name();
  put.item = model::job_to_item(schema_, dead);
  const schema::LogicalKey key = model::job_key(schema_.keys(), job);
  schema_.stamp(put.item, {dead_letter_partition(job.queue), key.r});
  put.item[kLastErrorAttribute] = Value::string(truncated(error, kLastErrorLimit));
  // Unconditional: a dead letter left by an earlier run of the same job
  // gives way to the newer one.

  table::DeleteRequest remove;
  remove.table = schema_.table_name();
  remove.key = schema_.physical_key(key);
  remove.condition = lease_is(job);

  table::TransactWriteRequest transaction;
  transaction.actions = {std::move(remove), std::move(put)};
  try {
    engine_.transact_write(transaction);
  } catch (const Error& failure) {
    const auto& reasons = failure.cancellation_reasons();
    const bool claim_lost = failure.code() == ErrorCode::TransactionCanceled &&
                            !reasons.empty() &&
                            reasons[0].code == "ConditionalCheckFailed";
    if (!claim_lost) throw;
    return false;
  }
  spdlog::error("dead-lettered job {} ({}) of queue {} after {} attempts: {}", job.id,
                job.type, job.queue, job.attempts, error);
  return true;
}

}  // namespace stowage::jobs
