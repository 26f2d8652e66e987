// BlobStore::analyze and the analyze_blob job an attach enqueues for a blob
// whose bytes came by direct upload.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/digest.h"
#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "jobs/model_jobs.h"
#include "jobs/worker_pool.h"
#include "model/attachments.h"
#include "model/item_conversion.h"
#include "model/outbox.h"
#include "model_fixture.h"

namespace stowage::model {
namespace {

using table::Item;
using table::Value;

constexpr const char* kDefinitions = R"(
[[attachments]]
record_type = "Card"
name = "image"
cardinality = "one"
dependent = "purge"
track_storage = false

[[attachments]]
record_type = "Card"
name = "docs"
dependent = "detach"
track_storage = false
)";

constexpr std::chrono::milliseconds kDrainTimeout{30'000};

class AnalyzeTest : public ModelTest {
 protected:
  void SetUp() override {
    ModelTest::SetUp();
    if (HasFatalFailure()) return;
    attachments_.emplace(*engine_, *schema_, definitions_, *store_);
    queue_.emplace(*engine_, *schema_);
    jobs::add_model_handlers(handlers_, *store_);
  }

  // A blob whose bytes the client is to upload; `declared` is its claim.
  Blob direct_upload(const std::string& bytes, std::string filename,
                     std::string declared) {
    return store_->create_before_direct_upload(
        DirectUploadInput{std::move(filename), bytes.size(), base64_encode(md5(bytes)),
                          std::move(declared), {{"purpose", Value::string("card")}}, ""});
  }

  // What the client's upload through the direct-upload URL leaves behind.
  void arrive(const Blob& blob, const std::string& bytes) {
    service::StringSource source(bytes);
    disk_->upload(blob.key, source, {});
  }

  std::vector<Job> queued_jobs(std::string_view type) {
    std::vector<Job> jobs;
    const auto items =
        engine_->query(schema_->listing_query(queue_->queue_partition(kDefaultQueue), {}))
            .items;
    for (const Item& item : items) {
      Job job = job_from_item(item);
      if (job.type == type) jobs.push_back(std::move(job));
    }
    return jobs;
  }

  std::vector<Item> dead_jobs() {
    return engine_
        ->query(schema_->listing_query(queue_->dead_letter_partition(kDefaultQueue), {}))
        .items;
  }

  void drain() {
    jobs::WorkerPool pool(*queue_, handlers_);
    ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  }

  const OwnerRef card_{"Card", "42"};
  Definitions definitions_ = Definitions::parse(kDefinitions);
  std::optional<Attachments> attachments_;
  std::optional<jobs::JobQueue> queue_;
  jobs::JobHandlers handlers_;
};

TEST_P(AnalyzeTest, DirectUploadIsNotAnalyzedUntilItsBytesAre) {
  const std::string png = encoded_image(30, 20, ".png");
  const Blob blob = direct_upload(png, "photo.png", "text/html");
  EXPECT_FALSE(is_analyzed(store_->find(blob.id)));
  arrive(blob, png);

  const Blob analyzed = store_->analyze(blob.id);
  EXPECT_TRUE(is_analyzed(analyzed));
  const Blob found = store_->find(blob.id);
  EXPECT_EQ(found.content_type, "image/png") << "the bytes decide, not the declaration";
  EXPECT_EQ(found.metadata, (Item{{"purpose", Value::string("card")},
                                  {"identified", Value::boolean(true)},
                                  {"analyzed", Value::boolean(true)},
                                  {"width", Value::number(30)},
                                  {"height", Value::number(20)}}));
  EXPECT_EQ(analyzed.metadata, found.metadata);
  EXPECT_EQ(found.byte_size, png.size());
}

TEST_P(AnalyzeTest, AnalysisMatchesWhatCreateAndUploadRecords) {
  const std::string jpeg = encoded_image(7, 5, ".jpg");
  const Blob uploaded = upload(jpeg, "photo.jpg");
  const Blob direct = direct_upload(jpeg, "photo.jpg", "application/octet-stream");
  arrive(direct, jpeg);
  store_->analyze(direct.id);
  const Blob found = store_->find(direct.id);
  EXPECT_EQ(found.content_type, uploaded.content_type);
  Item expected = uploaded.metadata;
  expected["purpose"] = Value::string("card");
  EXPECT_EQ(found.metadata, expected);
}

TEST_P(AnalyzeTest, AnAnalyzedBlobIsNotReadAgain) {
  const Blob blob = upload("plain words", "notes.txt");
  disk_->remove(blob.key);
  EXPECT_EQ(store_->analyze(blob.id).metadata, blob.metadata);
  EXPECT_EQ(store_->find(blob.id).content_type, "text/plain");
}

TEST_P(AnalyzeTest, BytesNotUploadedYetAreRetryableAndChangeNothing) {
  const Blob blob = direct_upload("late bytes", "notes.txt", "application/pdf");
  try {
    store_->analyze(blob.id);
    FAIL() << "analyzed bytes that are not there";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ServiceUnavailable) << error.what();
    EXPECT_NE(std::string(error.what()).find(blob.key), std::string::npos);
  }
  const Blob found = store_->find(blob.id);
  EXPECT_FALSE(is_analyzed(found));
  EXPECT_EQ(found.content_type, "application/pdf");
}

TEST_P(AnalyzeTest, APurgedBlobIsRecordNotFoundAndNotRecreated) {
  const Blob blob = direct_upload("gone", "notes.txt", "");
  store_->purge(blob.id);
  try {
    store_->analyze(blob.id);
    FAIL() << "analyzed a purged blob";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RecordNotFound);
  }
  EXPECT_FALSE(raw_blob_item(blob.id));
}

