#include "model/sweep.h"

#include <set>
#include <utility>

#include "common/clock.h"
#include "model/item_conversion.h"
#include "stowage/error.h"

namespace stowage::model {

SweepReport sweep(table::Engine& engine, const schema::TableSchema& schema, BlobStore& blobs,
                  const ServiceMap& services, std::chrono::seconds grace) {
  const auto cutoff = std::chrono::system_clock::now() - grace;
  const std::string cutoff_text = iso8601_utc_micros(cutoff);

  std::vector<SweptObject> candidates;
  for (const auto& [name, service] : services) {
    for (const service::ObjectInfo& object : service->list_objects("")) {
      if (object.modified_at < cutoff) candidates.push_back({name, object.key});
    }
  }

  std::set<std::string, std::less<>> referenced_keys;
  std::vector<std::string> never_attached;
  table::ScanRequest request;
  request.table = schema.table_name();
  while (true) {
    table::QueryResult page = engine.scan(request);
    for (const table::Item& item : page.items) {
      const auto kind = item.find(attr::kKind);
      if (kind == item.end() || kind->second.type() != table::Type::S ||
          kind->second.as_string() != kBlobKind) {
        continue;
      }
      const Blob blob = blob_from_item(item);
      referenced_keys.insert(blob.key);
      if (!blob.attached_once && blob.attachments_count == 0 && blob.created_at < cutoff_text) {
        never_attached.push_back(blob.id);
      }
    }
    if (!page.last_evaluated_key) break;
    request.exclusive_start_key = std::move(page.last_evaluated_key);
  }

  SweepReport report;
  for (SweptObject& object : candidates) {
    if (referenced_keys.count(object.key) != 0) continue;
    services.find(object.service_name)->second->remove(object.key);
    report.deleted_objects.push_back(std::move(object));
  }
  for (const std::string& blob_id : never_attached) {
    try {
      blobs.purge(blob_id);
      report.purged_blob_ids.push_back(blob_id);
    } catch (const Error& error) {
      // Attached since the scan: it is no longer abandoned.
      if (error.code() != ErrorCode::ForeignKeyViolation) throw;
    }
  }
  return report;
}

}  // namespace stowage::model
