#include "model/blob_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "common/clock.h"
#include "common/digest.h"
#include "common/uuid.h"
#include "model/blob_key.h"
#include "model/filename.h"
#include "model/item_conversion.h"
#include "model/outbox.h"
#include "model/variant_records.h"
#include "model_fixture.h"

namespace stowage::model {
namespace {

using table::Item;
using table::Value;

std::string file_contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool is_base36(const std::string& key) {
  return key.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz") == std::string::npos;
}

class BlobStoreTest : public ModelTest {};

TEST_P(BlobStoreTest, CreateAndUploadStoresDurableBytesAndTheBlobItem) {
  std::string bytes(100000, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7919 % 251);
  service::StringSource source(bytes);
  Item metadata{{"custom", Value::string("kept")}, {"identified", Value::boolean(false)}};
  const Blob blob = store_->create_and_upload(
      source, BlobInput{"../etc/pass\nwd.bin", "text/html", metadata, ""});

  EXPECT_EQ(blob.checksum, base64_encode(md5(bytes)));
  EXPECT_EQ(blob.byte_size, bytes.size());
  EXPECT_EQ(blob.key.size(), 28u);
  EXPECT_TRUE(is_base36(blob.key)) << blob.key;
  EXPECT_EQ(blob.filename, "..-etc-pass-wd.bin");
  EXPECT_EQ(blob.service_name, kServiceName);
  EXPECT_EQ(blob.content_type, "application/octet-stream");
  EXPECT_EQ(blob.attachments_count, 0);
  EXPECT_EQ(blob.created_at.size(), 27u) << blob.created_at;
  EXPECT_EQ(blob.metadata.at("custom"), Value::string("kept"));
  EXPECT_EQ(blob.metadata.at("identified"), Value::boolean(true));
  EXPECT_EQ(blob.metadata.at("analyzed"), Value::boolean(true));
  EXPECT_EQ(file_contents(disk_->path_for(blob.key)), bytes);

  const Blob found = store_->find(blob.id);
  EXPECT_EQ(found.key, blob.key);
  EXPECT_EQ(found.checksum, blob.checksum);
  EXPECT_EQ(found.byte_size, blob.byte_size);
  EXPECT_EQ(found.filename, blob.filename);
  EXPECT_EQ(found.content_type, blob.content_type);
  EXPECT_EQ(found.metadata, blob.metadata);
  EXPECT_EQ(found.created_at, blob.created_at);
  EXPECT_FALSE(found.attached_once);

  const std::optional<Item> item = raw_blob_item(blob.id);
  ASSERT_TRUE(item);
  EXPECT_EQ(item->at("as_kind"), Value::string("Blob"));
  EXPECT_EQ(item->at("as_byte_size"), Value::number(100000));
  EXPECT_EQ(schema_->logical_key_of(*item), schema_->keys().blob(blob.id));
}

TEST_P(BlobStoreTest, ContentTypeComesFromTheBytesNotTheNameOrDeclaration) {
  const std::string png = encoded_image(64, 48, ".png");
  service::StringSource source(png);
  const Blob blob =
      store_->create_and_upload(source, BlobInput{"notes.txt", "text/plain", {}, ""});
  EXPECT_EQ(blob.content_type, "image/png");
  EXPECT_EQ(blob.filename, "notes.txt");
  EXPECT_EQ(store_->find(blob.id).content_type, "image/png");
}

TEST_P(BlobStoreTest, ImagesGetWidthAndHeight) {
  for (const char* suffix : {".png", ".jpg"}) {
    SCOPED_TRACE(suffix);
    const Blob blob = upload(encoded_image(320, 200, suffix), std::string("photo") + suffix);
    const Blob found = store_->find(blob.id);
    EXPECT_EQ(found.metadata.at("width"), Value::number(320));
    EXPECT_EQ(found.metadata.at("height"), Value::number(200));
    EXPECT_EQ(found.metadata.at("identified"), Value::boolean(true));
    EXPECT_EQ(found.metadata.at("analyzed"), Value::boolean(true));
  }
  const Blob text = upload("just some words\n", "words.txt");
  EXPECT_EQ(text.content_type, "text/plain");
  EXPECT_FALSE(text.metadata.contains("width"));
}

TEST_P(BlobStoreTest, FindOfMissingBlobIsRecordNotFound) {
  try {
    store_->find("6d1f0d8e-0000-4000-8000-000000000000");
    FAIL() << "found a blob that does not exist";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RecordNotFound);
    EXPECT_NE(error.message().find("6d1f0d8e"), std::string::npos) << error.message();
  }
}

TEST_P(BlobStoreTest, UnknownServiceIsAConfigurationErrorAndUploadsNothing) {
  service::StringSource source("abc");
  try {
    store_->create_and_upload(source, BlobInput{"a.bin", "", {}, "elsewhere"});
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ConfigurationError);
  }
  EXPECT_TRUE(disk_->list_objects("").empty());
}

