#include "model/attachments.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "model/change_set.h"
#include "model/item_conversion.h"
#include "model/outbox.h"
#include "model_fixture.h"
#include "table/counting_engine.h"

namespace stowage::model {
namespace {

// "cover", "files" and "docs" are untracked so that the request budgets and
// the 100-action arithmetic below measure the attachment core alone; what a
// tracked change adds (the owner context read and the ledger actions) is
// measured in tests/ledger.
constexpr const char* kDefinitions = R"(
[[attachments]]
record_type = "Card"
name = "image"
cardinality = "one"
dependent = "purge"

[[attachments]]
record_type = "Card"
name = "cover"
cardinality = "one"
dependent = "purge_later"
track_storage = false

[[attachments]]
record_type = "Card"
name = "files"
dependent = "purge_later"
track_storage = false

[[attachments]]
record_type = "Card"
name = "docs"
dependent = "detach"
track_storage = false

[[attachments]]
record_type = "Card"
name = "prints"
dependent = "purge"

[[attachments]]
record_type = "Card"
name = "photos"
max_bytes = 8
content_types = ["image/*"]

[[attachments]]
record_type = "Card"
name = "notes"
track_storage = false
content_types = ["text/*"]
)";

// A service that forwards to another and counts removals per key, so a test
// can tell that a blob's bytes were deleted exactly once.
class CountingService final : public service::Service {
 public:
  explicit CountingService(std::shared_ptr<service::Service> inner) : inner_(std::move(inner)) {}

  service::UploadResult upload(std::string_view key, service::ByteSource& source,
                               const service::UploadOptions& options) override {
    return inner_->upload(key, source, options);
  }
  void download(std::string_view key, service::ByteSink& sink) override {
    inner_->download(key, sink);
  }
  std::string download_range(std::string_view key, std::uint64_t offset,
                             std::uint64_t length) override {
    return inner_->download_range(key, offset, length);
  }
  void remove(std::string_view key) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (inner_->exists(key)) ++removals_[std::string(key)];
    }
    inner_->remove(key);
  }
  void remove_prefixed(std::string_view prefix) override { inner_->remove_prefixed(prefix); }
  bool exists(std::string_view key) override { return inner_->exists(key); }
  std::vector<service::ObjectInfo> list_objects(std::string_view prefix) override {
    return inner_->list_objects(prefix);
  }
  std::string url(std::string_view key, std::chrono::seconds expires_in,
                  std::string_view filename, std::string_view content_type,
                  service::Disposition disposition) override {
    return inner_->url(key, expires_in, filename, content_type, disposition);
  }

  // How many times bytes under `key` were actually deleted.
  int removals(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    return removals_[key];
  }

 private:
  std::shared_ptr<service::Service> inner_;
  std::mutex mutex_;
  std::map<std::string, int> removals_;
};

class AttachmentsTest : public ModelTest {
 protected:
  void SetUp() override {
    ModelTest::SetUp();
    if (IsSkipped()) return;
    counting_ = std::make_shared<CountingService>(disk_);
    counting_engine_ = std::make_shared<table::CountingEngine>(engine_);
    store_.emplace(*counting_engine_, *schema_,
                   BlobStoreOptions{{{kServiceName, counting_}}, kServiceName, kSecret});
    attachments_.emplace(*counting_engine_, *schema_, definitions_, *store_);
  }

  Blob text_blob(const std::string& text) { return upload(text, "notes.txt"); }

  std::int64_t count_of(const std::string& blob_id) { return store_->find(blob_id).attachments_count; }
  bool blob_exists(const std::string& blob_id) { return raw_blob_item(blob_id).has_value(); }

  std::vector<Attachment> all_of(const std::string& name) {
    std::vector<Attachment> rows;
    std::optional<std::string> token;
    do {
      AttachmentPage page = attachments_->list(card_, name, token);
      rows.insert(rows.end(), page.attachments.begin(), page.attachments.end());
      token = page.next_page_token;
    } while (token);
    return rows;
  }

  // The jobs waiting in the default queue.
  std::vector<Job> jobs() {
    const std::string h =
        schema_->keys().compose({{"kind", "Jobs"}, {"queue", std::string(kDefaultQueue)}});
    std::vector<Job> found;
    table::QueryRequest request = schema_->listing_query(h, "");
    for (;;) {
      table::QueryResult page = engine_->query(request);
      for (const table::Item& item : page.items) found.push_back(job_from_item(item));
      if (!page.last_evaluated_key) return found;
      request.exclusive_start_key = page.last_evaluated_key;
    }
  }

