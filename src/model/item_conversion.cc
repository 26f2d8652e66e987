#include "model/item_conversion.h"

#include <cstdint>
#include <optional>
#include <string>

#include "stowage/error.h"

namespace stowage::model {

namespace {

using table::Item;
using table::Type;
using table::Value;

// Reads the attributes of one item and names the item in every error.
class ItemReader {
 public:
  ItemReader(const Item& item, std::string_view kind) : item_(item), kind_(kind) {
    const std::string kind_found = string(attr::kKind);
    if (kind_found != kind) {
      fail("has as_kind \"" + kind_found + "\", expected \"" + std::string(kind) + "\"");
    }
  }

  std::string string(std::string_view name) const {
    return required(name, Type::S).as_string();
  }
  std::string optional_string(std::string_view name) const {
    const Value* value = optional(name, Type::S);
    return value ? value->as_string() : std::string();
  }
  std::int64_t int64(std::string_view name) const {
    return to_int64(name, required(name, Type::N));
  }
  std::int64_t optional_int64(std::string_view name) const {
    const Value* value = optional(name, Type::N);
    return value ? to_int64(name, *value) : 0;
  }
  std::uint64_t byte_size(std::string_view name) const {
    const std::int64_t n = int64(name);
    if (n < 0) fail("has a negative " + std::string(name) + " (" + std::to_string(n) + ")");
    return static_cast<std::uint64_t>(n);
  }
  bool optional_boolean(std::string_view name) const {
    const Value* value = optional(name, Type::BOOL);
    return value && value->as_bool();
  }
  Item map(std::string_view name) const { return required(name, Type::M).as_map(); }

 private:
  const Value& required(std::string_view name, Type type) const {
    const Value* value = optional(name, type);
    if (!value) fail("has no " + std::string(name) + " attribute");
    return *value;
  }
  // Present and of the wrong type is an error even where absence is not.
  const Value* optional(std::string_view name, Type type) const {
    const auto it = item_.find(name);
    if (it == item_.end()) return nullptr;
    if (it->second.type() != type) {
      fail("has " + std::string(name) + " of type " +
           std::string(table::type_name(it->second.type())) + ", expected " +
           std::string(table::type_name(type)));
    }
    return &it->second;
  }
  std::int64_t to_int64(std::string_view name, const Value& value) const {
    const std::optional<std::int64_t> n = value.as_number().to_int64();
    if (!n) {
      fail("has " + std::string(name) + " = " + value.as_number().to_string() +
           ", which is not a 64-bit integer");
    }
    return *n;
  }
  [[noreturn]] void fail(const std::string& what) const {
    std::string who = std::string(kind_) + " item";
    const auto id = item_.find(attr::kId);
    if (id != item_.end() && id->second.type() == Type::S) {
      who += " " + id->second.as_string();
    }
    throw Error(ErrorCode::IntegrityError,
                who + " " + what + " (item: " + table::describe(item_) + ")");
  }

