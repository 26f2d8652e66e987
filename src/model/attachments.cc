#include "model/attachments.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/uuid.h"
#include "model/item_conversion.h"
#include "model/outbox.h"
#include "stowage/error.h"

namespace stowage::model {
namespace {

// A change is rebuilt from fresh reads when another writer removed one of
// its rows or moved its owner meanwhile; past this many rounds the
// contention is reported rather than retried forever.
constexpr int kMaxRounds = 10;

std::string label(const OwnerRef& owner, std::string_view name) {
  return owner.record_type + " " + owner.record_id + " " + std::string(name);
}

// Checks every part of the owner's keys (InvalidKey) before any request.
void check_keys(const schema::KeyScheme& keys, const OwnerRef& owner, std::string_view name) {
  keys.owner_partition(owner.record_type, owner.record_id);
  keys.attachment_name_prefix(name);
}

[[noreturn]] void contended(const std::string& what) {
  throw Error(ErrorCode::TransactionCanceled,
              what + " changed under each of " + std::to_string(kMaxRounds) +
                  " attempts to change them; nothing was written: retry later");
}

// Bytes that came by direct upload are analyzed after the blob is attached
// (Active Storage's analyze_later), by a job the attach commits with the
// row, so no crash can leave an attached blob that is never analyzed.
std::optional<Job> analyze_job(const Blob& blob) {
  if (is_analyzed(blob)) return std::nullopt;
  return make_job(kAnalyzeBlobJob, {{"blob_id", table::Value::string(blob.id)}});
}

Dependent purge_rule(const AttachmentDefinition& definition) {
  return definition.dependent == Dependent::PurgeLater ? Dependent::PurgeLater
                                                       : Dependent::Purge;
}

}  // namespace

Attachments::Attachments(table::Engine& engine, const schema::TableSchema& schema,
                         const Definitions& definitions, BlobStore& blobs)
    : engine_(engine),
      schema_(schema),
      definitions_(definitions),
      blobs_(blobs),
      tracking_(engine, schema) {}

Attachment Attachments::attach(const OwnerRef& owner, std::string_view name, const Blob& blob,
                               const ChangeContext& context) {
  check_keys(schema_.keys(), owner, name);
  schema_.keys().blob(blob.id);
  const AttachmentDefinition& definition = definitions_.find(owner.record_type, name);
  validate_blob(definition, blob);
  const Attachment attachment =
      new_attachment(owner, name, definition, blob, reserve_times(1));
  std::vector<Job> jobs;
  if (std::optional<Job> job = analyze_job(blob)) jobs.push_back(std::move(*job));
  if (definition.cardinality == Cardinality::One) {
    swap_rows(owner, name, definition, {attachment}, jobs, context);
  } else {
    append_rows(owner, {attachment}, jobs, context);
  }
  return attachment;
}

Attachment Attachments::attach(const OwnerRef& owner, std::string_view name,
                               std::string_view blob_id, const ChangeContext& context) {
  check_keys(schema_.keys(), owner, name);
  schema_.keys().blob(blob_id);
  // A strict configuration rejects the name before the blob is read.
  definitions_.find(owner.record_type, name);
  return attach(owner, name, blobs_.find(blob_id), context);
}

std::vector<Attachment> Attachments::attach_many(const OwnerRef& owner, std::string_view name,
                                                 const std::vector<std::string>& blob_ids,
                                                 const ChangeContext& context) {
  check_keys(schema_.keys(), owner, name);
  for (const std::string& blob_id : blob_ids) schema_.keys().blob(blob_id);
  const AttachmentDefinition& definition = definitions_.find(owner.record_type, name);
  if (definition.cardinality == Cardinality::One) {
    throw Error::validation(label(owner, name) +
                            " holds one attachment (cardinality one); attach one blob, "
                            "which replaces the current one");
  }
  if (blob_ids.empty()) return {};

  std::map<std::string, Blob, std::less<>> blobs;
  std::vector<Job> jobs;
  for (const std::string& blob_id : blob_ids) {
    if (blobs.count(blob_id) != 0) continue;
    Blob blob = blobs_.find(blob_id);
    validate_blob(definition, blob);
    if (std::optional<Job> job = analyze_job(blob)) jobs.push_back(std::move(*job));
    blobs.emplace(blob_id, std::move(blob));
  }

  const auto first = reserve_times(blob_ids.size());
  std::vector<Attachment> added;
  for (std::size_t i = 0; i < blob_ids.size(); ++i) {
    added.push_back(new_attachment(owner, name, definition, blobs.find(blob_ids[i])->second,
                                   first + std::chrono::microseconds(i)));
  }
  append_rows(owner, added, jobs, context);
  return added;
}

std::vector<Attachment> Attachments::replace(const OwnerRef& owner, std::string_view name,
                                             const std::vector<std::string>& blob_ids,
                                             const ChangeContext& context) {
  check_keys(schema_.keys(), owner, name);
  for (const std::string& blob_id : blob_ids) schema_.keys().blob(blob_id);
  const AttachmentDefinition& definition = definitions_.find(owner.record_type, name);
  if (definition.cardinality == Cardinality::One && blob_ids.size() > 1) {
    throw Error::validation(label(owner, name) + " holds one attachment (cardinality one); "
                            "replace it with at most one blob, not " +
                            std::to_string(blob_ids.size()));
  }

  std::map<std::string, Blob, std::less<>> blobs;
  std::vector<Job> jobs;
  for (const std::string& blob_id : blob_ids) {
    if (blobs.count(blob_id) != 0) continue;
    Blob blob = blobs_.find(blob_id);
    validate_blob(definition, blob);
    if (std::optional<Job> job = analyze_job(blob)) jobs.push_back(std::move(*job));
    blobs.emplace(blob_id, std::move(blob));
  }
  const auto first = reserve_times(blob_ids.size());
  std::vector<Attachment> added;
  for (std::size_t i = 0; i < blob_ids.size(); ++i) {
    added.push_back(new_attachment(owner, name, definition, blobs.find(blob_ids[i])->second,
                                   first + std::chrono::microseconds(i)));
  }
  swap_rows(owner, name, definition, added, jobs, context);
  return added;
}

void Attachments::detach(const OwnerRef& owner, std::string_view name,
                         std::optional<std::string_view> attachment_id,
                         const ChangeContext& context) {
  check_keys(schema_.keys(), owner, name);
  std::vector<Attachment> targets;
  if (attachment_id) {
    if (std::optional<Attachment> found = row(owner, name, *attachment_id)) {
      targets.push_back(std::move(*found));
    }
  } else {
    targets = rows(owner, schema_.keys().attachment_name_prefix(name));
  }
  remove_rows(owner, std::move(targets), [](const Attachment&) { return Dependent::Detach; },
              context);
}

void Attachments::purge(const OwnerRef& owner, std::string_view name,
                        std::optional<std::string_view> attachment_id,
                        const ChangeContext& context) {
  check_keys(schema_.keys(), owner, name);
  const Dependent rule = purge_rule(definitions_.find(owner.record_type, name));
  std::vector<Attachment> targets;
  if (attachment_id) {
    if (std::optional<Attachment> found = row(owner, name, *attachment_id)) {
      targets.push_back(std::move(*found));
    }
  } else {
    targets = rows(owner, schema_.keys().attachment_name_prefix(name));
  }
  remove_rows(owner, std::move(targets), [rule](const Attachment&) { return rule; }, context);
}

void Attachments::destroy_owner(const OwnerRef& owner, const ChangeContext& context) {
  schema_.keys().owner_partition(owner.record_type, owner.record_id);
  std::vector<Attachment> targets = rows(owner, schema_.keys().attachments_prefix());
  // Every row's rule is looked up before the change is built, so a strict
  // configuration missing a name fails before any write.
  for (const Attachment& attachment : targets) {
    definitions_.find(attachment.owner.record_type, attachment.name);
  }
  remove_rows(
      owner, std::move(targets),
      [this](const Attachment& attachment) {
        return definitions_.find(attachment.owner.record_type, attachment.name).dependent;
      },
      context);
}

AttachmentPage Attachments::list(const OwnerRef& owner, std::optional<std::string_view> name,
                                 std::optional<std::string_view> page_token,
                                 std::size_t limit) const {
  const std::string h = schema_.keys().owner_partition(owner.record_type, owner.record_id);
  const std::string prefix = name ? schema_.keys().attachment_name_prefix(*name)
                                  : schema_.keys().attachments_prefix();
  table::QueryRequest request = schema_.listing_query(h, prefix);
  request.limit = limit;
  if (page_token) {
    if (page_token->size() <= prefix.size() || page_token->substr(0, prefix.size()) != prefix) {
      throw Error::validation("page token \"" + std::string(*page_token) +
                              "\" does not belong to this listing; pass the "
                              "next_page_token of the previous page of the same listing");
    }
    table::Item start;
    schema_.stamp(start, schema::LogicalKey{h, std::string(*page_token)});
    request.exclusive_start_key = std::move(start);
  }
  table::QueryResult result = engine_.query(request);
  AttachmentPage page;
  page.attachments.reserve(result.items.size());
  for (const table::Item& item : result.items) {
    page.attachments.push_back(attachment_from_item(item));
  }
  if (result.last_evaluated_key) {
    page.next_page_token = schema_.logical_key_of(*result.last_evaluated_key).r;
  }
  return page;
}

std::optional<Attachment> Attachments::find_one(const OwnerRef& owner,
                                                std::string_view name) const {
  const std::string h = schema_.keys().owner_partition(owner.record_type, owner.record_id);
  table::QueryRequest request =
      schema_.listing_query(h, schema_.keys().attachment_name_prefix(name));
  request.scan_forward = false;
  request.limit = 1;
  table::QueryResult result = engine_.query(request);
  if (result.items.empty()) return std::nullopt;
  return attachment_from_item(result.items.front());
}

std::chrono::system_clock::time_point Attachments::reserve_times(std::size_t count) {
  using std::chrono::microseconds;
  const std::int64_t now = micros_since_epoch(std::chrono::system_clock::now());
  std::int64_t last = last_micros_.load();
  std::int64_t first = 0;
  do {
    first = std::max(now, last + 1);
  } while (!last_micros_.compare_exchange_weak(
      last, first + static_cast<std::int64_t>(count == 0 ? 0 : count - 1)));
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(microseconds(first)));
}

