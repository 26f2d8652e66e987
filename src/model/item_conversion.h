// Blob, Attachment and VariantRecord to and from table items, in the layouts
// of docs/attachments.md. The *_to_item functions stamp the item's keys
// through TableSchema (Mode A or B); the *_from_item functions read only the
// `as_` attributes, so they work on items from the base table and from the
// GSI alike.
//
// Thread-safe: pure functions.
#pragma once

#include <string_view>

#include "model/records.h"
#include "schema/table_schema.h"
#include "table/value.h"

namespace stowage::model {

// Attribute names, for the conditions and updates that name them.
namespace attr {
inline constexpr std::string_view kKind = "as_kind";
inline constexpr std::string_view kId = "as_id";
inline constexpr std::string_view kKey = "as_key";
inline constexpr std::string_view kFilename = "as_filename";
inline constexpr std::string_view kContentType = "as_content_type";
inline constexpr std::string_view kMetadata = "as_metadata";
inline constexpr std::string_view kByteSize = "as_byte_size";
inline constexpr std::string_view kChecksum = "as_checksum";
inline constexpr std::string_view kServiceName = "as_service_name";
inline constexpr std::string_view kCreatedAt = "as_created_at";
inline constexpr std::string_view kAttachmentsCount = "as_attachments_count";
inline constexpr std::string_view kAttachedOnce = "as_attached_once";
inline constexpr std::string_view kRecordType = "as_record_type";
inline constexpr std::string_view kRecordId = "as_record_id";
inline constexpr std::string_view kName = "as_name";
inline constexpr std::string_view kBlobId = "as_blob_id";
inline constexpr std::string_view kTracked = "as_tracked";
inline constexpr std::string_view kBlobKey = "as_blob_key";
inline constexpr std::string_view kVariationDigest = "as_variation_digest";
inline constexpr std::string_view kImageBlobId = "as_image_blob_id";
}  // namespace attr

// as_kind values.
inline constexpr std::string_view kBlobKind = "Blob";
inline constexpr std::string_view kAttachmentKind = "Attachment";
inline constexpr std::string_view kVariantRecordKind = "VariantRecord";

// Blob metadata keys Stowage sets from the bytes; callers cannot.
inline constexpr std::string_view kIdentifiedMetadata = "identified";
inline constexpr std::string_view kAnalyzedMetadata = "analyzed";
inline constexpr std::string_view kWidthMetadata = "width";
inline constexpr std::string_view kHeightMetadata = "height";

// Throw Error(InvalidKey) when an id part of the key is blank or holds the
// separator (KeyScheme's rule).
table::Item blob_to_item(const schema::TableSchema& schema, const Blob& blob);
table::Item attachment_to_item(const schema::TableSchema& schema,
                               const Attachment& attachment);
table::Item variant_record_to_item(const schema::TableSchema& schema,
                                   const VariantRecord& record);

// Throw Error(IntegrityError) naming the attribute that is missing or of the
// wrong type, or an as_kind other than the one expected.
Blob blob_from_item(const table::Item& item);
Attachment attachment_from_item(const table::Item& item);
VariantRecord variant_record_from_item(const table::Item& item);

}  // namespace stowage::model
