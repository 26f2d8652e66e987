#include "model/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/clock.h"
#include "model/attachments.h"
#include "model/definitions.h"
#include "model/item_conversion.h"
#include "model_fixture.h"

namespace stowage::model {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

class SweepTest : public ModelTest {
 protected:
  void SetUp() override {
    ModelTest::SetUp();
    if (IsSkipped()) return;
    services_ = {{kServiceName, disk_}};
    attachments_.emplace(*engine_, *schema_, definitions_, *store_);
  }

  // Bytes under `key` with no blob, last written `age` ago.
  void orphan(const std::string& key, std::chrono::system_clock::duration age) {
    service::StringSource source("orphaned bytes");
    disk_->upload(key, source, {});
    backdate_bytes(key, age);
  }

  void backdate_bytes(const std::string& key, std::chrono::system_clock::duration age) {
    const auto when = std::filesystem::file_time_type::clock::now() -
                      std::chrono::duration_cast<std::filesystem::file_time_type::duration>(age);
    std::filesystem::last_write_time(disk_->path_for(key), when);
  }

  // Makes the blob look `age` old, bytes and item.
  void backdate_blob(const Blob& blob, std::chrono::system_clock::duration age) {
    backdate_bytes(blob.key, age);
    table::UpdateRequest update;
    update.table = schema_->table_name();
    update.key = schema_->physical_key(schema_->keys().blob(blob.id));
    update.update.set(std::string(attr::kCreatedAt),
                      table::Value::string(
                          iso8601_utc_micros(std::chrono::system_clock::now() - age)));
    update.condition = table::cond::exists(schema_->partition_key().name);
    engine_->update(update);
  }

  SweepReport run(seconds grace) {
    return sweep(*engine_, *schema_, *store_, services_, grace);
  }

  static std::vector<std::string> keys_of(const SweepReport& report) {
    std::vector<std::string> keys;
    for (const SweptObject& object : report.deleted_objects) keys.push_back(object.key);
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  Definitions definitions_;
  ServiceMap services_;
  std::optional<Attachments> attachments_;
  const OwnerRef card_{"Card", "1"};
};

TEST_P(SweepTest, DeletesOldBytesNoBlobReferencesAndKeepsEverythingElse) {
  orphan("orphanold0001", hours(2));
  orphan("orphannew0001", seconds(0));
  const Blob attached = upload("attached");
  backdate_blob(attached, hours(2));
  attachments_->attach(card_, "files", attached);

  const SweepReport report = run(hours(1));
  EXPECT_EQ(keys_of(report), std::vector<std::string>{"orphanold0001"});
  EXPECT_EQ(report.deleted_objects.front().service_name, kServiceName);
  EXPECT_TRUE(report.purged_blob_ids.empty());
  EXPECT_FALSE(disk_->exists("orphanold0001"));
  EXPECT_TRUE(disk_->exists("orphannew0001"));  // within the grace period
  EXPECT_TRUE(disk_->exists(attached.key));
  EXPECT_TRUE(raw_blob_item(attached.id));

  // Nothing is left to do.
  EXPECT_TRUE(run(hours(1)).deleted_objects.empty());
}

TEST_P(SweepTest, PurgesOldBlobsThatWereNeverAttached) {
  const Blob abandoned = upload("abandoned direct upload");
  backdate_blob(abandoned, hours(2));
  const Blob fresh = upload("uploaded just now");
  const Blob detached = upload("attached once, then detached");
  backdate_blob(detached, hours(2));
  attachments_->attach(card_, "files", detached);
  attachments_->detach(card_, "files");

  const SweepReport report = run(hours(1));
  EXPECT_EQ(report.purged_blob_ids, std::vector<std::string>{abandoned.id});
  EXPECT_TRUE(report.deleted_objects.empty());  // its bytes go with the purge
  EXPECT_FALSE(raw_blob_item(abandoned.id));
  EXPECT_FALSE(disk_->exists(abandoned.key));
  EXPECT_TRUE(raw_blob_item(fresh.id));
  EXPECT_TRUE(disk_->exists(fresh.key));
  // Attached once: its owner decided to keep it (dependent = detach or a
  // purge job); the sweep does not second-guess that.
  EXPECT_TRUE(raw_blob_item(detached.id));
  EXPECT_TRUE(disk_->exists(detached.key));
}

TEST_P(SweepTest, FindsBytesLeftBehindByAPurgedBlob) {
  const Blob blob = upload("purged, but its bytes survived a crash");
  const std::string saved = disk_->path_for(blob.key).string() + ".saved";
  std::filesystem::copy_file(disk_->path_for(blob.key), saved);
  store_->purge(blob.id);
  std::filesystem::rename(saved, disk_->path_for(blob.key));
  backdate_bytes(blob.key, hours(2));

  const SweepReport report = run(hours(1));
  EXPECT_EQ(keys_of(report), std::vector<std::string>{blob.key});
  EXPECT_FALSE(disk_->exists(blob.key));
}

TEST_P(SweepTest, PagesThroughEveryBlobItem) {
  // More blobs than one small scan page would hold still protect their bytes.
  std::vector<Blob> blobs;
  for (int i = 0; i < 30; ++i) {
    blobs.push_back(upload("blob " + std::to_string(i)));
    backdate_blob(blobs.back(), hours(2));
    attachments_->attach(card_, "files", blobs.back());
  }
  orphan("orphanold0002", hours(2));
  const SweepReport report = run(hours(1));
  EXPECT_EQ(keys_of(report), std::vector<std::string>{"orphanold0002"});
  for (const Blob& blob : blobs) EXPECT_TRUE(disk_->exists(blob.key));
}

INSTANTIATE_TEST_SUITE_P(Engines, SweepTest, ::testing::ValuesIn(model_params()),
                         model_param_name);

}  // namespace
}  // namespace stowage::model
