// Request budgets of the attachment operations (docs/attachments.md),
// asserted exactly, per operation type, by counting what reaches the engine
// on the embedded default and on DynamoDB (moto), in both key layouts.
// The definitions are untracked: these are the attachment changes' own
// costs, without the storage ledger's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/clock.h"
#include "common/uuid.h"
#include "model/attachments.h"
#include "model/blob_store.h"
#include "model/definitions.h"
#include "model/item_conversion.h"
#include "schema/table_schema.h"
#include "service/disk_service.h"
#include "stowage/error.h"
#include "support/engines.h"
#include "support/invariants.h"
#include "table/counting_engine.h"
#include "table/retrying_engine.h"

namespace stowage::table {

// Counts read in a failure message, not as bytes.
void PrintTo(const CallCounts& counts, std::ostream* out) {
  *out << "{get " << counts.get << ", put " << counts.put << ", remove " << counts.remove
       << ", update " << counts.update << ", query " << counts.query << ", scan " << counts.scan
       << ", transact_write " << counts.transact_write << "}";
}

}  // namespace stowage::table

namespace stowage::model {
namespace {

using ::testing::IsEmpty;
using BudgetParam = std::tuple<std::string, table::KeyLayout>;

constexpr const char* kDefinitions = R"(
[[attachments]]
record_type = "Card"
name = "image"
cardinality = "one"
dependent = "detach"
track_storage = false

[[attachments]]
record_type = "Card"
name = "files"
dependent = "detach"
track_storage = false
)";

table::CallCounts transactions(std::uint64_t n) {
  table::CallCounts counts;
  counts.transact_write = n;
  return counts;
}

class RequestBudgetTest : public ::testing::TestWithParam<BudgetParam> {
 protected:
  void SetUp() override {
    try {
      counting_ = std::make_shared<table::CountingEngine>(
          testing::make_bare_engine(std::get<0>(GetParam())));
    } catch (const Error& error) {
      GTEST_SKIP() << "engine unavailable: " << error.what();
    }
    // Counted below the retries: the budget is what goes on the wire.
    engine_ = std::make_shared<table::RetryingEngine>(counting_);
    schema::SchemaConfig config;
    config.table = testing::unique_table_name("budget");
    config.mode = std::get<1>(GetParam());
    config.manage_table = true;
    schema_.emplace(schema::TableSchema::open(*engine_, config));
    root_ = std::filesystem::temp_directory_path() / ("stowage-budget-" + uuid_v4());
    services_ = {{"local", std::make_shared<service::DiskService>(
                               service::DiskServiceOptions{root_})}};
    definitions_ = Definitions::parse(kDefinitions);
    blobs_.emplace(*engine_, *schema_, BlobStoreOptions{services_, "local", std::string(40, 's')});
    attachments_.emplace(*engine_, *schema_, definitions_, *blobs_);
  }

