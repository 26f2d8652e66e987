#include "model/outbox.h"

#include <chrono>
#include <optional>

#include "common/clock.h"
#include "common/uuid.h"
#include "stowage/error.h"

namespace stowage::model {

namespace {

using table::Item;
using table::Type;
using table::Value;

constexpr std::string_view kJobKind = "Job";
// as_id and as_queue repeat what the keys hold, so that an item read back
// (from either mode's layout, without the schema) names its job.
constexpr std::string_view kKindAttribute = "as_kind";
constexpr std::string_view kIdAttribute = "as_id";
constexpr std::string_view kQueueAttribute = "as_queue";
constexpr std::string_view kJobTypeAttribute = "as_job_type";
constexpr std::string_view kArgsAttribute = "as_args";
constexpr std::string_view kRunAtAttribute = "as_run_at";
constexpr std::string_view kAttemptsAttribute = "as_attempts";
constexpr std::string_view kLeaseUntilAttribute = "as_lease_until";
constexpr std::string_view kCreatedAtAttribute = "as_created_at";

[[noreturn]] void malformed(const Item& item, const std::string& what) {
  throw Error(ErrorCode::IntegrityError,
              "Job item " + what + " (item: " + table::describe(item) + ")");
}

const Value* attribute(const Item& item, std::string_view name, Type type,
                       bool required) {
  const auto it = item.find(name);
  if (it == item.end()) {
    if (required) malformed(item, "has no " + std::string(name) + " attribute");
    return nullptr;
  }
  if (it->second.type() != type) {
    malformed(item, "has " + std::string(name) + " of type " +
                        std::string(table::type_name(it->second.type())) +
                        ", expected " + std::string(table::type_name(type)));
  }
  return &it->second;
}

std::int64_t int64_attribute(const Item& item, std::string_view name,
                             bool required) {
  const Value* value = attribute(item, name, Type::N, required);
  if (!value) return 0;
  const std::optional<std::int64_t> n = value->as_number().to_int64();
  if (!n) malformed(item, "has " + std::string(name) + " out of the 64-bit range");
  return *n;
}

}  // namespace

std::string queue_partition(const schema::KeyScheme& keys, std::string_view queue) {
  return keys.compose({{"kind", "Jobs"}, {"queue", queue}});
}

schema::LogicalKey job_key(const schema::KeyScheme& keys, const Job& job) {
  return {queue_partition(keys, job.queue), keys.compose({{"kind", "Job"}, {"job_id", job.id}})};
}

Job make_job(std::string_view type, table::Item args) {
  const auto now = std::chrono::system_clock::now();
  Job job;
  job.id = uuid_v7(now);
  job.type = std::string(type);
  job.args = std::move(args);
  job.run_at_micros = micros_since_epoch(now);
  job.created_at = iso8601_utc_micros(now);
  return job;
}

table::TransactAction enqueue_action(const schema::TableSchema& schema,
                                     const Job& job) {
  table::PutRequest put;
  put.table = schema.table_name();
  put.item = job_to_item(schema, job);
  put.condition = table::cond::not_exists(schema.partition_key().name);
  return put;
}

table::Item job_to_item(const schema::TableSchema& schema, const Job& job) {
  Item item;
  schema.stamp(item, job_key(schema.keys(), job));
  item[std::string(kKindAttribute)] = Value::string(std::string(kJobKind));
  item[std::string(kIdAttribute)] = Value::string(job.id);
  item[std::string(kQueueAttribute)] = Value::string(job.queue);
  item[std::string(kJobTypeAttribute)] = Value::string(job.type);
  item[std::string(kArgsAttribute)] = Value::map(job.args);
  item[std::string(kRunAtAttribute)] = Value::number(job.run_at_micros);
  item[std::string(kAttemptsAttribute)] = Value::number(job.attempts);
  if (job.lease_until_micros != 0) {
    item[std::string(kLeaseUntilAttribute)] = Value::number(job.lease_until_micros);
  }
  item[std::string(kCreatedAtAttribute)] = Value::string(job.created_at);
  return item;
}

Job job_from_item(const table::Item& item) {
  const std::string& kind =
      attribute(item, kKindAttribute, Type::S, true)->as_string();
  if (kind != kJobKind) {
    malformed(item, "has as_kind \"" + kind + "\", expected \"Job\"");
  }
  Job job;
  job.id = attribute(item, kIdAttribute, Type::S, true)->as_string();
  job.queue = attribute(item, kQueueAttribute, Type::S, true)->as_string();
  job.type = attribute(item, kJobTypeAttribute, Type::S, true)->as_string();
  job.args = attribute(item, kArgsAttribute, Type::M, true)->as_map();
  job.run_at_micros = int64_attribute(item, kRunAtAttribute, true);
  job.attempts = int64_attribute(item, kAttemptsAttribute, true);
  job.lease_until_micros = int64_attribute(item, kLeaseUntilAttribute, false);
  job.created_at = attribute(item, kCreatedAtAttribute, Type::S, true)->as_string();
  return job;
}

}  // namespace stowage::model
