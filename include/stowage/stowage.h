// Stowage: file attachments for application records, with their metadata in
// one table and their bytes in a storage service — the library's front door.
//
//   stowage::Stowage stowage = stowage::Stowage::open("stowage.toml");
//   stowage::Blob blob = stowage.create_and_upload("photo.jpg");
//   stowage.attach({"Card", "42"}, "image", blob);
//   for (const auto& attachment : stowage.list({"Card", "42"}).attachments) …
//
// Every method delegates to the model (model/blob_store.h,
// model/attachments.h, model/owner_contexts.h, model/sweep.h), the storage
// ledger (src/ledger/) and the job layer (src/jobs/); their
// headers give each operation's transactions, requests and errors. Work an
// operation leaves for later (purge_later, bytes of a purged blob) is a
// durable job: start_workers() runs it in the background, drain_jobs() runs
// what is due now.
//
// Thread safety: every operation may be called from many threads at once;
// start_workers(), stop_workers() and drain_jobs() from one controlling
// thread. Movable, not copyable.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/entry_listing.h"
#include "ledger/history.h"
#include "ledger/ledger_keys.h"
#include "ledger/owner_context.h"
#include "ledger/reconcile.h"
#include "ledger/totals.h"
#include "stowage/config.h"
#include "stowage/records.h"

namespace stowage {

// The storage ledger's types (src/ledger/): Ledger::account("7") and
// Ledger::board("7") name whose usage a call is about.
using ledger::Ledger;
using ledger::ListedEntry;
using ledger::MaterializeResult;
using ledger::OwnerContext;
using ledger::ReconcileOptions;
using ledger::ReconcileReport;
using ledger::UsagePoint;

class Stowage {
 public:
  // Opens the engine and the table (creating it when [table] manage_table
  // is set), builds the services and, with them, the model. Throws
  // Error(ConfigurationError) when there is no secret (naming both the
  // `secret` setting and STOWAGE_SECRET) or it is shorter than 32 bytes,
  // and whatever opening the engine, the table or a service throws.
  explicit Stowage(Config config);
  // Stowage(load_config(path)) and Stowage(parse_config(text)).
  static Stowage open(const std::filesystem::path& config_path);
  static Stowage from_toml(std::string_view config_text);

  // Stops the background workers first.
  ~Stowage();
  Stowage(Stowage&&) noexcept;
  Stowage& operator=(Stowage&&) noexcept;

  // Blobs ------------------------------------------------------------------

  // Uploads the bytes to the input's service (else the default one), then
  // writes the blob. The blob is not attached to anything yet: attach it,
  // or a sweep purges it once the grace period has passed.
  Blob create_and_upload(ByteSource& source, BlobInput input);
  // The file's bytes; its name is the blob's filename unless the input
  // gives one. Throws Error(IoError) naming a file that cannot be read.
  Blob create_and_upload(const std::filesystem::path& file, BlobInput input = {});

  // Throws Error(RecordNotFound) naming the id.
  Blob find_blob(std::string_view blob_id) const;
  // An id that names the blob for `purpose` only, until `expires_at`.
  std::string signed_id(
      std::string_view blob_id, std::string_view purpose,
      std::optional<std::chrono::system_clock::time_point> expires_at = std::nullopt) const;
  // nullopt when the signed id does not verify or the blob is gone.
  std::optional<Blob> find_signed(std::string_view signed_id, std::string_view purpose) const;

  // The blob's bytes, from its service. Throws Error(RecordNotFound) when
  // the bytes are gone.
  void download(const Blob& blob, ByteSink& sink) const;
  std::string download_range(const Blob& blob, std::uint64_t offset,
                             std::uint64_t length) const;
  // A URL the blob's service serves it from until `expires_in` has passed.
  std::string url(const Blob& blob, std::chrono::seconds expires_in,
                  Disposition disposition = Disposition::Inline) const;

  // Deletes an unattached blob, its variants and its bytes. Throws
  // Error(ForeignKeyViolation) while it is attached.
  void purge_blob(std::string_view blob_id);

  // Attachments ------------------------------------------------------------

