#include "model/change_set.h"

#include <utility>

#include "model/item_conversion.h"
#include "stowage/error.h"
#include "table/limits.h"

namespace stowage::model {
namespace {

// Which part of the change an action of the transaction came from, so a
// cancellation reason can be traced back to a row, a blob or a job.
enum class Origin { Put, Delete, Blob, Job, Added };

struct Traced {
  Origin origin;
  std::string what;  // attachment id, blob id, job id or label
};

bool purges(Dependent dependent) { return dependent != Dependent::Detach; }

}  // namespace

ChangeSet::ChangeSet(const schema::TableSchema& schema, const BlobStore& blobs)
    : schema_(schema), blobs_(blobs) {}

void ChangeSet::add_attachment(const Attachment& attachment) {
  puts_.push_back(attachment);
  blob_changes_[attachment.blob_id].delta += 1;
}

void ChangeSet::remove_attachment(const Attachment& attachment, Dependent dependent) {
  deletes_.push_back(attachment);
  BlobChange& change = blob_changes_[attachment.blob_id];
  change.delta -= 1;
  change.purge_later = change.purge_later || purges(dependent);
  change.purge_now = change.purge_now || dependent == Dependent::Purge;
}

void ChangeSet::enqueue(const Job& job) { jobs_.push_back(job); }

void ChangeSet::add_action(table::TransactAction action, std::string label) {
  added_.push_back({std::move(action), std::move(label)});
}

std::size_t ChangeSet::purge_job_count() const {
  std::size_t count = 0;
  for (const auto& [blob_id, change] : blob_changes_) {
    if (change.delta < 0 && change.purge_later) ++count;
  }
  return count;
}

std::size_t ChangeSet::action_count() const {
  return puts_.size() + deletes_.size() + blob_changes_.size() + purge_job_count() +
         jobs_.size() + added_.size();
}

std::vector<std::string> ChangeSet::blobs_to_purge_now() const {
  std::vector<std::string> ids;
  for (const auto& [blob_id, change] : blob_changes_) {
    if (change.delta < 0 && change.purge_now) ids.push_back(blob_id);
  }
  return ids;
}

CommitResult ChangeSet::commit(table::Engine& engine) const {
  const std::size_t count = action_count();
  if (count == 0) return {};
  if (count > table::limits::kMaxTransactionActions) {
    throw Error(ErrorCode::TransactionTooLarge,
                "the change needs " + std::to_string(count) + " transaction actions (" +
                    std::to_string(puts_.size()) + " new rows, " +
                    std::to_string(deletes_.size()) + " removed rows, " +
                    std::to_string(blob_changes_.size()) + " blob counts, " +
                    std::to_string(purge_job_count() + jobs_.size()) + " jobs, " +
                    std::to_string(added_.size()) + " other) and a transaction holds at most " +
                    std::to_string(table::limits::kMaxTransactionActions) +
                    "; nothing was written: change fewer attachments at a time");
  }

  table::TransactWriteRequest request;
  std::vector<Traced> traced;
  request.actions.reserve(count);
  traced.reserve(count);
  const std::string key_attribute = schema_.partition_key().name;

  for (const Attachment& attachment : puts_) {
    request.actions.push_back(table::PutRequest{
        schema_.table_name(), attachment_to_item(schema_, attachment),
        table::cond::not_exists(key_attribute)});
    traced.push_back({Origin::Put, attachment.id});
  }
  for (const Attachment& attachment : deletes_) {
    const schema::LogicalKey key = schema_.keys().attachment(
        attachment.owner.record_type, attachment.owner.record_id, attachment.name,
        attachment.id);
    request.actions.push_back(table::DeleteRequest{
        schema_.table_name(), schema_.physical_key(key), table::cond::exists(key_attribute)});
    traced.push_back({Origin::Delete, attachment.id});
  }
  for (const auto& [blob_id, change] : blob_changes_) {
    request.actions.push_back(change.delta == 0 ? blobs_.blob_exists_check(blob_id)
                                                : blobs_.refcount_action(blob_id, change.delta));
    traced.push_back({Origin::Blob, blob_id});
  }
  for (const auto& [blob_id, change] : blob_changes_) {
    if (change.delta >= 0 || !change.purge_later) continue;
    const Job job = make_job(kPurgeBlobJob, {{"blob_id", table::Value::string(blob_id)}});
    request.actions.push_back(enqueue_action(schema_, job));
    traced.push_back({Origin::Job, job.id});
  }
  for (const Job& job : jobs_) {
    request.actions.push_back(enqueue_action(schema_, job));
    traced.push_back({Origin::Job, job.id});
  }
  for (const LabeledAction& added : added_) {
    request.actions.push_back(added.action);
    traced.push_back({Origin::Added, added.label});
  }

  try {
    engine.transact_write(request);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::TransactionCanceled) throw;
    const std::vector<CancellationReason>& reasons = error.cancellation_reasons();
    CommitResult result;
    // A row already gone explains a failed count on its blob too (a
    // concurrent purge may have removed both), so it is reported first and
    // the caller retries without it.
    for (std::size_t i = 0; i < reasons.size() && i < traced.size(); ++i) {
      if (reasons[i].code == "ConditionalCheckFailed" && traced[i].origin == Origin::Delete) {
        result.gone_attachment_ids.push_back(traced[i].what);
      }
    }
    if (!result.committed()) return result;
    for (std::size_t i = 0; i < reasons.size() && i < traced.size(); ++i) {
      if (reasons[i].code != "ConditionalCheckFailed") continue;
      switch (traced[i].origin) {
        case Origin::Blob:
          throw Error::not_found("blob " + traced[i].what +
                                 " does not exist (never created, or purged); nothing was "
                                 "written: attach an existing blob");
        case Origin::Put:
          throw Error(ErrorCode::IntegrityError,
                      "attachment id " + traced[i].what +
                          " is already taken; nothing was written");
        case Origin::Job:
          throw Error(ErrorCode::IntegrityError,
                      "job id " + traced[i].what + " is already taken; nothing was written");
        case Origin::Added:
          // A fresh read may pass (the owner's context moved): reported
          // once the errors no rebuild can cure are ruled out.
          result.failed_actions.push_back(traced[i].what);
          break;
        case Origin::Delete:
          break;
      }
    }
    if (!result.committed()) return result;
    throw;
  }
  return {};
}

}  // namespace stowage::model