Attachment Attachments::new_attachment(const OwnerRef& owner, std::string_view name,
                                       const AttachmentDefinition& definition,
                                       const Blob& blob,
                                       std::chrono::system_clock::time_point time) const {
  Attachment attachment;
  attachment.id = uuid_v7(time);
  attachment.owner = owner;
  attachment.name = std::string(name);
  attachment.blob_id = blob.id;
  attachment.created_at = iso8601_utc_micros(time);
  attachment.tracked = definition.track_storage;
  attachment.blob_key = blob.key;
  attachment.filename = blob.filename;
  attachment.content_type = blob.content_type;
  attachment.byte_size = blob.byte_size;
  attachment.checksum = blob.checksum;
  attachment.service_name = blob.service_name;
  return attachment;
}

std::vector<Attachment> Attachments::rows(const OwnerRef& owner,
                                          std::string_view r_prefix) const {
  const std::string h = schema_.keys().owner_partition(owner.record_type, owner.record_id);
  table::QueryRequest request = schema_.listing_query(h, r_prefix);
  std::vector<Attachment> found;
  while (true) {
    table::QueryResult result = engine_.query(request);
    for (const table::Item& item : result.items) found.push_back(attachment_from_item(item));
    if (!result.last_evaluated_key) return found;
    request.exclusive_start_key = std::move(result.last_evaluated_key);
  }
}

