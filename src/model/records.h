// The records of Active Storage's model as Stowage stores them: Blob,
// Attachment, VariantRecord, and the reference to an owner record. Plain
// value types; thread-compatible. Their item layouts are in
// docs/attachments.md; item_conversion.h reads and writes them.
#pragma once

#include <cstdint>
#include <string>

#include "table/value.h"

namespace stowage::model {

// The application record that owns attachments, e.g. {"Card", "42"}.
struct OwnerRef {
  std::string record_type;
  std::string record_id;
  friend bool operator==(const OwnerRef&, const OwnerRef&) = default;
};

struct Blob {
  std::string id;            // UUID v4
  std::string key;           // 28 lowercase base36 characters: the service key
  std::string filename;      // sanitized
  std::string content_type;  // from the bytes (libmagic) and the filename
  // Free-form map; Stowage owns `identified` and `analyzed` (BOOL) and, for
  // images, `width` and `height` (N). A direct-upload caller cannot set the
  // protected ones.
  table::Item metadata;
  std::uint64_t byte_size = 0;
  std::string checksum;      // base64 MD5 of the bytes
  std::string service_name;
  std::string created_at;    // UTC ISO-8601 with microseconds
  std::int64_t attachments_count = 0;
  bool attached_once = false;
};

struct Attachment {
  std::string id;            // time-ordered UUID v7
  OwnerRef owner;
  std::string name;
  std::string blob_id;
  std::string created_at;
  bool tracked = false;      // counted by the storage ledger
  // The blob's immutable fields, copied so that a listing needs no blob reads.
  std::string blob_key;
  std::string filename;
  std::string content_type;
  std::uint64_t byte_size = 0;
  std::string checksum;
  std::string service_name;
};

struct VariantRecord {
  std::string blob_id;           // the original
  std::string variation_digest;  // identifies the transformation
  std::string image_blob_id;     // the processed image
  std::string created_at;
};

}  // namespace stowage::model
