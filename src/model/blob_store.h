// BlobStore: Active Storage's Blob operations on the one table and the byte
// services — create (uploading the bytes first), find, signed ids, metadata
// updates, analysis of directly uploaded bytes and purge — plus the blob-side transaction actions that
// attachment changes add to their own transactions.
//
// Invariants kept here (DESIGN I2, I5): bytes are durable before the blob
// item that references them is written; a blob item is written whole only
// once, with attribute_not_exists; every later write to it is conditioned on
// its existence, so no write can recreate a purged blob; a blob with
// attachments is never deleted.
//
// Thread-safe: holds only immutable state; the engine and services are
// thread-safe themselves.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/outbox.h"
#include "model/records.h"
#include "model/signed_id.h"
#include "schema/table_schema.h"
#include "service/service.h"
#include "table/engine.h"
#include "table/requests.h"
#include "table/value.h"

namespace stowage::model {

// The services blobs may live on, by service name (as in storage.yml).
using ServiceMap =
    std::map<std::string, std::shared_ptr<service::Service>, std::less<>>;

struct BlobStoreOptions {
  ServiceMap services;
  // Where a new blob goes when its input names no service.
  // REQUIRES: one of `services`.
  std::string default_service_name;
  // Signs blob ids; at least 32 bytes (MessageVerifier).
  std::string signed_id_secret;
};

struct BlobInput {
  std::string filename;
  // What the client declared. It never becomes the blob's type, which comes
  // from the bytes and the filename (analyze/content_type.h), even when the
  // bytes are unrecognised (application/octet-stream): a declared type would
  // let an uploader have, say, text/html served from the blob's URL.
  std::string content_type;
  // Caller metadata; the keys Stowage owns (identified, analyzed, width,
  // height) are replaced by what the bytes say.
  table::Item metadata;
  std::string service_name;  // empty: the default service
};

// The largest blob a client may declare: S3's object size limit. It also
// keeps a declared size from turning negative in the ledger's signed sums.
inline constexpr std::uint64_t kMaxBlobBytes = std::uint64_t{5} << 40;  // 5 TiB

// A blob whose bytes the client will upload itself (Active Storage's
// create_before_direct_upload). Its content type is the declared one until
// the blob is analyzed (BlobStore::analyze), which its metadata says
// (identified and analyzed are absent until then).
struct DirectUploadInput {
  std::string filename;
  std::uint64_t byte_size = 0;
  std::string checksum;      // base64 MD5 the upload must match
  std::string content_type;
  // Caller metadata; identified, analyzed, width and height are dropped.
  table::Item metadata;
  std::string service_name;  // empty: the default service
};

// Whether the blob's metadata says its bytes were analyzed: always after
// create_and_upload, after BlobStore::analyze for a direct upload.
bool is_analyzed(const Blob& blob);

class BlobStore {
 public:
  // Throws Error(ConfigurationError) when the default service is not among
  // the services or the signed id secret is too short.
  BlobStore(table::Engine& engine, const schema::TableSchema& schema,
            BlobStoreOptions options);

  // Streams `source` to the service under a new key while computing its
  // MD5, detects the content type from the first 4 KB and the filename,
  // reads an image's width and height from its header, then writes the blob
  // item (attribute_not_exists). If the item cannot be written the uploaded
  // bytes are deleted again. Throws Error(ConfigurationError) for an unknown
  // service name and passes service and engine errors through.
  Blob create_and_upload(service::ByteSource& source, BlobInput input);

  // Writes the blob item of a direct upload; no bytes move. Throws
  // Error(ValidationError) unless the checksum is base64 of 16 bytes and the
  // declared size is at most kMaxBlobBytes.
  Blob create_before_direct_upload(DirectUploadInput input);

  // Consistent read. Throws Error(RecordNotFound) naming the id.
  Blob find(std::string_view blob_id) const;
  // The blob a signed id names, or nullopt when the id does not verify for
  // `purpose` (tampered, expired, another purpose) or the blob is gone.
  std::optional<Blob> find_signed(std::string_view signed_id,
                                  std::string_view purpose) const;
  std::string signed_id(
      std::string_view blob_id, std::string_view purpose,
      std::optional<std::chrono::system_clock::time_point> expires_at =
          std::nullopt) const;

  // Replaces the blob's metadata map (a SET conditioned on the item's
  // existence; the item is never re-Put). Throws Error(RecordNotFound) when
  // the blob is gone.
  void update_metadata(std::string_view blob_id, table::Item metadata);

  // Active Storage's analyze, for a blob whose bytes came by direct upload:
  // reads the head of its bytes (one ranged read), detects the content type
  // and an image's width and height as create_and_upload does, and SETs the
  // content type and the metadata (identified, analyzed, width, height) on
  // the item, conditioned on its existence. Returns the blob as analyzed; a
  // blob already analyzed is returned unchanged, so running twice is safe.
  // Attachment rows copied the content type when they were made: rows
  // attached before the analysis keep the declared type until re-attached.
  // Throws Error(RecordNotFound) when the blob is gone, and
  // Error(ServiceUnavailable) when its bytes are not on its service (yet:
  // the upload may still be in flight), which a job retries with backoff.
  Blob analyze(std::string_view blob_id);

  // Deletes the blob item (only while no attachment references it) together
  // with a delete_bytes job in one transaction; then its variant records and
  // their image blobs; then the bytes, and the job with them. A crash on the
  // way leaves the job, and a worker finishes it. Throws
  // Error(ForeignKeyViolation) while the blob is attached. Purging a blob
  // that is already gone only sweeps what is left of its variants.
  void purge(std::string_view blob_id);

  // The blob-side action of an attachment change: ADD `delta` to
  // as_attachments_count conditioned on the blob existing (so it fails the
  // transaction for a purged blob instead of creating a zombie item), and on
  // delta > 0 also SET as_attached_once = true. REQUIRES: delta != 0 (a net
  // change of zero is blob_exists_check).
  table::TransactAction refcount_action(std::string_view blob_id,
                                        std::int64_t delta) const;
  // A ConditionCheck that the blob item exists.
  table::TransactAction blob_exists_check(std::string_view blob_id) const;

  // The service called `name`. Throws Error(ConfigurationError) listing the
  // configured names when there is none.
  service::Service& service(std::string_view name) const;

 private:
  // Deletes the blob item and enqueues its delete_bytes job in one
  // transaction; returns that job, or nullopt when the item was gone.
  std::optional<Job> delete_blob_item(std::string_view blob_id);
  // Deletes every variant record of the blob and purges its image blob.
  void destroy_variants(std::string_view blob_id);
  // What a worker does with a delete_bytes job, done inline.
  void run_delete_bytes(const Job& job);
  // Applies `update` to the blob item, conditioned on its existence. Throws
  // Error(RecordNotFound), ending with `what` (what did not happen), when it
  // is gone.
  void update_blob(std::string_view blob_id, table::Update update,
                   std::string_view what);

  table::Engine& engine_;
  const schema::TableSchema& schema_;
  const BlobStoreOptions options_;
  const MessageVerifier verifier_;
};

}  // namespace stowage::model