  void TearDown() override {
    if (schema_) {
      const testing::InvariantReport report = testing::check_invariants(*engine_, *schema_, services_);
      EXPECT_THAT(report.violations, IsEmpty()) << report;
      engine_->delete_table(schema_->table_name());
    }
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  Blob upload(const std::string& filename, const std::string& bytes) {
    service::StringSource source(bytes);
    return blobs_->create_and_upload(source, BlobInput{filename, "", {}, ""});
  }

  // Gives `owner` `count` rows of `name`, all of one blob: the rows put one
  // by one, then the blob's count raised by as many in one transaction
  // (moto runs a large transaction in time that grows with the table, so
  // attach_many would take most of a minute here).
  void fill(const OwnerRef& owner, const std::string& name, const Blob& blob, std::size_t count) {
    const auto start = std::chrono::system_clock::now();
    for (std::size_t i = 0; i < count; ++i) {
      Attachment row;
      const auto time = start + std::chrono::microseconds(i);
      row.id = uuid_v7(time);
      row.owner = owner;
      row.name = name;
      row.blob_id = blob.id;
      row.created_at = iso8601_utc_micros(time);
      row.blob_key = blob.key;
      row.filename = blob.filename;
      row.content_type = blob.content_type;
      row.byte_size = blob.byte_size;
      row.checksum = blob.checksum;
      row.service_name = blob.service_name;
      engine_->put(table::PutRequest{schema_->table_name(), attachment_to_item(*schema_, row)});
    }
    engine_->transact_write(
        {{blobs_->refcount_action(blob.id, static_cast<std::int64_t>(count))}, ""});
  }

  // What `operation` sends to the engine.
  template <typename Operation>
  table::CallCounts cost(Operation&& operation) {
    counting_->reset();
    operation();
    return counting_->counts();
  }

  std::shared_ptr<table::CountingEngine> counting_;
  std::shared_ptr<table::Engine> engine_;
  std::optional<schema::TableSchema> schema_;
  std::filesystem::path root_;
  ServiceMap services_;
  Definitions definitions_;
  std::optional<BlobStore> blobs_;
  std::optional<Attachments> attachments_;
  const OwnerRef card_{"Card", "1"};
};

TEST_P(RequestBudgetTest, AttachingAnExistingBlobIsOneTransaction) {
  const Blob blob = upload("report.pdf", "%PDF-1.4 budget");

  EXPECT_EQ(cost([&] { attachments_->attach(card_, "files", blob); }), transactions(1));

  // By id the blob is read once, to validate it and copy its fields.
  table::CallCounts by_id = transactions(1);
  by_id.get = 1;
  EXPECT_EQ(cost([&] { attachments_->attach(card_, "files", blob.id); }), by_id);

  // A one also reads its current row, to replace it.
  table::CallCounts to_one = transactions(1);
  to_one.query = 1;
  EXPECT_EQ(cost([&] { attachments_->attach(card_, "image", blob); }), to_one);
  EXPECT_EQ(cost([&] { attachments_->attach(card_, "image", blob); }), to_one);
}

TEST_P(RequestBudgetTest, ListingIsOneQueryPerPageAndReadsNoBlob) {
  const std::vector<Blob> blobs = {upload("a.txt", "alpha"), upload("b.pdf", "%PDF-1.4 beta"),
                                   upload("c.csv", "x,y\n1,2\n")};
  // 249 rows, 3 pages of 100, attached by the model (which copies the fields).
  for (const Blob& blob : blobs) {
    attachments_->attach_many(card_, "files", std::vector<std::string>(50, blob.id));
    attachments_->attach_many(card_, "files", std::vector<std::string>(33, blob.id));
  }

  std::vector<Attachment> listed;
  const table::CallCounts counts = cost([&] {
    std::optional<std::string> token;
    do {
      AttachmentPage page = attachments_->list(card_, "files", token, 100);
      listed.insert(listed.end(), page.attachments.begin(), page.attachments.end());
      token = std::move(page.next_page_token);
    } while (token);
  });

  table::CallCounts three_pages;
  three_pages.query = 3;
  EXPECT_EQ(counts, three_pages);
  ASSERT_EQ(listed.size(), 249u);
  for (const Attachment& row : listed) {
    const auto blob = std::find_if(blobs.begin(), blobs.end(),
                                   [&](const Blob& b) { return b.id == row.blob_id; });
    ASSERT_NE(blob, blobs.end());
    EXPECT_EQ(row.filename, blob->filename);
    EXPECT_EQ(row.content_type, blob->content_type);
    EXPECT_EQ(row.byte_size, blob->byte_size);
    EXPECT_EQ(row.checksum, blob->checksum);
    EXPECT_EQ(row.blob_key, blob->key);
  }
}

TEST_P(RequestBudgetTest, AppendCostsTheSameAtOneAndAtAThousandRows) {
  const Blob blob = upload("notes.txt", "notes");
  const OwnerRef small{"Card", "small"};
  const OwnerRef large{"Card", "large"};
  fill(small, "files", blob, 1);
  fill(large, "files", blob, 1000);

  const table::CallCounts at_one = cost([&] { attachments_->attach(small, "files", blob); });
  const table::CallCounts at_thousand = cost([&] { attachments_->attach(large, "files", blob); });

  EXPECT_EQ(at_one, transactions(1));
  EXPECT_EQ(at_thousand, at_one);
  EXPECT_EQ(blobs_->find(blob.id).attachments_count, 1003);
}

// One blob appended 50 times at once: the appends contend on the owner's
// collection and on the blob's count. Concurrent transactions may conflict
// and be retried, so the budget here is: transactions only, at least one
// each.
TEST_P(RequestBudgetTest, FiftyConcurrentAppendsToOneOwnerEndWithFifty) {
  constexpr std::size_t kAppends = 50;
  const Blob blob = upload("shared.txt", "shared bytes");

  const table::CallCounts counts = cost([&] {
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < kAppends; ++i) {
      threads.emplace_back([&] { attachments_->attach(card_, "files", blob); });
    }
    for (std::thread& thread : threads) thread.join();
  });

  EXPECT_GE(counts.transact_write, kAppends);
  EXPECT_EQ(counts.total(), counts.transact_write);
  std::set<std::string> listed;
  std::optional<std::string> token;
  do {
    AttachmentPage page = attachments_->list(card_, "files", token, 20);
    for (const Attachment& row : page.attachments) {
      EXPECT_EQ(row.blob_id, blob.id);
      listed.insert(row.id);
    }
    token = std::move(page.next_page_token);
  } while (token);
  EXPECT_EQ(listed.size(), kAppends);
  EXPECT_EQ(blobs_->find(blob.id).attachments_count, static_cast<std::int64_t>(kAppends));
}

INSTANTIATE_TEST_SUITE_P(
    Engines, RequestBudgetTest,
    ::testing::Values(BudgetParam{"sqlite", table::KeyLayout::ModeA},
                      BudgetParam{"sqlite", table::KeyLayout::ModeB},
                      BudgetParam{"dynamodb", table::KeyLayout::ModeA},
                      BudgetParam{"dynamodb", table::KeyLayout::ModeB}),
    [](const ::testing::TestParamInfo<BudgetParam>& info) {
      return std::get<0>(info.param) +
             (std::get<1>(info.param) == table::KeyLayout::ModeA ? "_ModeA" : "_ModeB");
    });

}  // namespace
}  // namespace stowage::model
