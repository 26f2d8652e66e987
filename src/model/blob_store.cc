#include "model/blob_store.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "analyze/content_type.h"
#include "analyze/image_analyzer.h"
#include "common/clock.h"
#include "common/digest.h"
#include "common/uuid.h"
#include "model/blob_key.h"
#include "model/filename.h"
#include "model/item_conversion.h"
#include "model/outbox.h"
#include "model/variant_records.h"
#include "stowage/error.h"

namespace stowage::model {

namespace {

using table::Item;
using table::Value;
namespace cond = table::cond;

// Image headers (PNG, GIF, WebP, and JPEG with its EXIF) are almost always
// within this many leading bytes; an image whose header is not is read
// back from the service once.
constexpr std::size_t kImageHeaderCapture = 256 * 1024;

// A purge retries its conditional delete when the count it read changed
// before the delete ran; more changes than this in a row is a blob being
// attached and detached in a loop, which is the caller's to resolve.
constexpr int kPurgeAttempts = 10;

// Job argument names of delete_bytes.
constexpr std::string_view kServiceNameArg = "service_name";
constexpr std::string_view kKeyArg = "key";

// Replays bytes already read for content detection, then the rest of the
// source, keeping the first `capture_limit` bytes for image analysis.
class CapturingSource final : public service::ByteSource {
 public:
  CapturingSource(std::string head, service::ByteSource& rest,
                  std::size_t capture_limit)
      : head_(std::move(head)), rest_(rest), capture_limit_(capture_limit) {
    captured_ = head_.substr(0, capture_limit_);
  }

  std::size_t read(char* buf, std::size_t n) override {
    if (head_offset_ < head_.size()) {
      const std::size_t count = std::min(n, head_.size() - head_offset_);
      std::copy_n(head_.data() + head_offset_, count, buf);
      head_offset_ += count;
      return count;
    }
    const std::size_t count = rest_.read(buf, n);
    if (captured_.size() < capture_limit_) {
      captured_.append(buf, std::min(count, capture_limit_ - captured_.size()));
    }
    return count;
  }

  const std::string& captured() const { return captured_; }

 private:
  const std::string head_;
  std::size_t head_offset_ = 0;
  service::ByteSource& rest_;
  const std::size_t capture_limit_;
  std::string captured_;
};

// Reads until `n` bytes or the end: one read() may return fewer.
std::string read_up_to(service::ByteSource& source, std::size_t n) {
  std::string bytes(n, '\0');
  std::size_t filled = 0;
  while (filled < n) {
    const std::size_t count = source.read(bytes.data() + filled, n - filled);
    if (count == 0) break;
    filled += count;
  }
  bytes.resize(filled);
  return bytes;
}

class FileSink final : public service::ByteSink {
 public:
  explicit FileSink(const std::filesystem::path& path)
      : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw Error::io("cannot create " + path.string());
  }
  void write(std::string_view chunk) override {
    out_.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (!out_) throw Error::io("cannot write " + path_.string());
  }
  void close() {
    out_.close();
    if (!out_) throw Error::io("cannot write " + path_.string());
  }

 private:
  const std::filesystem::path path_;
  std::ofstream out_;
};

// Whose header libvips reads: raster images. SVG is XML that libvips would
// rasterize, not a header read.
bool is_raster_image(std::string_view content_type) {
  return content_type.starts_with("image/") && content_type != "image/svg+xml";
}

std::optional<analyze::ImageDimensions> image_dimensions(
    service::Service& service, std::string_view key, const std::string& head,
    std::uint64_t byte_size) {
  if (auto dimensions = analyze::analyze_image_bytes(head)) return dimensions;
  if (byte_size <= head.size()) return std::nullopt;
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("stowage-analyze-" + uuid_v4());
  try {
    FileSink sink(path);
    service.download(key, sink);
    sink.close();
    auto dimensions = analyze::analyze_image_file(path);
    std::filesystem::remove(path);
    return dimensions;
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    throw;
  }
}

// The caller's metadata without the keys only Stowage may set.
Item without_owned_keys(Item metadata) {
  for (std::string_view key : {kIdentifiedMetadata, kAnalyzedMetadata,
                               kWidthMetadata, kHeightMetadata}) {
    if (auto it = metadata.find(key); it != metadata.end()) metadata.erase(it);
  }
  return metadata;
}

// The blob's metadata with what its bytes say in the keys Stowage owns.
// REQUIRES: blob.content_type is the detected one; `head` holds the first
// min(byte_size, kImageHeaderCapture) bytes stored under blob.key.
Item analyzed_metadata(const Blob& blob, service::Service& service,
                       const std::string& head) {
  Item metadata = without_owned_keys(blob.metadata);
  metadata[std::string(kIdentifiedMetadata)] = Value::boolean(true);
  if (is_raster_image(blob.content_type)) {
    if (auto dimensions =
            image_dimensions(service, blob.key, head, blob.byte_size)) {
      metadata[std::string(kWidthMetadata)] = Value::number(dimensions->width);
      metadata[std::string(kHeightMetadata)] = Value::number(dimensions->height);
    }
  }
  metadata[std::string(kAnalyzedMetadata)] = Value::boolean(true);
  return metadata;
}

bool is_unknown_outcome(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error& error) {
    return error.code() == ErrorCode::UnknownOutcome;
  } catch (...) {
    return false;
  }
}