  const Item& item_;
  std::string_view kind_;
};

void put_string(Item& item, std::string_view name, std::string value) {
  item[std::string(name)] = Value::string(std::move(value));
}

void put_number(Item& item, std::string_view name, std::int64_t value) {
  item[std::string(name)] = Value::number(value);
}

void put_boolean(Item& item, std::string_view name, bool value) {
  item[std::string(name)] = Value::boolean(value);
}

}  // namespace

Item blob_to_item(const schema::TableSchema& schema, const Blob& blob) {
  Item item;
  schema.stamp(item, schema.keys().blob(blob.id));
  put_string(item, attr::kKind, std::string(kBlobKind));
  put_string(item, attr::kId, blob.id);
  put_string(item, attr::kKey, blob.key);
  put_string(item, attr::kFilename, blob.filename);
  put_string(item, attr::kContentType, blob.content_type);
  item[std::string(attr::kMetadata)] = Value::map(blob.metadata);
  put_number(item, attr::kByteSize, static_cast<std::int64_t>(blob.byte_size));
  put_string(item, attr::kChecksum, blob.checksum);
  put_string(item, attr::kServiceName, blob.service_name);
  put_string(item, attr::kCreatedAt, blob.created_at);
  put_number(item, attr::kAttachmentsCount, blob.attachments_count);
  put_boolean(item, attr::kAttachedOnce, blob.attached_once);
  return item;
}

Blob blob_from_item(const Item& item) {
  const ItemReader reader(item, kBlobKind);
  Blob blob;
  blob.id = reader.string(attr::kId);
  blob.key = reader.string(attr::kKey);
  blob.filename = reader.string(attr::kFilename);
  blob.content_type = reader.optional_string(attr::kContentType);
  blob.metadata = reader.map(attr::kMetadata);
  blob.byte_size = reader.byte_size(attr::kByteSize);
  blob.checksum = reader.string(attr::kChecksum);
  blob.service_name = reader.string(attr::kServiceName);
  blob.created_at = reader.string(attr::kCreatedAt);
  // Absent on a blob no attachment change has touched (ADD creates it).
  blob.attachments_count = reader.optional_int64(attr::kAttachmentsCount);
  blob.attached_once = reader.optional_boolean(attr::kAttachedOnce);
  return blob;
}

Item attachment_to_item(const schema::TableSchema& schema,
                        const Attachment& attachment) {
  Item item;
  schema.stamp(item, schema.keys().attachment(attachment.owner.record_type,
                                              attachment.owner.record_id,
                                              attachment.name, attachment.id));
  put_string(item, attr::kKind, std::string(kAttachmentKind));
  put_string(item, attr::kId, attachment.id);
  put_string(item, attr::kRecordType, attachment.owner.record_type);
  put_string(item, attr::kRecordId, attachment.owner.record_id);
  put_string(item, attr::kName, attachment.name);
  put_string(item, attr::kBlobId, attachment.blob_id);
  put_string(item, attr::kCreatedAt, attachment.created_at);
  put_boolean(item, attr::kTracked, attachment.tracked);
  put_string(item, attr::kBlobKey, attachment.blob_key);
  put_string(item, attr::kFilename, attachment.filename);
  put_string(item, attr::kContentType, attachment.content_type);
  put_number(item, attr::kByteSize, static_cast<std::int64_t>(attachment.byte_size));
  put_string(item, attr::kChecksum, attachment.checksum);
  put_string(item, attr::kServiceName, attachment.service_name);
  return item;
}

Attachment attachment_from_item(const Item& item) {
  const ItemReader reader(item, kAttachmentKind);
  Attachment attachment;
  attachment.id = reader.string(attr::kId);
  attachment.owner.record_type = reader.string(attr::kRecordType);
  attachment.owner.record_id = reader.string(attr::kRecordId);
  attachment.name = reader.string(attr::kName);
  attachment.blob_id = reader.string(attr::kBlobId);
  attachment.created_at = reader.string(attr::kCreatedAt);
  attachment.tracked = reader.optional_boolean(attr::kTracked);
  attachment.blob_key = reader.string(attr::kBlobKey);
  attachment.filename = reader.string(attr::kFilename);
  attachment.content_type = reader.optional_string(attr::kContentType);
  attachment.byte_size = reader.byte_size(attr::kByteSize);
  attachment.checksum = reader.string(attr::kChecksum);
  attachment.service_name = reader.string(attr::kServiceName);
  return attachment;
}

Item variant_record_to_item(const schema::TableSchema& schema,
                            const VariantRecord& record) {
  Item item;
  schema.stamp(item, schema.keys().variant_record(record.blob_id,
                                                  record.variation_digest));
  put_string(item, attr::kKind, std::string(kVariantRecordKind));
  put_string(item, attr::kBlobId, record.blob_id);
  put_string(item, attr::kVariationDigest, record.variation_digest);
  put_string(item, attr::kImageBlobId, record.image_blob_id);
  put_string(item, attr::kCreatedAt, record.created_at);
  return item;
}

VariantRecord variant_record_from_item(const Item& item) {
  const ItemReader reader(item, kVariantRecordKind);
  VariantRecord record;
  record.blob_id = reader.string(attr::kBlobId);
  record.variation_digest = reader.string(attr::kVariationDigest);
  record.image_blob_id = reader.string(attr::kImageBlobId);
  record.created_at = reader.string(attr::kCreatedAt);
  return record;
}

}  // namespace stowage::model