  Attachment attach(const OwnerRef& owner, std::string_view name, const Blob& blob);
  Attachment attach(const OwnerRef& owner, std::string_view name, std::string_view blob_id);
  std::vector<Attachment> attach_many(const OwnerRef& owner, std::string_view name,
                                      const std::vector<std::string>& blob_ids);
  std::vector<Attachment> replace(const OwnerRef& owner, std::string_view name,
                                  const std::vector<std::string>& blob_ids);
  // One attachment (by id) or every attachment of `name`; the blobs stay.
  void detach(const OwnerRef& owner, std::string_view name,
              std::optional<std::string_view> attachment_id = std::nullopt);
  // Detaches, then purges the blobs nothing references any more, now or by
  // a job as the attachment's definition says.
  void purge(const OwnerRef& owner, std::string_view name,
             std::optional<std::string_view> attachment_id = std::nullopt);
  // Every attachment of the owner, each blob by its definition's rule.
  void destroy_owner(const OwnerRef& owner);
  // One page of the owner's attachments (of `name`, or all), in the order
  // they were attached.
  AttachmentPage list(const OwnerRef& owner,
                      std::optional<std::string_view> name = std::nullopt,
                      std::optional<std::string_view> page_token = std::nullopt,
                      std::size_t limit = model::Attachments::kDefaultPageSize) const;

  // Storage ledger ---------------------------------------------------------

  // Gives the owner an account and a board (nullopt: none); a change of
  // either moves the owner's tracked bytes in one transaction
  // (model/owner_contexts.h). Returns the context as it now is.
  OwnerContext set_context(const OwnerRef& owner, std::optional<std::string> account_id,
                           std::optional<std::string> board_id);
  OwnerContext context(const OwnerRef& owner) const;

  // The materialized snapshot: one point read, stale by what is pending.
  std::int64_t bytes_used(const Ledger& ledger) const;
  // Snapshot + pending entries: one query, exact.
  std::int64_t bytes_used_exact(const Ledger& ledger) const;
  // Rolls the pending entries into the snapshot (ledger/totals.h).
  MaterializeResult materialize(const Ledger& ledger);
  // Real bytes against the ledger and its total; with options.repair, a
  // drift is corrected by a reconcile entry (ledger/reconcile.h).
  ReconcileReport reconcile(const Ledger& ledger, const ReconcileOptions& options = {});
  // Every account and board some entry names; reads the whole table.
  std::vector<Ledger> ledgers() const;

  // The audit trail: entries created in [since, until], pending ones too,
  // in time order.
  std::vector<ListedEntry> ledger_entries(
      const Ledger& ledger,
      std::optional<std::chrono::system_clock::time_point> since = std::nullopt,
      std::optional<std::chrono::system_clock::time_point> until = std::nullopt) const;
  // Usage in the past, from the materialized entries (ledger/history.h).
  std::int64_t usage_at(const Ledger& ledger, std::chrono::system_clock::time_point time) const;
  std::vector<UsagePoint> usage_series(const Ledger& ledger,
                                       std::chrono::system_clock::time_point from,
                                       std::chrono::system_clock::time_point to,
                                       std::chrono::microseconds step) const;

  // An optional byte limit; a tracked change that would exceed it throws
  // Error(QuotaExceeded). nullopt removes it. A new, changed or removed
  // limit binds the very next change made through this object; another
  // Stowage (in this or another process) caches each ledger's limit for 1 s
  // (ledger/quota.h), so there it binds every change that starts 1 s after
  // set_quota returns.
  void set_quota(const Ledger& ledger, std::optional<std::int64_t> limit_bytes);
  std::optional<std::int64_t> quota(const Ledger& ledger) const;

  // Maintenance ------------------------------------------------------------

  // Deletes bytes no blob references and blobs never attached, when older
  // than `grace`; see model/sweep.h for why the grace period matters.
  SweepReport sweep(std::chrono::seconds grace);

  // Jobs -------------------------------------------------------------------

  // Starts the [jobs] workers background threads; a no-op when that is 0.
  // Throws Error(ValidationError) when they already run.
  void start_workers();
  // Joins them; a job already running finishes first. A no-op when none run.
  void stop_workers();
  // Runs the jobs due now until none is left, or `timeout` has passed
  // (then false). Throws Error(ValidationError) while the workers run.
  bool drain_jobs(std::chrono::milliseconds timeout = std::chrono::seconds(60));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stowage