bool is_conditional_failure(const CancellationReason& reason) {
  return reason.code == "ConditionalCheckFailed";
}

}  // namespace

bool is_analyzed(const Blob& blob) {
  const auto it = blob.metadata.find(kAnalyzedMetadata);
  return it != blob.metadata.end() && it->second.type() == table::Type::BOOL &&
         it->second.as_bool();
}

BlobStore::BlobStore(table::Engine& engine, const schema::TableSchema& schema,
                     BlobStoreOptions options)
    : engine_(engine),
      schema_(schema),
      options_(std::move(options)),
      verifier_(options_.signed_id_secret) {
  service(options_.default_service_name);  // fail at start, not on first upload
}

service::Service& BlobStore::service(std::string_view name) const {
  const auto it = options_.services.find(name);
  if (it == options_.services.end() || !it->second) {
    std::string known;
    for (const auto& [service_name, service] : options_.services) {
      known += (known.empty() ? "" : ", ") + service_name;
    }
    throw Error::configuration("no service named \"" + std::string(name) +
                               "\" is configured (configured: " +
                               (known.empty() ? "none" : known) + ")");
  }
  return *it->second;
}

Blob BlobStore::create_and_upload(service::ByteSource& source, BlobInput input) {
  const auto now = std::chrono::system_clock::now();
  Blob blob;
  blob.id = uuid_v4();
  blob.key = generate_blob_key();
  blob.filename = sanitize_filename(input.filename);
  blob.service_name = input.service_name.empty() ? options_.default_service_name
                                                 : std::move(input.service_name);
  blob.created_at = iso8601_utc_micros(now);
  service::Service& service = this->service(blob.service_name);

  // The type is known before the upload starts, so services that store it
  // with the object (S3) store the detected one, not the declared one.
  std::string head = read_up_to(source, analyze::kContentTypeSniffLength);
  blob.content_type = analyze::detect_content_type(head, blob.filename);
  CapturingSource upload_source(std::move(head), source, kImageHeaderCapture);
  service::UploadOptions upload_options;
  upload_options.content_type = blob.content_type;
  const service::UploadResult uploaded =
      service.upload(blob.key, upload_source, upload_options);
  blob.byte_size = uploaded.byte_size;
  blob.checksum = uploaded.checksum;

  try {
    blob.metadata = std::move(input.metadata);
    blob.metadata = analyzed_metadata(blob, service, upload_source.captured());

    table::PutRequest put;
    put.table = schema_.table_name();
    put.item = blob_to_item(schema_, blob);
    put.condition = cond::not_exists(schema_.partition_key().name);
    engine_.put(put);
  } catch (...) {
    // No item references the bytes: remove them now rather than leave them
    // to the orphan sweep. If this fails too, the sweep still finds them.
    // Unless the put's answer was lost: then the item may exist and need
    // them (the sweep purges it, never attached, bytes and all).
    if (!is_unknown_outcome(std::current_exception())) {
      try {
        service.remove(blob.key);
      } catch (const Error&) {
      }
    }
    throw;
  }
  return blob;
}

