// VariantRecords: which processed image stands for (blob, variation) —
// Active Storage's ActiveStorage::VariantRecord. A blob's records live in the
// blob's own partition (H = ns#Blob#<blob_id>), so purging the blob finds
// them with one query.
//
// Thread-safe: holds only references to thread-safe objects.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/records.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::model {

class BlobStore;

class VariantRecords {
 public:
  // REQUIRES: the referenced objects outlive this one.
  VariantRecords(table::Engine& engine, const schema::TableSchema& schema,
                 const BlobStore& blobs);

  // The record for (blob_id, digest): created pointing at image_blob_id in a
  // transaction that also checks the blob still exists, so a record is never
  // created for a purged blob; when another writer created it first, that
  // record is returned (its image blob id may differ from image_blob_id).
  // Throws Error(RecordNotFound) when the blob is gone.
  VariantRecord create_or_find(std::string_view blob_id,
                               std::string_view variation_digest,
                               std::string_view image_blob_id);

  // Consistent point read.
  std::optional<VariantRecord> find(std::string_view blob_id,
                                    std::string_view variation_digest) const;

  // Every record of the blob, in digest order. Mode B lists through the
  // GSI, so a record created a moment ago may be missing.
  std::vector<VariantRecord> list(std::string_view blob_id) const;

  // Deletes the record; absent is not an error.
  void remove(std::string_view blob_id, std::string_view variation_digest);

 private:
  table::Engine& engine_;
  const schema::TableSchema& schema_;
  const BlobStore& blobs_;
};

}  // namespace stowage::model