  std::vector<std::string> purge_job_blob_ids() {
    std::vector<std::string> ids;
    for (const Job& job : jobs()) {
      if (job.type == kPurgeBlobJob) ids.push_back(job.args.at("blob_id").as_string());
    }
    return ids;
  }

  // What the purge_blob handler does: purge the job's blob, which refuses
  // while the blob is still attached.
  void run_purge_jobs() {
    for (const std::string& blob_id : purge_job_blob_ids()) {
      try {
        store_->purge(blob_id);
      } catch (const Error& error) {
        ASSERT_EQ(error.code(), ErrorCode::ForeignKeyViolation) << error.what();
      }
    }
  }

  table::CallCounts reset_counts() {
    const table::CallCounts before = counting_engine_->counts();
    counting_engine_->reset();
    return before;
  }

  Definitions definitions_ = Definitions::parse(kDefinitions);
  const OwnerRef card_{"Card", "42"};
  std::shared_ptr<CountingService> counting_;
  std::shared_ptr<table::CountingEngine> counting_engine_;
  std::optional<Attachments> attachments_;
};

TEST_P(AttachmentsTest, HasOneAttachStoresTheRowWithTheBlobFieldsAndCountsIt) {
  const Blob blob = text_blob("hello, card");
  const Attachment attachment = attachments_->attach(card_, "image", blob.id);
  EXPECT_EQ(attachment.blob_id, blob.id);
  EXPECT_EQ(attachment.owner, card_);
  EXPECT_EQ(attachment.name, "image");
  EXPECT_TRUE(attachment.tracked);

  const std::optional<Attachment> found = attachments_->find_one(card_, "image");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, attachment.id);
  EXPECT_EQ(found->blob_key, blob.key);
  EXPECT_EQ(found->filename, blob.filename);
  EXPECT_EQ(found->content_type, blob.content_type);
  EXPECT_EQ(found->byte_size, blob.byte_size);
  EXPECT_EQ(found->checksum, blob.checksum);
  EXPECT_EQ(found->service_name, kServiceName);
  EXPECT_EQ(found->created_at, attachment.created_at);

  const Blob counted = store_->find(blob.id);
  EXPECT_EQ(counted.attachments_count, 1);
  EXPECT_TRUE(counted.attached_once);

  // Download through the fields the row carries, without reading the blob.
  service::StringSink sink;
  store_->service(found->service_name).download(found->blob_key, sink);
  EXPECT_EQ(sink.data(), "hello, card");
}

TEST_P(AttachmentsTest, HasOneReplacePurgesTheOldBlobAtOnceForDependentPurge) {
  const Blob old_blob = text_blob("old");
  const Blob new_blob = text_blob("new");
  attachments_->attach(card_, "image", old_blob);
  const Attachment current = attachments_->attach(card_, "image", new_blob);

  EXPECT_EQ(all_of("image").size(), 1u);
  EXPECT_EQ(attachments_->find_one(card_, "image")->id, current.id);
  EXPECT_EQ(count_of(new_blob.id), 1);
  EXPECT_FALSE(blob_exists(old_blob.id));
  EXPECT_FALSE(disk_->exists(old_blob.key));
  EXPECT_TRUE(disk_->exists(new_blob.key));
}

TEST_P(AttachmentsTest, HasOneReplaceLeavesTheOldBlobToItsJobForPurgeLater) {
  const Blob old_blob = text_blob("old");
  const Blob new_blob = text_blob("new");
  attachments_->attach(card_, "cover", old_blob);
  attachments_->attach(card_, "cover", new_blob);

  EXPECT_EQ(all_of("cover").size(), 1u);
  EXPECT_EQ(count_of(old_blob.id), 0);  // detached, not yet purged
  EXPECT_TRUE(disk_->exists(old_blob.key));
  EXPECT_EQ(purge_job_blob_ids(), std::vector<std::string>{old_blob.id});

  run_purge_jobs();
  EXPECT_FALSE(blob_exists(old_blob.id));
  EXPECT_FALSE(disk_->exists(old_blob.key));
  EXPECT_EQ(count_of(new_blob.id), 1);
}

TEST_P(AttachmentsTest, ReattachingTheSameBlobToAHasOneKeepsItsCount) {
  const Blob blob = text_blob("same");
  attachments_->attach(card_, "image", blob);
  attachments_->attach(card_, "image", blob);
  EXPECT_EQ(all_of("image").size(), 1u);
  EXPECT_EQ(count_of(blob.id), 1);
  EXPECT_TRUE(disk_->exists(blob.key));
}