Blob BlobStore::create_before_direct_upload(DirectUploadInput input) {
  const std::optional<std::string> digest = base64_decode(input.checksum);
  if (!digest || digest->size() != 16) {
    throw Error::validation("checksum \"" + input.checksum +
                            "\" is not the base64 MD5 of the file (24 "
                            "characters encoding 16 bytes)");
  }
  if (input.byte_size > kMaxBlobBytes) {
    throw Error::validation("declared size " + std::to_string(input.byte_size) +
                            " bytes is over the largest blob, " +
                            std::to_string(kMaxBlobBytes) + " bytes (5 TiB)");
  }
  const auto now = std::chrono::system_clock::now();
  Blob blob;
  blob.id = uuid_v4();
  blob.key = generate_blob_key();
  blob.filename = sanitize_filename(input.filename);
  blob.content_type = std::move(input.content_type);
  blob.metadata = without_owned_keys(std::move(input.metadata));
  blob.byte_size = input.byte_size;
  blob.checksum = std::move(input.checksum);
  blob.service_name = input.service_name.empty() ? options_.default_service_name
                                                 : std::move(input.service_name);
  blob.created_at = iso8601_utc_micros(now);
  service(blob.service_name);  // an unknown service fails before any write

  table::PutRequest put;
  put.table = schema_.table_name();
  put.item = blob_to_item(schema_, blob);
  put.condition = cond::not_exists(schema_.partition_key().name);
  engine_.put(put);
  return blob;
}

Blob BlobStore::find(std::string_view blob_id) const {
  table::GetRequest get;
  get.table = schema_.table_name();
  get.key = schema_.physical_key(schema_.keys().blob(blob_id));
  get.consistent_read = true;
  const std::optional<Item> item = engine_.get(get);
  if (!item) {
    throw Error::not_found("blob " + std::string(blob_id) +
                           " does not exist in table " + schema_.table_name());
  }
  return blob_from_item(*item);
}

std::optional<Blob> BlobStore::find_signed(std::string_view signed_id,
                                           std::string_view purpose) const {
  const std::optional<std::string> blob_id =
      verifier_.verify(signed_id, purpose, std::chrono::system_clock::now());
  if (!blob_id) return std::nullopt;
  try {
    return find(*blob_id);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::RecordNotFound) throw;
    return std::nullopt;
  }
}

std::string BlobStore::signed_id(
    std::string_view blob_id, std::string_view purpose,
    std::optional<std::chrono::system_clock::time_point> expires_at) const {
  return verifier_.generate(blob_id, purpose, expires_at);
}

void BlobStore::update_metadata(std::string_view blob_id, Item metadata) {
  table::Update update;
  update.set(std::string(attr::kMetadata), Value::map(std::move(metadata)));
  update_blob(blob_id, std::move(update), "its metadata was not changed");
}

Blob BlobStore::analyze(std::string_view blob_id) {
  Blob blob = find(blob_id);
  if (is_analyzed(blob)) return blob;
  service::Service& service = this->service(blob.service_name);
  // One read serves both the content type (its first 4 KB) and the image
  // header, as the capture does during create_and_upload.
  std::string head;
  try {
    head = service.download_range(blob.key, 0, kImageHeaderCapture);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::RecordNotFound) throw;
    // Not "gone": a direct upload may still be in flight, so this is worth
    // retrying, unlike a missing blob item.
    throw Error(ErrorCode::ServiceUnavailable,
                "the bytes of blob " + blob.id + " (key " + blob.key +
                    ") are not on service \"" + blob.service_name +
                    "\" yet; analyze it again once its direct upload is done");
  }
  blob.content_type = analyze::detect_content_type(head, blob.filename);
  blob.metadata = analyzed_metadata(blob, service, head);
  table::Update update;
  update.set(std::string(attr::kContentType), Value::string(blob.content_type));
  update.set(std::string(attr::kMetadata), Value::map(blob.metadata));
  update_blob(blob_id, std::move(update), "its analysis was not recorded");
  return blob;
}

void BlobStore::update_blob(std::string_view blob_id, table::Update update,
                            std::string_view what) {
  table::UpdateRequest request;
  request.table = schema_.table_name();
  request.key = schema_.physical_key(schema_.keys().blob(blob_id));
  request.update = std::move(update);
  request.condition = cond::exists(schema_.partition_key().name);
  try {
    engine_.update(request);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::ConditionalCheckFailed) throw;
    throw Error::not_found("blob " + std::string(blob_id) +
                           " does not exist in table " + schema_.table_name() +
                           "; " + std::string(what));
  }
}

