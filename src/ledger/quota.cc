#include "ledger/quota.h"

#include "ledger/item_fields.h"
#include "ledger/totals.h"
#include "stowage/error.h"

namespace stowage::ledger {
namespace {

constexpr char kLimit[] = "as_limit_bytes";

}  // namespace

Quotas::Quotas(table::Engine& engine, const schema::TableSchema& schema)
    : engine_(engine), schema_(schema), keys_(schema.keys()) {}

void Quotas::set_limit(const Ledger& ledger, std::optional<std::int64_t> limit_bytes) const {
  if (limit_bytes && *limit_bytes < 0) {
    throw Error::validation("the quota of " + ledger.describe() + " is " +
                            std::to_string(*limit_bytes) +
                            " bytes; give a limit of 0 bytes or more, or none");
  }
  const schema::LogicalKey key = keys_.quota(ledger);
  if (!limit_bytes) {
    table::DeleteRequest remove;
    remove.table = schema_.table_name();
    remove.key = schema_.physical_key(key);
    engine_.remove(remove);
    return;
  }
  table::PutRequest put;
  put.table = schema_.table_name();
  put.item = {{"as_kind", table::Value::string("LedgerQuota")},
              {kLimit, table::Value::number(*limit_bytes)}};
  schema_.stamp(put.item, key);
  engine_.put(put);
}

std::optional<std::int64_t> Quotas::limit(const Ledger& ledger) const {
  table::GetRequest get;
  get.table = schema_.table_name();
  get.key = schema_.physical_key(keys_.quota(ledger));
  get.consistent_read = true;
  std::optional<table::Item> item = engine_.get(get);
  if (!item) return std::nullopt;
  return ItemFields(*item, "ledger quota").integer(kLimit);
}

void Quotas::check(const OwnerContext& context, std::int64_t delta_bytes) const {
  if (delta_bytes <= 0) return;
  const Totals totals(engine_, schema_);
  for (const Ledger& ledger : context.ledgers()) {
    const std::optional<std::int64_t> limit_bytes = limit(ledger);
    if (!limit_bytes) continue;
    const std::int64_t used = totals.bytes_used_exact(ledger);
    if (used + delta_bytes <= *limit_bytes) continue;
    throw Error(ErrorCode::QuotaExceeded,
                ledger.describe() + " uses " + std::to_string(used) + " of its " +
                    std::to_string(*limit_bytes) + " bytes; adding " +
                    std::to_string(delta_bytes) + " bytes would exceed its quota. "
                    "Free space or raise the quota");
  }
}

}  // namespace stowage::ledger
