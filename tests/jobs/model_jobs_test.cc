#include "jobs/model_jobs.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/digest.h"
#include "common/uuid.h"
#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "jobs/worker_pool.h"
#include "model/blob_store.h"
#include "model/outbox.h"
#include "schema/table_schema.h"
#include "service/disk_service.h"
#include "stowage/error.h"
#include "table/memory_engine.h"

namespace stowage::jobs {
namespace {

using table::Item;
using table::Value;

constexpr std::chrono::milliseconds kDrainTimeout{30'000};

schema::SchemaConfig schema_config() {
  schema::SchemaConfig config;
  config.manage_table = true;
  return config;
}

class ModelJobsTest : public ::testing::Test {
 protected:
  ModelJobsTest()
      : root_(std::filesystem::temp_directory_path() /
              ("stowage-model-jobs-" + std::to_string(::getpid()) + "-" + uuid_v4())),
        engine_(table::make_memory_engine()),
        schema_(schema::TableSchema::open(*engine_, schema_config())),
        disk_(std::make_shared<service::DiskService>(service::DiskServiceOptions{root_})),
        blobs_(*engine_, schema_, blob_store_options()),
        queue_(*engine_, schema_) {
    add_model_handlers(handlers_, blobs_);
  }

  ~ModelJobsTest() override {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  model::BlobStoreOptions blob_store_options() {
    model::BlobStoreOptions options;
    options.services = {{"local", disk_}};
    options.default_service_name = "local";
    options.signed_id_secret = std::string(32, 's');
    return options;
  }

  model::Blob upload(std::string_view bytes) {
    service::StringSource source(bytes);
    model::BlobInput input;
    input.filename = "notes.txt";
    return blobs_.create_and_upload(source, input);
  }

  void run(std::string_view type, Item args) {
    queue_.enqueue(model::make_job(type, std::move(args)));
    WorkerPool pool(queue_, handlers_);
    ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  }

  std::vector<Item> items_of(const std::string& partition) {
    return engine_->query(schema_.listing_query(partition, {})).items;
  }
  std::vector<Item> queued() { return items_of(queue_.queue_partition("default")); }
  std::vector<Item> dead() { return items_of(queue_.dead_letter_partition("default")); }

  std::filesystem::path root_;
  std::unique_ptr<table::Engine> engine_;
  schema::TableSchema schema_;
  std::shared_ptr<service::DiskService> disk_;
  model::BlobStore blobs_;
  JobQueue queue_;
  JobHandlers handlers_;
};

TEST_F(ModelJobsTest, DeleteBytesRemovesTheObject) {
  service::StringSource source("orphaned bytes");
  disk_->upload("orphan0key", source, {});
  ASSERT_TRUE(disk_->exists("orphan0key"));

  run(model::kDeleteBytesJob, {{"service_name", Value::string("local")},
                               {"key", Value::string("orphan0key")}});
  EXPECT_FALSE(disk_->exists("orphan0key"));
  EXPECT_TRUE(queued().empty());
}

TEST_F(ModelJobsTest, DeleteBytesOnAnUnknownServiceIsDiscarded) {
  run(model::kDeleteBytesJob, {{"service_name", Value::string("elsewhere")},
                               {"key", Value::string("orphan0key")}});
  EXPECT_TRUE(queued().empty());
  EXPECT_TRUE(dead().empty());
}

TEST_F(ModelJobsTest, JobWithoutItsArgumentsIsKeptForRetry) {
  run(model::kDeleteBytesJob, {{"service_name", Value::string("local")}});
  const std::vector<Item> items = queued();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_NE(items[0].at("as_last_error").as_string().find("\"key\""), std::string::npos);
}

TEST_F(ModelJobsTest, PurgeBlobPurgesAnUnattachedBlob) {
  const model::Blob blob = upload("hello");
  ASSERT_TRUE(disk_->exists(blob.key));

  run(model::kPurgeBlobJob, {{"blob_id", Value::string(blob.id)}});
  EXPECT_FALSE(disk_->exists(blob.key));
  try {
    blobs_.find(blob.id);
    ADD_FAILURE() << "the blob is still there";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RecordNotFound);
  }
  EXPECT_TRUE(queued().empty());
}

TEST_F(ModelJobsTest, PurgeBlobLeavesABlobAttachedAgain) {
  const model::Blob blob = upload("hello");
  table::TransactWriteRequest attach;
  attach.actions.push_back(blobs_.refcount_action(blob.id, +1));
  engine_->transact_write(attach);

  run(model::kPurgeBlobJob, {{"blob_id", Value::string(blob.id)}});
  EXPECT_EQ(blobs_.find(blob.id).attachments_count, 1);
  EXPECT_TRUE(disk_->exists(blob.key));
  EXPECT_TRUE(queued().empty()) << "the job completes; the next last detach purges";
  EXPECT_TRUE(dead().empty());
}

TEST_F(ModelJobsTest, PurgeOfAGoneBlobCompletes) {
  const model::Blob blob = upload("hello");
  blobs_.purge(blob.id);
  run(model::kPurgeBlobJob, {{"blob_id", Value::string(blob.id)}});
  EXPECT_TRUE(queued().empty());
  EXPECT_TRUE(dead().empty());
}

TEST_F(ModelJobsTest, AnalyzeBlobAnalyzesADirectUploadOnceItsBytesArrive) {
  ASSERT_NE(handlers_.find(model::kAnalyzeBlobJob), nullptr);
  const std::string bytes = "plain words";
  model::DirectUploadInput input;
  input.filename = "notes.txt";
  input.byte_size = bytes.size();
  input.checksum = base64_encode(md5(bytes));
  input.content_type = "application/pdf";
  const model::Blob blob = blobs_.create_before_direct_upload(input);

  run(model::kAnalyzeBlobJob, {{"blob_id", Value::string(blob.id)}});
  ASSERT_EQ(queued().size(), 1u) << "bytes still in flight: retried later";
  EXPECT_NE(queued()[0].at("as_last_error").as_string().find(blob.key), std::string::npos);
  EXPECT_FALSE(model::is_analyzed(blobs_.find(blob.id)));

  service::StringSource source(bytes);
  disk_->upload(blob.key, source, {});
  run(model::kAnalyzeBlobJob, {{"blob_id", Value::string(blob.id)}});
  const model::Blob found = blobs_.find(blob.id);
  EXPECT_TRUE(model::is_analyzed(found));
  EXPECT_EQ(found.content_type, "text/plain");
}

TEST_F(ModelJobsTest, AnalyzeBlobOfAPurgedBlobIsDiscarded) {
  const model::Blob blob = upload("hello");
  blobs_.purge(blob.id);
  run(model::kAnalyzeBlobJob, {{"blob_id", Value::string(blob.id)}});
  EXPECT_TRUE(queued().empty());
  EXPECT_TRUE(dead().empty());
}

}  // namespace
}  // namespace stowage::jobs
