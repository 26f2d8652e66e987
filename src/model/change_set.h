// ChangeSet: the actions of one attachment change (attach, replace, detach,
// purge, destroy owner), gathered and then committed as ONE transaction
// (DESIGN I3), in the shapes of docs/attachments.md:
//   - attachment Puts (attribute_not_exists) and Deletes (attribute_exists,
//     so a row already gone cancels the change instead of decrementing its
//     blob a second time);
//   - one refcount action per distinct blob: the row changes' deltas summed,
//     an ADD when the sum is not zero and a ConditionCheck that the blob
//     exists when it is;
//   - a purge_blob job for every blob whose count the change lowers when a
//     removed row's dependent rule is purge or purge_later;
//   - jobs and actions that callers add (an analyze_blob job per attached
//     blob not analyzed yet; the ledger's entries and materialize jobs,
//     model/storage_tracking.h).
//
// Action budget: rows + distinct blobs + purge jobs + added actions and
// jobs must be at most 100 (DynamoDB's limit). So detaching N untracked rows
// of N distinct blobs takes 2N actions (N <= 50), and purging them 3N
// (N <= 33); a tracked change adds at most 3 ledger actions and 1
// materialize job.
//
// Thread safety: thread-compatible; one change is built by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/blob_store.h"
#include "model/definitions.h"
#include "model/outbox.h"
#include "model/records.h"
#include "schema/table_schema.h"
#include "table/engine.h"
#include "table/requests.h"

namespace stowage::model {

// What commit() did. When rows the change removes were already gone (a
// concurrent or duplicate detach/purge), nothing was written: the caller
// rebuilds the change without those rows, so they are never decremented
// twice. When no row was gone but the condition of an added action failed
// (the owner's context moved since it was read), nothing was written
// either: the caller rebuilds the change from fresh reads.
struct CommitResult {
  std::vector<std::string> gone_attachment_ids;
  std::vector<std::string> failed_actions;  // the labels of those added actions
  bool committed() const { return gone_attachment_ids.empty() && failed_actions.empty(); }
};

class ChangeSet {
 public:
  // REQUIRES: `schema` and `blobs` outlive the change set.
  ChangeSet(const schema::TableSchema& schema, const BlobStore& blobs);

  // Puts the attachment row and counts +1 on its blob.
  void add_attachment(const Attachment& attachment);
  // Deletes the row and counts -1 on its blob; `dependent` says whether the
  // blob is purged once nothing references it.
  void remove_attachment(const Attachment& attachment, Dependent dependent);
  void enqueue(const Job& job);
  // An action of another layer. `label` names it when it cancels the change.
  void add_action(table::TransactAction action, std::string label);

  // The rows the change puts and deletes, in the order they were added.
  const std::vector<Attachment>& added_rows() const { return puts_; }
  const std::vector<Attachment>& removed_rows() const { return deletes_; }

  // What the transaction will hold; see the budget above.
  std::size_t action_count() const;
  bool empty() const { return action_count() == 0; }

  // The blobs whose count the change lowers and a removed row of which has
  // dependent = purge: the caller purges them right after the commit (their
  // purge_blob job covers a crash before it does).
  std::vector<std::string> blobs_to_purge_now() const;

  // Writes every action in one transaction; an empty change writes nothing.
  // Throws, before any write, Error(TransactionTooLarge) with the count and
  // the limit. When the transaction is canceled: rows already gone are
  // returned (see CommitResult); a missing blob (never created, or purged)
  // throws Error(RecordNotFound) naming it; an attachment id already taken
  // throws Error(IntegrityError); a failed condition of an added action is
  // returned (see CommitResult); anything else (a conflict) is rethrown as
  // it came.
  [[nodiscard]] CommitResult commit(table::Engine& engine) const;

 private:
  struct BlobChange {
    std::int64_t delta = 0;
    bool purge_later = false;  // a removed row asked for a purge_blob job
    bool purge_now = false;    // ... and for an inline purge
  };
  // purge_blob jobs the change adds itself.
  std::size_t purge_job_count() const;

  struct LabeledAction {
    table::TransactAction action;
    std::string label;
  };

  const schema::TableSchema& schema_;
  const BlobStore& blobs_;
  std::vector<Attachment> puts_;
  std::vector<Attachment> deletes_;
  std::map<std::string, BlobChange> blob_changes_;
  std::vector<Job> jobs_;
  std::vector<LabeledAction> added_;
};

}  // namespace stowage::model