TEST_P(BlobStoreTest, SignedIdsRoundTripAndRejectTamperingExpiryAndPurpose) {
  const Blob blob = upload("signed");
  const std::string id = store_->signed_id(blob.id, "blob_id");
  ASSERT_TRUE(store_->find_signed(id, "blob_id"));
  EXPECT_EQ(store_->find_signed(id, "blob_id")->key, blob.key);

  EXPECT_FALSE(store_->find_signed(id, "download"));
  std::string tampered = id;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(store_->find_signed(tampered, "blob_id"));
  const auto now = std::chrono::system_clock::now();
  EXPECT_FALSE(store_->find_signed(
      store_->signed_id(blob.id, "blob_id", now - std::chrono::seconds(1)), "blob_id"));
  EXPECT_TRUE(store_->find_signed(
      store_->signed_id(blob.id, "blob_id", now + std::chrono::hours(1)), "blob_id"));

  store_->purge(blob.id);
  EXPECT_FALSE(store_->find_signed(id, "blob_id"));
}

TEST_P(BlobStoreTest, DirectUploadStripsProtectedMetadata) {
  const std::string checksum = base64_encode(md5("direct bytes"));
  const Blob blob = store_->create_before_direct_upload(DirectUploadInput{
      "report.pdf", 12, checksum, "application/pdf",
      {{"identified", Value::boolean(true)},
       {"analyzed", Value::boolean(true)},
       {"width", Value::number(1)},
       {"purpose", Value::string("invoice")}},
      ""});
  const Blob found = store_->find(blob.id);
  EXPECT_EQ(found.metadata, (Item{{"purpose", Value::string("invoice")}}));
  EXPECT_EQ(found.checksum, checksum);
  EXPECT_EQ(found.byte_size, 12u);
  EXPECT_EQ(found.content_type, "application/pdf");
  EXPECT_FALSE(disk_->exists(found.key));

  try {
    store_->create_before_direct_upload(
        DirectUploadInput{"x.bin", 1, "not-a-checksum", "", {}, ""});
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ValidationError);
  }
  // A size past 2^63 would turn negative in the ledger's signed sums.
  for (const std::uint64_t declared : {kMaxBlobBytes + 1, std::uint64_t{1} << 63}) {
    try {
      store_->create_before_direct_upload(
          DirectUploadInput{"huge.bin", declared, checksum, "", {}, ""});
      FAIL() << declared;
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::ValidationError);
      EXPECT_THAT(error.what(), ::testing::HasSubstr("over the largest blob"));
    }
  }
  EXPECT_NO_THROW(store_->create_before_direct_upload(
      DirectUploadInput{"large.bin", kMaxBlobBytes, checksum, "", {}, ""}));
}

TEST_P(BlobStoreTest, UpdateMetadataNeverRecreatesAPurgedBlob) {
  const Blob blob = upload("meta");
  store_->update_metadata(blob.id, {{"analyzed", Value::boolean(true)},
                                    {"pages", Value::number(3)}});
  EXPECT_EQ(store_->find(blob.id).metadata.at("pages"), Value::number(3));
  EXPECT_EQ(store_->find(blob.id).key, blob.key);

  store_->purge(blob.id);
  try {
    store_->update_metadata(blob.id, {});
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RecordNotFound);
  }
  EXPECT_FALSE(raw_blob_item(blob.id));
}

TEST_P(BlobStoreTest, PurgeRemovesItemBytesVariantsAndTheJob) {
  const Blob blob = upload(encoded_image(40, 30, ".png"), "a.png");
  const Blob thumb = upload(encoded_image(4, 3, ".png"), "a-thumb.png");
  VariantRecords variants(*engine_, *schema_, *store_);
  variants.create_or_find(blob.id, "resize-4x3", thumb.id);
  ASSERT_TRUE(disk_->exists(blob.key));

  store_->purge(blob.id);

  EXPECT_FALSE(raw_blob_item(blob.id));
  EXPECT_FALSE(raw_blob_item(thumb.id));
  EXPECT_FALSE(disk_->exists(blob.key));
  EXPECT_FALSE(disk_->exists(thumb.key));
  EXPECT_FALSE(variants.find(blob.id, "resize-4x3"));
  // Nothing is left: no blob, no variant record, no delete_bytes job.
  EXPECT_TRUE(all_items().empty());
}