TEST_P(AttachmentsTest, DetachKeepsTheBlob) {
  const Blob blob = text_blob("kept");
  attachments_->attach(card_, "image", blob);
  attachments_->detach(card_, "image");
  EXPECT_FALSE(attachments_->find_one(card_, "image"));
  EXPECT_EQ(count_of(blob.id), 0);
  EXPECT_TRUE(disk_->exists(blob.key));
  EXPECT_TRUE(purge_job_blob_ids().empty());
}

TEST_P(AttachmentsTest, PurgeRemovesTheRowTheBlobItemAndTheBytes) {
  const Blob blob = text_blob("gone");
  attachments_->attach(card_, "image", blob);
  attachments_->purge(card_, "image");
  EXPECT_FALSE(attachments_->find_one(card_, "image"));
  EXPECT_FALSE(blob_exists(blob.id));
  EXPECT_FALSE(disk_->exists(blob.key));
  EXPECT_EQ(counting_->removals(blob.key), 1);
}

TEST_P(AttachmentsTest, HasManyKeepsAttachOrderAndPagesThroughIt) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    ids.push_back(attachments_->attach(card_, "files", text_blob("f" + std::to_string(i))).id);
  }
  const std::vector<Blob> more = {text_blob("m1"), text_blob("m2")};
  for (const Attachment& a : attachments_->attach_many(card_, "files", {more[0].id, more[1].id})) {
    ids.push_back(a.id);
  }

  std::vector<std::string> listed;
  std::vector<std::string> created;
  std::optional<std::string> token;
  int pages = 0;
  do {
    AttachmentPage page = attachments_->list(card_, "files", token, 2);
    EXPECT_LE(page.attachments.size(), 2u);
    for (const Attachment& a : page.attachments) {
      listed.push_back(a.id);
      created.push_back(a.created_at);
    }
    token = page.next_page_token;
    ++pages;
  } while (token);
  EXPECT_EQ(listed, ids);
  EXPECT_TRUE(std::is_sorted(created.begin(), created.end()));
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  EXPECT_GE(pages, 4);

  // The listing of all names holds these too; another name's rows stay apart.
  attachments_->attach(card_, "docs", text_blob("d"));
  EXPECT_EQ(attachments_->list(card_).attachments.size(), 8u);
  EXPECT_EQ(all_of("files").size(), 7u);
}

TEST_P(AttachmentsTest, APageTokenOfAnotherListingIsRejected) {
  attachments_->attach(card_, "files", text_blob("a"));
  attachments_->attach(card_, "files", text_blob("b"));
  const AttachmentPage page = attachments_->list(card_, "files", std::nullopt, 1);
  ASSERT_TRUE(page.next_page_token);
  try {
    attachments_->list(card_, "docs", page.next_page_token);
    FAIL() << "a token of the files listing was accepted for docs";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ValidationError);
  }
}

TEST_P(AttachmentsTest, HasManyClearDetachesEveryRowInOneTransaction) {
  const Blob a = text_blob("a");
  const Blob b = text_blob("b");
  attachments_->attach_many(card_, "docs", {a.id, b.id, a.id});
  EXPECT_EQ(count_of(a.id), 2);
  reset_counts();
  attachments_->detach(card_, "docs");
  const table::CallCounts counts = reset_counts();
  EXPECT_EQ(counts.transact_write, 1u);
  EXPECT_TRUE(all_of("docs").empty());
  EXPECT_EQ(count_of(a.id), 0);
  EXPECT_EQ(count_of(b.id), 0);
}

TEST_P(AttachmentsTest, ReplaceCoalescesABlobInBothSets) {
  const Blob a = text_blob("a");
  const Blob b = text_blob("b");
  const Blob c = text_blob("c");
  attachments_->attach_many(card_, "docs", {a.id, b.id});
  reset_counts();
  const std::vector<Attachment> added = attachments_->replace(card_, "docs", {b.id, c.id});
  const table::CallCounts counts = reset_counts();
  EXPECT_EQ(counts.transact_write, 1u);
  EXPECT_EQ(counts.query, 1u);

  std::vector<std::string> blob_ids;
  for (const Attachment& row : all_of("docs")) blob_ids.push_back(row.blob_id);
  EXPECT_EQ(blob_ids, (std::vector<std::string>{b.id, c.id}));
  EXPECT_EQ(added.size(), 2u);
  EXPECT_EQ(count_of(a.id), 0);
  EXPECT_EQ(count_of(b.id), 1);
  EXPECT_EQ(count_of(c.id), 1);

  // With dependent = purge, the blob that lost its last row is purged; the
  // one in both sets stays.
  attachments_->attach_many(card_, "prints", {a.id, b.id});
  attachments_->replace(card_, "prints", {b.id});
  EXPECT_FALSE(blob_exists(a.id));
  EXPECT_EQ(count_of(b.id), 2);
  EXPECT_TRUE(disk_->exists(b.key));
}