table::TransactAction BlobStore::refcount_action(std::string_view blob_id,
                                                 std::int64_t delta) const {
  table::UpdateRequest update;
  update.table = schema_.table_name();
  update.key = schema_.physical_key(schema_.keys().blob(blob_id));
  update.update.add(std::string(attr::kAttachmentsCount), Value::number(delta));
  if (delta > 0) update.update.set(std::string(attr::kAttachedOnce), Value::boolean(true));
  update.condition = cond::exists(schema_.partition_key().name);
  return update;
}

table::TransactAction BlobStore::blob_exists_check(std::string_view blob_id) const {
  return table::ConditionCheck{
      schema_.table_name(), schema_.physical_key(schema_.keys().blob(blob_id)),
      cond::exists(schema_.partition_key().name)};
}

void BlobStore::purge(std::string_view blob_id) {
  const std::optional<Job> delete_bytes = delete_blob_item(blob_id);
  // After the blob item is gone no variant can be created for it
  // (create_or_find checks the blob), so this sweep sees every record.
  destroy_variants(blob_id);
  if (delete_bytes) run_delete_bytes(*delete_bytes);
}

std::optional<Job> BlobStore::delete_blob_item(std::string_view blob_id) {
  const Item key = schema_.physical_key(schema_.keys().blob(blob_id));
  for (int attempt = 0; attempt < kPurgeAttempts; ++attempt) {
    table::GetRequest get{schema_.table_name(), key, true};
    const std::optional<Item> item = engine_.get(get);
    if (!item) return std::nullopt;
    const Blob blob = blob_from_item(*item);
    if (blob.attachments_count != 0) {
      throw Error(ErrorCode::ForeignKeyViolation,
                  "blob " + blob.id + " is still attached (" +
                      std::to_string(blob.attachments_count) +
                      " attachments); detach it before purging it");
    }

    Job job = make_job(kDeleteBytesJob,
                       {{std::string(kServiceNameArg), Value::string(blob.service_name)},
                        {std::string(kKeyArg), Value::string(blob.key)}});
    table::DeleteRequest remove;
    remove.table = schema_.table_name();
    remove.key = key;
    // The guard is the count at commit time, not the one read above: an
    // attach that commits in between makes the delete fail.
    remove.condition =
        (cond::eq(std::string(attr::kAttachmentsCount), Value::number(0)) ||
         cond::not_exists(std::string(attr::kAttachmentsCount))) &&
        cond::exists(schema_.partition_key().name);
    table::TransactWriteRequest transaction;
    transaction.actions = {std::move(remove), enqueue_action(schema_, job)};
    try {
      engine_.transact_write(transaction);
      return job;
    } catch (const Error& error) {
      if (error.code() != ErrorCode::TransactionCanceled ||
          error.cancellation_reasons().empty() ||
          !is_conditional_failure(error.cancellation_reasons().front())) {
        throw;
      }
      // The blob changed since it was read; the next read says how.
    }
  }
  throw Error(ErrorCode::ForeignKeyViolation,
              "blob " + std::string(blob_id) + " changed " +
                  std::to_string(kPurgeAttempts) +
                  " times while being purged; it is being attached and "
                  "detached concurrently, so it was not purged");
}

void BlobStore::destroy_variants(std::string_view blob_id) {
  VariantRecords variants(engine_, schema_, *this);
  for (const VariantRecord& record : variants.list(blob_id)) {
    variants.remove(blob_id, record.variation_digest);
    try {
      purge(record.image_blob_id);
    } catch (const Error& error) {
      // An image blob attached somewhere else is not this purge's to delete;
      // the last detach there purges it.
      if (error.code() != ErrorCode::ForeignKeyViolation) throw;
    }
  }
}

void BlobStore::run_delete_bytes(const Job& job) {
  service(job.args.at(std::string(kServiceNameArg)).as_string())
      .remove(job.args.at(std::string(kKeyArg)).as_string());
  table::DeleteRequest remove;
  remove.table = schema_.table_name();
  remove.key = schema_.physical_key(schema_.logical_key_of(job_to_item(schema_, job)));
  engine_.remove(remove);
}

}  // namespace stowage::model
