#include "support/invariants.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "ledger/ledger_entry.h"
#include "ledger/ledger_keys.h"
#include "ledger/owner_context.h"
#include "ledger/totals.h"
#include "model/item_conversion.h"
#include "model/outbox.h"
#include "stowage/error.h"

namespace stowage::testing {
namespace {

using model::attr::kKind;

std::string kind_of(const table::Item& item) {
  const auto kind = item.find(kKind);
  if (kind == item.end() || kind->second.type() != table::Type::S) return {};
  return kind->second.as_string();
}

// Whether an item without as_kind sits where a blob would: a count-only
// zombie that an ADD on a purged blob created. In Mode B such an item lacks
// even the GSI's copy of the logical key, so an unreadable key counts too.
bool is_blob_place(const schema::TableSchema& schema, const table::Item& item) {
  std::string prefix = schema.keys().blob("x").h;
  prefix.pop_back();
  try {
    const schema::LogicalKey key = schema.logical_key_of(item);
    return key.h == key.r && key.h.starts_with(prefix);
  } catch (const Error&) {
    return true;
  }
}

std::string key_of(const schema::TableSchema& schema, const table::Item& item) {
  try {
    const schema::LogicalKey key = schema.logical_key_of(item);
    return key.h + " / " + key.r;
  } catch (const Error&) {
    return table::describe(table::Value::map(item));
  }
}

// The blobs that read whole, by id; the rest are zombies (I2).
std::map<std::string, model::Blob> readable_blobs(const schema::TableSchema& schema,
                                                  const TableSnapshot& table,
                                                  InvariantReport& report) {
  std::map<std::string, model::Blob> blobs;
  for (const table::Item& item : table.blobs) {
    try {
      model::Blob blob = model::blob_from_item(item);
      blobs.emplace(blob.id, std::move(blob));
    } catch (const Error& error) {
      report.violations.push_back("I2: blob item " + key_of(schema, item) +
                                  " is not a whole blob (a zombie?): " + error.message());
    }
  }
  return blobs;
}

// I1 and the attachment half of I2.
void check_references(const schema::TableSchema& schema, const TableSnapshot& table,
                      const std::map<std::string, model::Blob>& blobs,
                      InvariantReport& report) {
  std::map<std::string, std::int64_t> references;
  for (const table::Item& item : table.attachments) {
    model::Attachment attachment;
    try {
      attachment = model::attachment_from_item(item);
    } catch (const Error& error) {
      report.violations.push_back("attachment item " + key_of(schema, item) +
                                  " does not read as an attachment: " + error.message());
      continue;
    }
    ++references[attachment.blob_id];
    const std::string who = "attachment " + attachment.id + " of " +
                            attachment.owner.record_type + " " + attachment.owner.record_id +
                            " " + attachment.name;
    const auto blob = blobs.find(attachment.blob_id);
    if (blob == blobs.end()) {
      report.violations.push_back("I2: " + who + " references blob " + attachment.blob_id +
                                  ", which does not exist");
      continue;
    }
    const model::Blob& b = blob->second;
    if (attachment.blob_key != b.key || attachment.filename != b.filename ||
        attachment.content_type != b.content_type || attachment.byte_size != b.byte_size ||
        attachment.checksum != b.checksum || attachment.service_name != b.service_name) {
      report.violations.push_back("I2: " + who + " carries fields that differ from blob " +
                                  b.id + "'s");
    }
  }
  for (const auto& [id, blob] : blobs) {
    const auto found = references.find(id);
    const std::int64_t actual = found == references.end() ? 0 : found->second;
    if (blob.attachments_count != actual) {
      report.violations.push_back("I1: blob " + id + " counts " +
                                  std::to_string(blob.attachments_count) +
                                  " attachments, but " + std::to_string(actual) +
                                  " attachment items reference it");
    }
  }
}

// The variant half of I2: a record never outlives its blob or its image.
void check_variant_records(const schema::TableSchema& schema, const TableSnapshot& table,
                           const std::map<std::string, model::Blob>& blobs,
                           InvariantReport& report) {
  for (const table::Item& item : table.variant_records) {
    try {
      const model::VariantRecord record = model::variant_record_from_item(item);
      for (const std::string& id : {record.blob_id, record.image_blob_id}) {
        if (blobs.count(id) == 0) {
          report.violations.push_back("I2: variant record " + record.variation_digest +
                                      " of blob " + record.blob_id + " names blob " + id +
                                      ", which does not exist");
        }
      }
    } catch (const Error& error) {
      report.violations.push_back("variant record item " + key_of(schema, item) +
                                  " does not read as one: " + error.message());
    }
  }
}

// I5, both ways.
void check_bytes(const std::map<std::string, model::Blob>& blobs,
                 const model::ServiceMap& services, InvariantReport& report) {
  // (service, key) -> size
  std::map<std::pair<std::string, std::string>, std::uint64_t> objects;
  for (const auto& [name, service] : services) {
    for (const service::ObjectInfo& object : service->list_objects("")) {
      objects.emplace(std::make_pair(name, object.key), object.byte_size);
    }
  }
  report.objects = objects.size();
  std::set<std::pair<std::string, std::string>> referenced;
  for (const auto& [id, blob] : blobs) {
    const auto object = std::make_pair(blob.service_name, blob.key);
    referenced.insert(object);
    if (services.count(blob.service_name) == 0) {
      report.violations.push_back("I5: blob " + id + " lives on service \"" +
                                  blob.service_name + "\", which is not configured");
      continue;
    }
    const auto found = objects.find(object);
    if (found == objects.end()) {
      report.violations.push_back("I5: the bytes of blob " + id + " (" + blob.service_name +
                                  " key " + blob.key + ") are missing");
    } else if (found->second != blob.byte_size) {
      report.violations.push_back("I5: the bytes of blob " + id + " are " +
                                  std::to_string(found->second) + " bytes, the blob says " +
                                  std::to_string(blob.byte_size));
    }
  }
  for (const auto& [object, size] : objects) {
    if (referenced.count(object) == 0) {
      report.leftovers.push_back("I5: orphaned bytes " + object.first + " key " +
                                 object.second + " (" + std::to_string(size) +
                                 " bytes) belong to no blob");
    }
  }
}

// I4, from the items alone: owner contexts, attachments and ledger items.
void check_ledgers(const schema::TableSchema& schema, const TableSnapshot& table,
                   InvariantReport& report) {
  using ledger::Ledger;
  using ledger::OwnerRecord;
  std::map<OwnerRecord, std::int64_t> real_by_owner;
  for (const table::Item& item : table.attachments) {
    try {
      const model::Attachment attachment = model::attachment_from_item(item);
      if (!attachment.tracked) continue;
      real_by_owner[{attachment.owner.record_type, attachment.owner.record_id}] +=
          static_cast<std::int64_t>(attachment.byte_size);
    } catch (const Error&) {
      // check_references reports it.
    }
  }
  std::map<OwnerRecord, ledger::OwnerContext> contexts;
  std::vector<const table::Item*> ledger_items;
  std::set<Ledger> ledgers;
  for (const table::Item& item : table.others) {
    const std::string kind = kind_of(item);
    try {
      if (kind == "OwnerContext") {
        const OwnerRecord owner{item.at("as_record_type").as_string(),
                                item.at("as_record_id").as_string()};
        ledger::OwnerContext context = ledger::owner_context_from_item(owner, item);
        for (const Ledger& l : context.ledgers()) ledgers.insert(l);
        contexts.emplace(owner, std::move(context));
      } else if (kind == "LedgerEntry" || kind == "LedgerTotal") {
        if (kind == "LedgerEntry") {
          const ledger::LedgerEntry entry = ledger::entry_from_item(item);
          if (entry.account_id) ledgers.insert(Ledger::account(*entry.account_id));
          if (entry.board_id) ledgers.insert(Ledger::board(*entry.board_id));
        }
        ledger_items.push_back(&item);
      }
    } catch (const std::exception& error) {
      report.violations.push_back("I4: " + kind + " item " + key_of(schema, item) +
                                  " does not read as one: " + error.what());
    }
  }

  for (const auto& [owner, real] : real_by_owner) {
    const auto context = contexts.find(owner);
    const std::int64_t counted = context == contexts.end() ? 0 : context->second.tracked_bytes;
    if (counted != real) {
      report.violations.push_back("I4: the context of " + owner.record_type + " " +
                                  owner.record_id + " counts " + std::to_string(counted) +
                                  " tracked bytes; its tracked attachments hold " +
                                  std::to_string(real));
    }
  }
  for (const auto& [owner, context] : contexts) {
    if (real_by_owner.count(owner) == 0 && context.tracked_bytes != 0) {
      report.violations.push_back("I4: the context of " + owner.record_type + " " +
                                  owner.record_id + " counts " +
                                  std::to_string(context.tracked_bytes) +
                                  " tracked bytes; it has no tracked attachment");
    }
  }

  // Each ledger's items by partition: the root (Total, pending) and the
  // permanent entries.
  const ledger::LedgerKeys keys(schema.keys());
  std::map<std::string, Ledger> roots;
  std::map<std::string, Ledger> trails;
  for (const Ledger& l : ledgers) {
    roots.emplace(keys.root_partition(l), l);
    trails.emplace(keys.entries_partition(l), l);
  }
  std::map<Ledger, ledger::LedgerRoot> root_of;
  std::map<Ledger, std::int64_t> permanent_of;
  for (const table::Item* item : ledger_items) {
    const std::string h = schema.logical_key_of(*item).h;
    if (const auto root = roots.find(h); root != roots.end()) {
      ledger::add_root_item(schema, keys, *item, root_of[root->second]);
    } else if (const auto trail = trails.find(h); trail != trails.end()) {
      permanent_of[trail->second] += ledger::entry_delta(*item);
    }
  }

  report.ledgers = ledgers.size();
  for (const Ledger& l : ledgers) {
    std::int64_t real = 0;
    for (const auto& [owner, context] : contexts) {
      const std::vector<Ledger> named = context.ledgers();
      if (std::find(named.begin(), named.end(), l) == named.end()) continue;
      const auto bytes = real_by_owner.find(owner);
      if (bytes != real_by_owner.end()) real += bytes->second;
    }
    const ledger::LedgerRoot& root = root_of[l];
    const std::int64_t exact = root.exact_bytes();
    const std::int64_t entries = root.pending_bytes() + permanent_of[l];
    if (exact != real || entries != real) {
      report.violations.push_back("I4: " + l.describe() + " has exact usage " +
                                  std::to_string(exact) + " (total " +
                                  std::to_string(root.total_bytes) + ") and entries summing to " +
                                  std::to_string(entries) + "; its owners' tracked attachments hold " +
                                  std::to_string(real));
    }
    if (!root.pending.empty()) {
      report.leftovers.push_back("I4: " + std::to_string(root.pending.size()) +
                                 " pending entries of " + l.describe() +
                                 " not materialized yet");
    }
  }
}

void report_jobs(const schema::TableSchema& schema, const TableSnapshot& table,
                 InvariantReport& report) {
  for (const table::Item& item : table.jobs) {
    std::string what = key_of(schema, item);
    try {
      const model::Job job = model::job_from_item(item);
      what = job.type + " job " + job.id + " (" + std::to_string(job.attempts) + " attempts)";
    } catch (const Error&) {
    }
    report.leftovers.push_back("job left: " + what);
  }
}

}  // namespace

TableSnapshot read_table(table::Engine& engine, const schema::TableSchema& schema) {
  TableSnapshot snapshot;
  table::ScanRequest request;
  request.table = schema.table_name();
  request.consistent_read = true;
  while (true) {
    table::QueryResult page = engine.scan(request);
    for (table::Item& item : page.items) {
      const std::string kind = kind_of(item);
      if (kind == model::kBlobKind || (kind.empty() && is_blob_place(schema, item))) {
        snapshot.blobs.push_back(std::move(item));
      } else if (kind == model::kAttachmentKind) {
        snapshot.attachments.push_back(std::move(item));
      } else if (kind == model::kVariantRecordKind) {
        snapshot.variant_records.push_back(std::move(item));
      } else if (kind == "Job") {  // docs/attachments.md's as_kind of a job
        snapshot.jobs.push_back(std::move(item));
      } else {
        snapshot.others.push_back(std::move(item));
      }
    }
    if (!page.last_evaluated_key) return snapshot;
    request.exclusive_start_key = std::move(page.last_evaluated_key);
  }
}

std::ostream& operator<<(std::ostream& out, const InvariantReport& report) {
  out << report.blobs << " blobs, " << report.attachments << " attachments, "
      << report.objects << " objects, " << report.ledgers << " ledgers; " << report.violations.size() << " violations, "
      << report.leftovers.size() << " leftovers";
  for (const std::string& violation : report.violations) out << "\n  " << violation;
  for (const std::string& leftover : report.leftovers) out << "\n  " << leftover;
  return out;
}

InvariantReport check_invariants(table::Engine& engine, const schema::TableSchema& schema,
                                 const model::ServiceMap& services) {
  const TableSnapshot table = read_table(engine, schema);
  InvariantReport report;
  report.blobs = table.blobs.size();
  report.attachments = table.attachments.size();
  const std::map<std::string, model::Blob> blobs = readable_blobs(schema, table, report);
  check_references(schema, table, blobs, report);
  check_variant_records(schema, table, blobs, report);
  check_bytes(blobs, services, report);
  check_ledgers(schema, table, report);
  report_jobs(schema, table, report);
  return report;
}

}  // namespace stowage::testing