TEST_P(AttachmentsTest, DestroyOwnerFollowsEachDefinitionsDependentRule) {
  const Blob image = text_blob("image");
  const Blob file = text_blob("file");
  const Blob doc = text_blob("doc");
  attachments_->attach(card_, "image", image);
  attachments_->attach(card_, "files", file);
  attachments_->attach(card_, "docs", doc);
  const OwnerRef other{"Card", "43"};
  const Attachment others = attachments_->attach(other, "files", text_blob("other"));

  attachments_->destroy_owner(card_);

  EXPECT_TRUE(attachments_->list(card_).attachments.empty());
  EXPECT_FALSE(blob_exists(image.id));                  // purge: now
  EXPECT_EQ(count_of(file.id), 0);                      // purge_later: by its job
  EXPECT_EQ(count_of(doc.id), 0);                       // detach: kept
  EXPECT_EQ(attachments_->list(other).attachments.size(), 1u);

  run_purge_jobs();
  EXPECT_FALSE(blob_exists(file.id));
  EXPECT_FALSE(disk_->exists(file.key));
  EXPECT_TRUE(blob_exists(doc.id));
  EXPECT_EQ(count_of(others.blob_id), 1);
}

TEST_P(AttachmentsTest, ASharedBlobIsKeptUntilItsLastAttachmentIsPurgedThenPurgedOnce) {
  const Blob shared = text_blob("shared");
  const OwnerRef other{"Card", "43"};
  const Attachment first = attachments_->attach(card_, "files", shared);
  attachments_->attach(other, "files", shared);
  attachments_->attach(card_, "prints", shared);
  EXPECT_EQ(count_of(shared.id), 3);

  attachments_->purge(card_, "prints");  // inline purge refused: still attached
  attachments_->purge(card_, "files", first.id);
  run_purge_jobs();
  EXPECT_TRUE(blob_exists(shared.id));
  EXPECT_TRUE(disk_->exists(shared.key));
  EXPECT_EQ(count_of(shared.id), 1);

  attachments_->purge(other, "files");
  run_purge_jobs();
  EXPECT_FALSE(blob_exists(shared.id));
  EXPECT_FALSE(disk_->exists(shared.key));
  run_purge_jobs();  // the jobs run again (at-least-once): nothing more happens
  EXPECT_EQ(counting_->removals(shared.key), 1);
}

TEST_P(AttachmentsTest, FiftyDistinctBlobsClearInOneTransactionAndFiftyOneFailWithNothingWritten) {
  // Detaching N rows of N distinct blobs is N Deletes + N ADDs (detach
  // writes no jobs): 50 rows are exactly 100 actions, 51 are 102.
  std::vector<std::string> ids;
  for (int i = 0; i < 51; ++i) ids.push_back(text_blob("blob " + std::to_string(i)).id);
  const std::vector<std::string> fifty(ids.begin(), ids.begin() + 50);
  attachments_->attach_many(card_, "docs", fifty);  // 50 Puts + 50 ADDs
  attachments_->detach(card_, "docs");
  EXPECT_TRUE(all_of("docs").empty());
  for (const std::string& id : fifty) EXPECT_EQ(count_of(id), 0);

  try {
    attachments_->attach_many(card_, "docs", ids);
    FAIL() << "51 appends fit one transaction";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::TransactionTooLarge);
  }
  attachments_->attach_many(card_, "docs", fifty);
  attachments_->attach(card_, "docs", ids.back());
  ASSERT_EQ(all_of("docs").size(), 51u);

  reset_counts();
  try {
    attachments_->detach(card_, "docs");
    FAIL() << "51 detaches fit one transaction";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::TransactionTooLarge);
    EXPECT_NE(error.message().find("102"), std::string::npos) << error.message();
    EXPECT_NE(error.message().find("100"), std::string::npos) << error.message();
  }
  const table::CallCounts counts = reset_counts();
  EXPECT_EQ(counts.transact_write, 0u);
  EXPECT_EQ(all_of("docs").size(), 51u);
  for (const std::string& id : ids) EXPECT_EQ(count_of(id), 1);
}

