#include "model/variant_records.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/item_conversion.h"
#include "model_fixture.h"

namespace stowage::model {
namespace {

class VariantRecordsTest : public ModelTest {
 protected:
  void SetUp() override {
    ModelTest::SetUp();
    if (IsSkipped()) return;
    variants_.emplace(*engine_, *schema_, *store_);
  }

  std::optional<VariantRecords> variants_;
};

TEST_P(VariantRecordsTest, CreateOrFindCreatesOnceAndFindsAfterwards) {
  const Blob blob = upload("original");
  const Blob first = upload("first image");
  const Blob second = upload("second image");

  const VariantRecord created = variants_->create_or_find(blob.id, "d1", first.id);
  EXPECT_EQ(created.image_blob_id, first.id);
  const VariantRecord found = variants_->create_or_find(blob.id, "d1", second.id);
  EXPECT_EQ(found.image_blob_id, first.id);
  EXPECT_EQ(found.created_at, created.created_at);

  ASSERT_TRUE(variants_->find(blob.id, "d1"));
  EXPECT_EQ(variants_->find(blob.id, "d1")->image_blob_id, first.id);
  EXPECT_FALSE(variants_->find(blob.id, "d2"));
}

TEST_P(VariantRecordsTest, ListReturnsOnlyThisBlobsRecordsPastOnePage) {
  const Blob blob = upload("original");
  const Blob other = upload("other");
  const Blob image = upload("image");
  std::set<std::string> digests;
  for (int i = 0; i < 30; ++i) {
    const std::string digest = "digest" + std::to_string(100 + i);
    variants_->create_or_find(blob.id, digest, image.id);
    digests.insert(digest);
  }
  variants_->create_or_find(other.id, "foreign", image.id);

  std::set<std::string> listed;
  for (const VariantRecord& record : variants_->list(blob.id)) {
    EXPECT_EQ(record.blob_id, blob.id);
    listed.insert(record.variation_digest);
  }
  EXPECT_EQ(listed, digests);
}

TEST_P(VariantRecordsTest, NoRecordForAMissingBlob) {
  const Blob blob = upload("gone");
  const Blob image = upload("image");
  store_->purge(blob.id);
  try {
    variants_->create_or_find(blob.id, "d1", image.id);
    FAIL() << "created a variant record for a purged blob";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RecordNotFound);
  }
  EXPECT_FALSE(variants_->find(blob.id, "d1"));
}

TEST_P(VariantRecordsTest, ConcurrentCreatorsEndWithOneRecord) {
  const Blob blob = upload("original");
  std::vector<Blob> images;
  for (int i = 0; i < 4; ++i) images.push_back(upload("image " + std::to_string(i)));
  for (int round = 0; round < 10; ++round) {
    const std::string digest = "race" + std::to_string(round);
    std::vector<std::string> seen(images.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < images.size(); ++i) {
      threads.emplace_back([&, i] {
        seen[i] = variants_->create_or_find(blob.id, digest, images[i].id).image_blob_id;
      });
    }
    for (std::thread& thread : threads) thread.join();
    const std::optional<VariantRecord> stored = variants_->find(blob.id, digest);
    ASSERT_TRUE(stored);
    for (const std::string& image_blob_id : seen) EXPECT_EQ(image_blob_id, stored->image_blob_id);
  }
}

TEST_P(VariantRecordsTest, CreateRacingPurgeNeverLeavesAVariantOfAPurgedBlob) {
  const Blob image = upload("image");
  const int rounds = 40;
  for (int round = 0; round < rounds; ++round) {
    const Blob blob = upload("original " + std::to_string(round));
    std::atomic<bool> go{false};
    std::vector<std::thread> creators;
    for (int t = 0; t < 3; ++t) {
      creators.emplace_back([&, t] {
        while (!go) std::this_thread::yield();
        for (int i = 0; i < 5; ++i) {
          try {
            variants_->create_or_find(blob.id, "d" + std::to_string(t * 5 + i), image.id);
          } catch (const Error& error) {
            EXPECT_EQ(error.code(), ErrorCode::RecordNotFound) << error.what();
          }
        }
      });
    }
    go = true;
    // The image blob is shared by every record: purging the original purges
    // it too, after which later rounds' records point at a missing blob,
    // which is all the check below needs.
    try {
      store_->purge(blob.id);
    } catch (const Error& error) {
      ADD_FAILURE() << error.what();
    }
    for (std::thread& creator : creators) creator.join();
    EXPECT_TRUE(variants_->list(blob.id).empty()) << "round " << round;
  }
  for (const table::Item& item : all_items()) {
    if (item.at("as_kind") == table::Value::string("VariantRecord")) {
      ADD_FAILURE() << "a variant record outlived its blob: " << table::describe(item);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, VariantRecordsTest, ::testing::ValuesIn(model_params()),
                         model_param_name);

}  // namespace
}  // namespace stowage::model