std::optional<Attachment> Attachments::row(const OwnerRef& owner, std::string_view name,
                                           std::string_view attachment_id) const {
  const schema::LogicalKey key = schema_.keys().attachment(
      owner.record_type, owner.record_id, name, attachment_id);
  std::optional<table::Item> item =
      engine_.get(table::GetRequest{schema_.table_name(), schema_.physical_key(key), true});
  if (!item) return std::nullopt;
  return attachment_from_item(*item);
}

void Attachments::append_rows(const OwnerRef& owner, const std::vector<Attachment>& added,
                              const std::vector<Job>& jobs, const ChangeContext& context) {
  // An append removes nothing, so no row can be gone; only a transfer of
  // the owner can cancel it.
  for (int round = 0; round < kMaxRounds; ++round) {
    ChangeSet change(schema_, blobs_);
    for (const Attachment& attachment : added) change.add_attachment(attachment);
    for (const Job& job : jobs) change.enqueue(job);
    tracking_.add_to(change, owner, context);
    if (change.commit(engine_).committed()) return;
  }
  contended("the account and board of " + owner.record_type + " " + owner.record_id);
}

void Attachments::swap_rows(const OwnerRef& owner, std::string_view name,
                            const AttachmentDefinition& definition,
                            const std::vector<Attachment>& added,
                            const std::vector<Job>& jobs, const ChangeContext& context) {
  const std::string prefix = schema_.keys().attachment_name_prefix(name);
  for (int round = 0; round < kMaxRounds; ++round) {
    // Every current row goes, not only the newest: two racing attaches to a
    // one may both have appended, and the next attach heals that.
    const std::vector<Attachment> current = rows(owner, prefix);
    ChangeSet change(schema_, blobs_);
    for (const Attachment& attachment : added) change.add_attachment(attachment);
    for (const Job& job : jobs) change.enqueue(job);
    for (const Attachment& attachment : current) {
      change.remove_attachment(attachment, definition.dependent);
    }
    tracking_.add_to(change, owner, context);
    if (change.commit(engine_).committed()) {
      purge_now(change);
      return;
    }
  }
  contended("the rows or the account and board of " + label(owner, name));
}

