// sweep(): maintenance that finds what no metadata will ever delete (DESIGN
// I5) and deletes it:
//   - bytes no blob references: objects older than the grace period whose
//     key is no blob item's key (an upload whose blob never committed, or
//     bytes a crash left after their blob was purged);
//   - blobs never attached: blob items with as_attached_once false, no
//     attachments and created_at older than the grace period (direct uploads
//     the client abandoned), purged through BlobStore::purge, which refuses
//     a blob attached meanwhile.
// The grace period protects work in flight: bytes are written before their
// blob item, and a direct-upload blob before its attach, so it must be longer
// than either gap. Blob items are found by scanning the whole table in pages:
// a maintenance pass, never a request path.
//
// Thread safety: safe to run beside any other operation (its deletes are
// each guarded as above); two sweeps at once only repeat each other's work.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "model/blob_store.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::model {

struct SweptObject {
  std::string service_name;
  std::string key;
};

struct SweepReport {
  std::vector<SweptObject> deleted_objects;
  std::vector<std::string> purged_blob_ids;
};

// Lists every service of `services` first and scans the blob items second,
// so that a blob committed while the sweep runs still protects its bytes.
SweepReport sweep(table::Engine& engine, const schema::TableSchema& schema, BlobStore& blobs,
                  const ServiceMap& services, std::chrono::seconds grace);

}  // namespace stowage::model
