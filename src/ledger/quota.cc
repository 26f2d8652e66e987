#include "ledger/quota.h"

#include <mutex>
#include <string>
#include <utility>

#include "ledger/item_fields.h"
#include "ledger/totals.h"
#include "stowage/error.h"

namespace stowage::ledger {
namespace {

constexpr char kLimit[] = "as_limit_bytes";

}  // namespace

Quotas::Quotas(table::Engine& engine, const schema::TableSchema& schema, QuotaOptions options)
    : engine_(engine), schema_(schema), keys_(schema.keys()), options_(std::move(options)) {
  if (options_.cache_time < std::chrono::milliseconds::zero()) {
    throw Error::configuration("the quota cache time is " +
                               std::to_string(options_.cache_time.count()) +
                               " ms; give 0 ms or more");
  }
}

void Quotas::set_limit(const Ledger& ledger, std::optional<std::int64_t> limit_bytes) const {
  if (limit_bytes && *limit_bytes < 0) {
    throw Error::validation("the quota of " + ledger.describe() + " is " +
                            std::to_string(*limit_bytes) +
                            " bytes; give a limit of 0 bytes or more, or none");
  }
  const schema::LogicalKey key = keys_.quota(ledger);
  if (limit_bytes) {
    table::PutRequest put;
    put.table = schema_.table_name();
    put.item = {{"as_kind", table::Value::string("LedgerQuota")},
                {kLimit, table::Value::number(*limit_bytes)}};
    schema_.stamp(put.item, key);
    engine_.put(put);
  } else {
    table::DeleteRequest remove;
    remove.table = schema_.table_name();
    remove.key = schema_.physical_key(key);
    engine_.remove(remove);
  }
  // What this instance wrote is the newest it knows, whatever a concurrent
  // read of the old limit brings back (remember keeps the newer entry).
  const std::lock_guard lock(mutex_);
  cache_.insert_or_assign(ledger, CachedLimit{limit_bytes, options_.clock()});
}

std::optional<std::int64_t> Quotas::limit(const Ledger& ledger) const {
  // Stamped before the read, so the entry never looks fresher than it is.
  const auto read_at = options_.clock();
  table::GetRequest get;
  get.table = schema_.table_name();
  get.key = schema_.physical_key(keys_.quota(ledger));
  get.consistent_read = true;
  std::optional<table::Item> item = engine_.get(get);
  std::optional<std::int64_t> limit_bytes;
  if (item) limit_bytes = ItemFields(*item, "ledger quota").integer(kLimit);
  remember(ledger, limit_bytes, read_at);
  return limit_bytes;
}

std::optional<std::int64_t> Quotas::cached_limit(const Ledger& ledger) const {
  {
    const std::lock_guard lock(mutex_);
    const auto it = cache_.find(ledger);
    if (it != cache_.end() && options_.clock() - it->second.read_at < options_.cache_time) {
      return it->second.limit_bytes;
    }
  }
  return limit(ledger);
}

void Quotas::remember(const Ledger& ledger, std::optional<std::int64_t> limit_bytes,
                      std::chrono::steady_clock::time_point read_at) const {
  const std::lock_guard lock(mutex_);
  const auto [it, inserted] = cache_.try_emplace(ledger, CachedLimit{limit_bytes, read_at});
  // A read that started before a set_limit of this instance finished (or at
  // the same clock reading) must not bring back the limit it replaced.
  if (!inserted && it->second.read_at < read_at) it->second = {limit_bytes, read_at};
}

void Quotas::check(const OwnerContext& context, std::int64_t delta_bytes) const {
  if (delta_bytes <= 0) return;
  const Totals totals(engine_, schema_);
  for (const Ledger& ledger : context.ledgers()) {
    const std::optional<std::int64_t> limit_bytes = cached_limit(ledger);
    if (!limit_bytes) continue;
    const std::int64_t used = totals.bytes_used_exact(ledger);
    // Compared without forming used + delta_bytes, which a huge declared
    // size could overflow.
    if (delta_bytes <= *limit_bytes - used) continue;
    throw Error(ErrorCode::QuotaExceeded,
                ledger.describe() + " uses " + std::to_string(used) + " of its " +
                    std::to_string(*limit_bytes) + " bytes; adding " +
                    std::to_string(delta_bytes) + " bytes would exceed its quota. "
                    "Free space or raise the quota");
  }
}

}  // namespace stowage::ledger