TEST_P(AnalyzeTest, AttachingADirectUploadEnqueuesItsAnalysis) {
  const Blob direct = direct_upload("some words", "notes.txt", "application/pdf");
  const Blob uploaded = upload("other words", "notes.txt");

  attachments_->attach(card_, "docs", uploaded);
  EXPECT_TRUE(queued_jobs(kAnalyzeBlobJob).empty()) << "analyzed on upload already";

  attachments_->attach(card_, "docs", direct.id);
  attachments_->attach(card_, "image", direct.id);
  const std::vector<Job> jobs = queued_jobs(kAnalyzeBlobJob);
  ASSERT_EQ(jobs.size(), 2u) << "one per attach, to a many and to a one";
  for (const Job& job : jobs) {
    EXPECT_EQ(job.args, (Item{{"blob_id", Value::string(direct.id)}}));
  }

  attachments_->attach_many(card_, "docs", {direct.id, direct.id, uploaded.id});
  EXPECT_EQ(queued_jobs(kAnalyzeBlobJob).size(), 3u) << "one per distinct blob";
}

TEST_P(AnalyzeTest, AnalyzeJobsCountAgainstTheActionBudget) {
  // Per blob: a row, a count and an analyze job; 33 * 3 = 99 fits in 100,
  // 34 * 3 = 102 does not (without the jobs 68 would).
  std::vector<std::string> ids;
  for (int i = 0; i < 34; ++i) ids.push_back(direct_upload("x", "x.txt", "").id);
  try {
    attachments_->attach_many(card_, "docs", ids);
    FAIL() << "a change of 102 actions committed";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::TransactionTooLarge) << error.what();
  }
  EXPECT_TRUE(queued_jobs(kAnalyzeBlobJob).empty());
  EXPECT_TRUE(attachments_->list(card_, "docs").attachments.empty());

  ids.pop_back();
  attachments_->attach_many(card_, "docs", ids);
  EXPECT_EQ(queued_jobs(kAnalyzeBlobJob).size(), 33u);
}

TEST_P(AnalyzeTest, TheJobAnalyzesTheAttachedBlobAndRowsKeepTheDeclaredType) {
  const std::string png = encoded_image(4, 3, ".png");
  const Blob blob = direct_upload(png, "photo.png", "application/octet-stream");
  arrive(blob, png);
  const Attachment row = attachments_->attach(card_, "image", blob.id);
  drain();

  EXPECT_TRUE(queued_jobs(kAnalyzeBlobJob).empty());
  EXPECT_TRUE(dead_jobs().empty());
  const Blob found = store_->find(blob.id);
  EXPECT_TRUE(is_analyzed(found));
  EXPECT_EQ(found.content_type, "image/png");
  EXPECT_EQ(found.metadata.at("width"), Value::number(4));
  EXPECT_EQ(found.attachments_count, 1);
  ASSERT_TRUE(attachments_->find_one(card_, "image"));
  EXPECT_EQ(attachments_->find_one(card_, "image")->content_type, "application/octet-stream")
      << "rows copy the type at attach time";
  EXPECT_EQ(row.content_type, "application/octet-stream");
}

TEST_P(AnalyzeTest, TheJobOfAPurgedBlobIsDiscarded) {
  const Blob blob = direct_upload("never analyzed", "notes.txt", "");
  arrive(blob, "never analyzed");
  attachments_->attach(card_, "docs", blob.id);
  attachments_->detach(card_, "docs");
  store_->purge(blob.id);
  ASSERT_EQ(queued_jobs(kAnalyzeBlobJob).size(), 1u);

  drain();
  EXPECT_TRUE(queued_jobs(kAnalyzeBlobJob).empty());
  EXPECT_TRUE(dead_jobs().empty()) << "discarded, not dead-lettered";
  EXPECT_FALSE(raw_blob_item(blob.id));
}

TEST_P(AnalyzeTest, TheJobWaitsForBytesStillInFlight) {
  const Blob blob = direct_upload("in flight", "notes.txt", "application/pdf");
  attachments_->attach(card_, "docs", blob.id);
  drain();
  std::vector<Job> jobs = queued_jobs(kAnalyzeBlobJob);
  ASSERT_EQ(jobs.size(), 1u) << "kept for a retry after its backoff";
  EXPECT_EQ(jobs[0].attempts, 1);
  EXPECT_FALSE(is_analyzed(store_->find(blob.id)));
}

INSTANTIATE_TEST_SUITE_P(Engines, AnalyzeTest, ::testing::ValuesIn(model_params()),
                         model_param_name);

}  // namespace
}  // namespace stowage::model