TEST_P(BlobStoreTest, PurgeOfAttachedBlobIsForeignKeyViolation) {
  const Blob blob = upload("attached");
  set_attachments_count(blob.id, 2);
  try {
    store_->purge(blob.id);
    FAIL() << "purged an attached blob";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ForeignKeyViolation);
  }
  const Blob kept = store_->find(blob.id);
  EXPECT_EQ(kept.attachments_count, 2);
  EXPECT_TRUE(kept.attached_once);
  EXPECT_TRUE(disk_->exists(blob.key));

  set_attachments_count(blob.id, -2);
  EXPECT_EQ(store_->find(blob.id).attachments_count, 0);
  store_->purge(blob.id);
  EXPECT_FALSE(raw_blob_item(blob.id));
}

TEST_P(BlobStoreTest, DuplicatePurgeIsANoOp) {
  const Blob blob = upload("twice");
  store_->purge(blob.id);
  EXPECT_NO_THROW(store_->purge(blob.id));
  EXPECT_FALSE(raw_blob_item(blob.id));
  EXPECT_TRUE(all_items().empty());
}

TEST_P(BlobStoreTest, RefcountOnAPurgedBlobFailsWithoutAZombie) {
  const Blob blob = upload("zombie");
  store_->purge(blob.id);
  try {
    set_attachments_count(blob.id, 1);
    FAIL() << "counted an attachment of a purged blob";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::TransactionCanceled);
  }
  try {
    engine_->transact_write({{store_->blob_exists_check(blob.id)}, ""});
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::TransactionCanceled);
  }
  EXPECT_FALSE(raw_blob_item(blob.id));
}

TEST_P(BlobStoreTest, DeleteBytesJobRoundTripsThroughTheTable) {
  // What a process that died right after the purge transaction leaves: no
  // blob item, and a delete_bytes job a worker reads back.
  const Blob blob = upload("crash");
  const Job job = make_job(kDeleteBytesJob, {{"service_name", Value::string(blob.service_name)},
                                             {"key", Value::string(blob.key)}});
  engine_->transact_write(
      {{table::DeleteRequest{schema_->table_name(),
                             schema_->physical_key(schema_->keys().blob(blob.id)),
                             std::nullopt, table::ReturnValues::None},
        enqueue_action(*schema_, job)},
       ""});
  const std::vector<Item> items = all_items();
  ASSERT_EQ(items.size(), 1u);
  const Job stored = job_from_item(items.front());
  EXPECT_EQ(stored.id, job.id);
  EXPECT_EQ(stored.type, "delete_bytes");
  EXPECT_EQ(stored.args.at("key"), Value::string(blob.key));
  EXPECT_TRUE(disk_->exists(blob.key));
}

TEST_P(BlobStoreTest, AttachmentAndVariantItemsRoundTripThroughTheTable) {
  const Attachment attachment{uuid_v7(std::chrono::system_clock::now()),
                              {"Card", "42"}, "avatar", "blob-1",
                              "2026-06-02T10:11:12.000034Z", true, "key1",
                              "a.png", "image/png", 123, "sum==", kServiceName};
  engine_->put({schema_->table_name(), attachment_to_item(*schema_, attachment),
                std::nullopt, table::ReturnValues::None});
  const VariantRecord record{"blob-1", "digest", "blob-2", "2026-06-02T10:11:12.000034Z"};
  engine_->put({schema_->table_name(), variant_record_to_item(*schema_, record),
                std::nullopt, table::ReturnValues::None});

  const std::optional<Item> attachment_item = engine_->get(
      {schema_->table_name(),
       schema_->physical_key(schema_->keys().attachment("Card", "42", "avatar", attachment.id)),
       true});
  ASSERT_TRUE(attachment_item);
  const Attachment read = attachment_from_item(*attachment_item);
  EXPECT_EQ(read.id, attachment.id);
  EXPECT_EQ(read.owner, attachment.owner);
  EXPECT_EQ(read.name, "avatar");
  EXPECT_EQ(read.blob_id, "blob-1");
  EXPECT_TRUE(read.tracked);
  EXPECT_EQ(read.blob_key, "key1");
  EXPECT_EQ(read.byte_size, 123u);
  EXPECT_EQ(read.service_name, kServiceName);

  const std::optional<Item> record_item = engine_->get(
      {schema_->table_name(),
       schema_->physical_key(schema_->keys().variant_record("blob-1", "digest")), true});
  ASSERT_TRUE(record_item);
  const VariantRecord read_record = variant_record_from_item(*record_item);
  EXPECT_EQ(read_record.blob_id, "blob-1");
  EXPECT_EQ(read_record.variation_digest, "digest");
  EXPECT_EQ(read_record.image_blob_id, "blob-2");
  EXPECT_EQ(read_record.created_at, record.created_at);
}