void Attachments::remove_rows(const OwnerRef& owner, std::vector<Attachment> targets,
                              const std::function<Dependent(const Attachment&)>& rule_of,
                              const ChangeContext& context) {
  // Each round commits, drops at least one row, or finds the owner moved;
  // the last is bounded, so this ends.
  int moved = 0;
  while (!targets.empty()) {
    ChangeSet change(schema_, blobs_);
    for (const Attachment& attachment : targets) {
      change.remove_attachment(attachment, rule_of(attachment));
    }
    tracking_.add_to(change, owner, context);
    const CommitResult result = change.commit(engine_);
    if (result.committed()) {
      purge_now(change);
      return;
    }
    if (result.gone_attachment_ids.empty() && ++moved == kMaxRounds) {
      contended("the account and board of " + owner.record_type + " " + owner.record_id);
    }
    std::erase_if(targets, [&result](const Attachment& attachment) {
      return std::find(result.gone_attachment_ids.begin(), result.gone_attachment_ids.end(),
                       attachment.id) != result.gone_attachment_ids.end();
    });
  }
}

void Attachments::purge_now(const ChangeSet& change) {
  for (const std::string& blob_id : change.blobs_to_purge_now()) {
    try {
      blobs_.purge(blob_id);
    } catch (const Error& error) {
      // Still attached elsewhere (a shared blob): its last detach purges it.
      if (error.code() != ErrorCode::ForeignKeyViolation) throw;
    }
  }
}

}  // namespace stowage::model