TEST_P(AttachmentsTest, PurgeArithmeticAddsOneJobPerBlob) {
  // Purging also writes a purge_blob job per blob: 3N actions, so 33 fit.
  ChangeSet change(*schema_, *store_);
  Attachment row;
  row.owner = card_;
  row.name = "files";
  for (int i = 0; i < 33; ++i) {
    row.id = uuid_v7(std::chrono::system_clock::now());
    row.blob_id = "blob-" + std::to_string(i);
    change.remove_attachment(row, Dependent::PurgeLater);
  }
  EXPECT_EQ(change.action_count(), 99u);
  row.blob_id = "blob-33";
  change.remove_attachment(row, Dependent::Detach);
  EXPECT_EQ(change.action_count(), 101u);  // a detached row: no job
  // Two rows of one blob coalesce into one ADD and one job.
  ChangeSet shared(*schema_, *store_);
  row.blob_id = "one-blob";
  shared.remove_attachment(row, Dependent::PurgeLater);
  row.id = uuid_v7(std::chrono::system_clock::now());
  shared.remove_attachment(row, Dependent::PurgeLater);
  EXPECT_EQ(shared.action_count(), 4u);
}

TEST_P(AttachmentsTest, ADuplicatePurgeIsANoOpNeverASecondDecrement) {
  const Blob blob = text_blob("twice");
  const Attachment a = attachments_->attach(card_, "docs", blob);
  const Attachment b = attachments_->attach(card_, "docs", blob);
  EXPECT_EQ(count_of(blob.id), 2);

  attachments_->purge(card_, "docs", a.id);
  EXPECT_EQ(count_of(blob.id), 1);
  attachments_->purge(card_, "docs", a.id);  // already gone
  EXPECT_EQ(count_of(blob.id), 1);

  // A change built from a stale read (the row went meanwhile) writes nothing
  // and reports the row, so the caller retries without it.
  ChangeSet stale(*schema_, *store_);
  stale.remove_attachment(a, Dependent::Detach);
  stale.remove_attachment(b, Dependent::Detach);
  const CommitResult result = stale.commit(*engine_);
  EXPECT_FALSE(result.committed());
  EXPECT_EQ(result.gone_attachment_ids, std::vector<std::string>{a.id});
  EXPECT_EQ(count_of(blob.id), 1);
  EXPECT_EQ(all_of("docs").size(), 1u);
}

TEST_P(AttachmentsTest, ConcurrentClearsDecrementEachRowOnce) {
  const Blob blob = text_blob("raced");
  for (int i = 0; i < 4; ++i) attachments_->attach(card_, "docs", blob);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      try {
        attachments_->detach(card_, "docs");
      } catch (const Error&) {
        ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(all_of("docs").empty());
  EXPECT_EQ(count_of(blob.id), 0);
}

TEST_P(AttachmentsTest, FiftyConcurrentAppendsEndWithFiftyAttachments) {
  const Blob blob = text_blob("popular");
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 10; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        try {
          attachments_->attach(card_, "files", blob);
        } catch (const Error& error) {
          ADD_FAILURE() << error.what();
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(all_of("files").size(), 50u);
  EXPECT_EQ(count_of(blob.id), 50);
}

TEST_P(AttachmentsTest, RequestBudgets) {
  const Blob blob = text_blob("budget");
  reset_counts();
  attachments_->attach(card_, "files", blob);
  table::CallCounts counts = reset_counts();
  EXPECT_EQ(counts.transact_write, 1u);
  EXPECT_EQ(counts.total(), 1u);

  std::vector<std::string> many(49, blob.id);
  attachments_->attach_many(card_, "files", many);
  reset_counts();
  attachments_->attach(card_, "files", blob);
  EXPECT_EQ(reset_counts().total(), 1u);  // the same at 50 rows as at 1

  attachments_->attach(card_, "cover", blob);
  reset_counts();
  attachments_->attach(card_, "cover", blob);
  counts = reset_counts();
  EXPECT_EQ(counts.query, 1u);
  EXPECT_EQ(counts.transact_write, 1u);
  EXPECT_EQ(counts.total(), 2u);

  attachments_->attach(card_, "docs", blob.id);
  counts = reset_counts();
  EXPECT_EQ(counts.get, 1u);  // the blob, for its fields
  EXPECT_EQ(counts.total(), 2u);

  const AttachmentPage page = attachments_->list(card_, "files");
  EXPECT_EQ(page.attachments.size(), 51u);
  EXPECT_EQ(page.attachments.front().blob_key, blob.key);
  EXPECT_EQ(reset_counts().total(), 1u);
}

TEST_P(AttachmentsTest, AMissingOrPurgedBlobIsRecordNotFound) {
  try {
    attachments_->attach(card_, "files", "no-such-blob");
    FAIL() << "attached a blob that does not exist";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RecordNotFound);
  }
  const Blob blob = text_blob("purged");
  store_->purge(blob.id);
  try {
    attachments_->attach(card_, "files", blob);  // the caller's copy is stale
    FAIL() << "attached a purged blob";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RecordNotFound);
    EXPECT_NE(error.message().find(blob.id), std::string::npos) << error.message();
  }
  EXPECT_FALSE(blob_exists(blob.id));  // no zombie count item
  EXPECT_TRUE(all_of("files").empty());
}

