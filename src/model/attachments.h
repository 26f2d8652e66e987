// Attachments: Active Storage's attach / replace / detach / purge and the
// owner's dependent cleanup, each ONE transaction (DESIGN I1-I3) built with
// ChangeSet, plus the owner's listings.
//
// Requests per call (docs/attachments.md):
//   attach(Blob) to a many      1 transaction; never reads the collection, so
//                               it costs the same at 1 and at 1,000 rows
//   attach(Blob) to a one       1 query (the current row) + 1 transaction
//   attach(blob_id)             1 GetItem of the blob more (its fields are
//                               validated and copied onto the row)
//   list                        1 query per page; rows carry the blob's
//                               immutable fields, so no blob is read
//   detach / purge / replace / destroy_owner
//                               the queries that find the rows + 1 transaction
//   a change with tracked rows  1 GetItem of the owner's context more, and
//                               when it adds bytes 1 GetItem per ledger of
//                               the owner (its quota) + 1 query per ledger
//                               that has one (model/storage_tracking.h)
//   (an inline purge after the commit adds BlobStore::purge's requests)
// A row that a concurrent or repeated change already removed is dropped and
// the change retried without it: never a second decrement. Tracked rows are
// recorded on the storage ledger in the same transaction; a change racing a
// transfer of its owner is rebuilt from the moved context, and a change that
// would exceed a quota throws Error(QuotaExceeded) before any write. Every
// change takes an optional ChangeContext (actor, request id) that the
// ledger's entries record. After the commit,
// blobs whose last reference went and whose rule is purge are purged inline;
// purge_later leaves that to the purge_blob job the transaction wrote.
// Attaching a blob whose bytes are not analyzed yet (a direct upload) also
// enqueues its analyze_blob job in the same transaction (one action more);
// the row keeps the declared content type it copied, and the blob gets the
// detected one when the job runs (BlobStore::analyze).
// Keys and definitions are checked before any request (InvalidKey,
// ValidationError).
//
// Listing order is R order: within one name, (created_at, id), the order of
// attachment; across names, by name first. In Mode B listings read the GSI and
// are eventually consistent.
//
// Thread safety: safe for concurrent use; the engine, the schema, the
// definitions and the blob store are shared and must outlive it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/quota.h"
#include "model/blob_store.h"
#include "model/change_context.h"
#include "model/change_set.h"
#include "model/definitions.h"
#include "model/records.h"
#include "model/storage_tracking.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::model {

struct AttachmentPage {
  std::vector<Attachment> attachments;
  // Pass to list() for the next page; nullopt on the last page.
  std::optional<std::string> next_page_token;
};

class Attachments {
 public:
  static constexpr std::size_t kDefaultPageSize = 100;

  Attachments(table::Engine& engine, const schema::TableSchema& schema,
              const Definitions& definitions, BlobStore& blobs);

  // A one: the new row replaces the current one (whose blob follows the
  // definition's dependent rule); a many: appended. Throws
  // Error(ValidationError) when the blob breaks the definition's limits,
  // Error(RecordNotFound) when the blob does not exist.
  Attachment attach(const OwnerRef& owner, std::string_view name, const Blob& blob,
                    const ChangeContext& context = {});
  Attachment attach(const OwnerRef& owner, std::string_view name, std::string_view blob_id,
                    const ChangeContext& context = {});

  // Appends every blob, in order, in one transaction. Throws
  // Error(ValidationError) for a one, Error(TransactionTooLarge) when the
  // change needs more than 100 actions.
  std::vector<Attachment> attach_many(const OwnerRef& owner, std::string_view name,
                                      const std::vector<std::string>& blob_ids,
                                      const ChangeContext& context = {});

  // The rows of `name` become exactly `blob_ids`, in one transaction; a blob
  // in both the old and the new set keeps its count (the deltas coalesce).
  // REQUIRES for a one: at most one blob id.
  std::vector<Attachment> replace(const OwnerRef& owner, std::string_view name,
                                  const std::vector<std::string>& blob_ids,
                                  const ChangeContext& context = {});

  // Removes one row (by id) or every row of `name`; the blobs are kept.
  // A row that is not there is a no-op.
  void detach(const OwnerRef& owner, std::string_view name,
              std::optional<std::string_view> attachment_id = std::nullopt,
              const ChangeContext& context = {});

  // Detaches, then purges each blob no attachment references any more: now
  // unless the definition says purge_later. A row that is not there is a
  // no-op.
  void purge(const OwnerRef& owner, std::string_view name,
             std::optional<std::string_view> attachment_id = std::nullopt,
             const ChangeContext& context = {});

  // Removes every attachment of the owner, each blob by its definition's
  // dependent rule, in one transaction; the tracked ones are recorded as
  // detached from the account and board of the owner's context.
  void destroy_owner(const OwnerRef& owner, const ChangeContext& context = {});

  // The owner's attachments (of `name`, or all), `limit` per page. Throws
  // Error(ValidationError) for a page token of another listing.
  AttachmentPage list(const OwnerRef& owner,
                      std::optional<std::string_view> name = std::nullopt,
                      std::optional<std::string_view> page_token = std::nullopt,
                      std::size_t limit = kDefaultPageSize) const;

  // The newest attachment of `name` (a one's current row); 1 query.
  std::optional<Attachment> find_one(const OwnerRef& owner, std::string_view name) const;

  // The quotas the tracked changes check (StorageTracking::quotas): a limit
  // set through them binds this instance's next change.
  const ledger::Quotas& quotas() const { return tracking_.quotas(); }

 private:
  // Readings of the clock for `count` new rows, each at least a microsecond
  // after the previous reading of this instance, so that rows attached one
  // after another (or together) get ids and created_at in attach order.
  std::chrono::system_clock::time_point reserve_times(std::size_t count);
  Attachment new_attachment(const OwnerRef& owner, std::string_view name,
                            const AttachmentDefinition& definition, const Blob& blob,
                            std::chrono::system_clock::time_point time) const;
  // Every row of the owner under `r_prefix`, all pages.
  std::vector<Attachment> rows(const OwnerRef& owner, std::string_view r_prefix) const;
  // The row, or nullopt; a consistent point read.
  std::optional<Attachment> row(const OwnerRef& owner, std::string_view name,
                                std::string_view attachment_id) const;
  // Puts `added` (rows of one owner and name that remove nothing) and
  // enqueues `jobs` in one transaction.
  void append_rows(const OwnerRef& owner, const std::vector<Attachment>& added,
                   const std::vector<Job>& jobs, const ChangeContext& context);
  // Puts `added`, enqueues `jobs` and removes the current rows of `name`
  // (by the definition's rule) in one transaction, re-reading the current
  // rows when one went meanwhile.
  void swap_rows(const OwnerRef& owner, std::string_view name,
                 const AttachmentDefinition& definition, const std::vector<Attachment>& added,
                 const std::vector<Job>& jobs, const ChangeContext& context);
  // Removes `rows` (all of `owner`), each by `rule_of(row)`, in one
  // transaction, dropping rows already gone; then purges what the rules
  // purge now.
  void remove_rows(const OwnerRef& owner, std::vector<Attachment> rows,
                   const std::function<Dependent(const Attachment&)>& rule_of,
                   const ChangeContext& context);
  void purge_now(const ChangeSet& change);

  table::Engine& engine_;
  const schema::TableSchema& schema_;
  const Definitions& definitions_;
  BlobStore& blobs_;
  const StorageTracking tracking_;
  std::atomic<std::int64_t> last_micros_{0};
};

}  // namespace stowage::model
