#include "model/storage_tracking.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ledger/owner_context.h"
#include "ledger/tracked_change.h"
#include "stowage/error.h"

namespace stowage::model {
namespace {

constexpr char kAccountIdArg[] = "account_id";
constexpr char kBoardIdArg[] = "board_id";
constexpr char kCoalesceKeyArg[] = "coalesce_key";  // jobs/worker_pool.h

// The tracked rows' net delta and what the entry lists.
struct TrackedRows {
  std::int64_t delta_bytes = 0;
  bool added = false;
  bool removed = false;
  ledger::ChangeDetails details;
};

TrackedRows tracked_rows(const ChangeSet& change) {
  TrackedRows rows;
  for (const Attachment& attachment : change.added_rows()) {
    if (!attachment.tracked) continue;
    rows.added = true;
    rows.delta_bytes += static_cast<std::int64_t>(attachment.byte_size);
    rows.details.blob_ids.push_back(attachment.blob_id);
    rows.details.attachment_ids.push_back(attachment.id);
  }
  for (const Attachment& attachment : change.removed_rows()) {
    if (!attachment.tracked) continue;
    rows.removed = true;
    rows.delta_bytes -= static_cast<std::int64_t>(attachment.byte_size);
    rows.details.blob_ids.push_back(attachment.blob_id);
    rows.details.attachment_ids.push_back(attachment.id);
  }
  rows.details.operation = !rows.removed ? ledger::Operation::Attach
                           : !rows.added ? ledger::Operation::Detach
                                         : ledger::Operation::Replace;
  return rows;
}

std::string owner_label(const OwnerRef& owner) {
  return owner.record_type + " " + owner.record_id;
}

}  // namespace

StorageTracking::StorageTracking(table::Engine& engine, const schema::TableSchema& schema)
    : engine_(engine), schema_(schema), quotas_(engine, schema) {}

void StorageTracking::add_to(ChangeSet& change, const OwnerRef& owner,
                             const ChangeContext& context) const {
  TrackedRows rows = tracked_rows(change);
  if (!rows.added && !rows.removed) return;
  const ledger::OwnerContext owner_context =
      ledger::read_owner_context(engine_, schema_, {owner.record_type, owner.record_id});
  quotas_.check(owner_context, rows.delta_bytes);

  rows.details.actor_id = context.actor_id;
  rows.details.request_id = context.request_id;
  std::vector<table::TransactAction> actions =
      ledger::actions_for_change(schema_, owner_context, rows.delta_bytes, rows.details);
  // actions_for_change's order: the context update, then one entry per
  // ledger in ledgers() order.
  const std::vector<ledger::Ledger> ledgers = owner_context.ledgers();
  change.add_action(std::move(actions.at(0)),
                    "the owner context of " + owner_label(owner) +
                        " (its account or board changed meanwhile)");
  for (std::size_t i = 0; i < ledgers.size(); ++i) {
    change.add_action(std::move(actions.at(i + 1)),
                      "the ledger entry of " + ledgers[i].describe());
  }
  if (!ledgers.empty()) change.enqueue(materialize_job(owner_context));
}

Job materialize_job(const ledger::OwnerContext& context) {
  table::Item args;
  std::string coalesce_key = "materialize";
  for (const ledger::Ledger& ledger : context.ledgers()) {
    const bool account = ledger.owner == schema::LedgerOwner::Account;
    args.emplace(account ? kAccountIdArg : kBoardIdArg, table::Value::string(ledger.owner_id));
    coalesce_key += " " + ledger.describe();
  }
  args.emplace(kCoalesceKeyArg, table::Value::string(std::move(coalesce_key)));
  return make_job(kMaterializeJob, std::move(args));
}

std::vector<ledger::Ledger> materialize_targets(const Job& job) {
  // An absent argument is an owner without that ledger; a present one must
  // be a string.
  auto arg = [&job](const char* name) -> const std::string* {
    const auto it = job.args.find(name);
    if (it == job.args.end()) return nullptr;
    if (it->second.type() != table::Type::S) {
      throw Error(ErrorCode::IntegrityError, "job " + job.id + " (" + job.type +
                                                 ") has a non-string argument \"" + name +
                                                 "\"");
    }
    return &it->second.as_string();
  };
  std::vector<ledger::Ledger> ledgers;
  if (const std::string* account_id = arg(kAccountIdArg)) {
    ledgers.push_back(ledger::Ledger::account(*account_id));
  }
  if (const std::string* board_id = arg(kBoardIdArg)) {
    ledgers.push_back(ledger::Ledger::board(*board_id));
  }
  if (ledgers.empty()) {
    throw Error(ErrorCode::IntegrityError,
                "job " + job.id + " (" + job.type + ") names no ledger: it has no string "
                "argument \"" + kAccountIdArg + "\" or \"" + kBoardIdArg + "\"");
  }
  return ledgers;
}

}  // namespace stowage::model