TEST_P(AttachmentsTest, ASeparatorInsideARecordTypeIsRejectedBeforeAnyRequest) {
  const Blob blob = text_blob("x");
  reset_counts();
  const OwnerRef bad{"Card#Board", "1"};
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { attachments_->attach(bad, "files", blob.id); },
           [&] { attachments_->attach(bad, "files", blob); },
           [&] { attachments_->detach(bad, "files"); },
           [&] { attachments_->purge(bad, "files"); },
           [&] { attachments_->destroy_owner(bad); },
           [&] { attachments_->list(bad); },
           [&] { attachments_->attach(card_, "fi#les", blob); }}) {
    try {
      call();
      ADD_FAILURE() << "a key with the separator was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidKey) << error.what();
    }
  }
  EXPECT_EQ(reset_counts().total(), 0u);
}

TEST_P(AttachmentsTest, StrictDefinitionsRejectAnUnknownNameBeforeAnyRequest) {
  const Definitions strict =
      Definitions::parse(std::string("strict_definitions = true\n") + kDefinitions);
  Attachments attachments(*counting_engine_, *schema_, strict, *store_);
  const Blob blob = text_blob("x");
  reset_counts();
  try {
    attachments.attach(card_, "avatar", blob.id);
    FAIL() << "an undefined name was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ValidationError);
    EXPECT_NE(error.message().find("avatar"), std::string::npos) << error.message();
  }
  EXPECT_EQ(reset_counts().total(), 0u);
  attachments.attach(card_, "files", blob);  // a defined name works
  EXPECT_EQ(count_of(blob.id), 1);
}

TEST_P(AttachmentsTest, MaxBytesAndContentTypesAreValidated) {
  const Blob text = text_blob("plain text, longer than eight bytes");
  try {
    attachments_->attach(card_, "photos", text);
    FAIL() << "a too large text blob was attached to photos";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ValidationError);
    EXPECT_NE(error.message().find("max_bytes"), std::string::npos) << error.message();
  }
  const Blob small = text_blob("tiny");
  try {
    attachments_->attach(card_, "photos", small);
    FAIL() << "a text blob was attached to photos";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ValidationError);
    EXPECT_NE(error.message().find("image/*"), std::string::npos) << error.message();
  }
  EXPECT_TRUE(all_of("photos").empty());
  EXPECT_EQ(count_of(small.id), 0);

  const Attachment note = attachments_->attach(card_, "notes", text);
  EXPECT_FALSE(note.tracked);  // track_storage = false
}

TEST_P(AttachmentsTest, AHasOneTakesOneBlob) {
  const Blob a = text_blob("a");
  const Blob b = text_blob("b");
  EXPECT_THROW(attachments_->attach_many(card_, "image", {a.id, b.id}), Error);
  EXPECT_THROW(attachments_->replace(card_, "image", {a.id, b.id}), Error);
  attachments_->replace(card_, "image", {a.id});
  EXPECT_EQ(attachments_->find_one(card_, "image")->blob_id, a.id);
  attachments_->replace(card_, "image", {});
  EXPECT_FALSE(attachments_->find_one(card_, "image"));
  EXPECT_FALSE(blob_exists(a.id));  // image purges
}

INSTANTIATE_TEST_SUITE_P(Engines, AttachmentsTest, ::testing::ValuesIn(model_params()),
                         model_param_name);

}  // namespace
}  // namespace stowage::model