INSTANTIATE_TEST_SUITE_P(Engines, BlobStoreTest, ::testing::ValuesIn(model_params()),
                         model_param_name);

TEST(ItemConversionTest, MalformedBlobItemNamesTheAttribute) {
  Item item{{"as_kind", Value::string("Blob")}, {"as_id", Value::string("b1")},
            {"as_key", Value::number(5)}};
  try {
    blob_from_item(item);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::IntegrityError);
    EXPECT_NE(error.message().find("as_key"), std::string::npos) << error.message();
  }
  item["as_kind"] = Value::string("Attachment");
  try {
    blob_from_item(item);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::IntegrityError);
    EXPECT_NE(error.message().find("as_kind"), std::string::npos) << error.message();
  }
}

TEST(BlobFieldsTest, SanitizedFilenamesKeepTheExtension) {
  EXPECT_EQ(sanitize_filename("  photo.jpg "), "photo.jpg");
  EXPECT_EQ(sanitize_filename("a/b\\c:d*e?f\"g<h>i|j%k$l;m.png"), "a-b-c-d-e-f-g-h-i-j-k-l-m.png");
  EXPECT_EQ(sanitize_filename("tab\there\x01.txt"), "tab-here-.txt");
  EXPECT_EQ(sanitize_filename("invoice\xE2\x80\xAEgpj.exe"), "invoice-gpj.exe");
  EXPECT_EQ(sanitize_filename("caf\xC3\xA9.txt"), "caf\xC3\xA9.txt");
  EXPECT_EQ(sanitize_filename("bad\xC3(.txt"), "bad-(.txt");
  EXPECT_EQ(sanitize_filename(""), "file");
  EXPECT_EQ(sanitize_filename("   "), "file");
  EXPECT_EQ(sanitize_filename(".."), "file");
}

TEST(BlobFieldsTest, BlobKeysAreUniformBase36) {
  std::map<char, int> counts;
  std::set<std::string> keys;
  for (int i = 0; i < 2000; ++i) {
    const std::string key = generate_blob_key();
    ASSERT_EQ(key.size(), kBlobKeyLength);
    ASSERT_TRUE(is_base36(key)) << key;
    keys.insert(key);
    for (char c : key) ++counts[c];
  }
  EXPECT_EQ(keys.size(), 2000u);
  ASSERT_EQ(counts.size(), 36u);
  // 56,000 characters over 36 symbols: about 1556 each; a biased generator
  // (e.g. byte % 36, which favours the first 4 symbols by 1/7) falls
  // outside this band for those.
  for (const auto& [c, n] : counts) {
    EXPECT_GT(n, 1400) << c;
    EXPECT_LT(n, 1720) << c;
  }
}

TEST(BlobFieldsTest, CreatedAtIsUtcWithMicroseconds) {
  using namespace std::chrono;
  const sys_time<microseconds> time =
      sys_days{year{2026} / 6 / 2} + hours(10) + minutes(11) + seconds(12) + microseconds(34);
  EXPECT_EQ(iso8601_utc_micros(time), "2026-06-02T10:11:12.000034Z");
  EXPECT_EQ(micros_since_epoch(time), 1780395072000034);
}

TEST(BlobFieldsTest, UuidV7OrdersWithTheClock) {
  using namespace std::chrono;
  const auto start = system_clock::now();
  std::string previous;
  for (int i = 0; i < 3000; ++i) {
    const std::string id = uuid_v7(start + microseconds(i));
    ASSERT_EQ(id.size(), 36u);
    EXPECT_EQ(id[14], '7');
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;
    EXPECT_LT(previous, id) << "at " << i;
    previous = id;
  }
}

}  // namespace
}  // namespace stowage::model
