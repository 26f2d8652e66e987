// Totals: fast and exact reads, materialization (complete, incremental,
// idempotent, concurrent from threads and from two engines on one file) and
// the late-commit case that a cursor-based ledger gets wrong.

#include "ledger/totals.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "ledger/ledger_test_util.h"
#include "ledger/transfer.h"
#include "table/fault_injecting_engine.h"
#include "table/sqlite_engine.h"

namespace stowage::ledger {
namespace {

using testing::LedgerTable;
using testing::TestAttachment;

const Ledger kAccount = Ledger::account("acct-1");
const Ledger kBoard = Ledger::board("board-1");

class TotalsTest : public ::testing::TestWithParam<std::string> {
 protected:
  TotalsTest() : table_(stowage::testing::make_engine(GetParam())) {}

  OwnerRecord owner(const std::string& id, const Ledger& account = kAccount,
                    const Ledger& board = kBoard) {
    OwnerRecord o{"Card", id};
    assign_owner(table_.engine(), table_.schema(), o, {account.owner_id, board.owner_id});
    return o;
  }

  LedgerTable table_;
};

TEST_P(TotalsTest, FastReadIsTheSnapshotAndExactAddsPending) {
  const OwnerRecord card = owner("1");
  const Totals totals = table_.totals();
  EXPECT_EQ(totals.bytes_used(kAccount), 0);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 0);

  table_.attach(card, 100);
  table_.attach(card, 250);
  EXPECT_EQ(totals.bytes_used(kAccount), 0);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 350);
  EXPECT_EQ(totals.bytes_used_exact(kBoard), 350);

  const MaterializeResult result = totals.materialize(kAccount);
  EXPECT_EQ(result.entries, 2u);
  EXPECT_EQ(totals.bytes_used(kAccount), 350);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 350);
  // The board is its own ledger: still all pending.
  EXPECT_EQ(totals.bytes_used(kBoard), 0);
  EXPECT_EQ(totals.bytes_used_exact(kBoard), 350);
}

TEST_P(TotalsTest, MaterializeTakesEveryPendingEntryInBatches) {
  const OwnerRecord card = owner("1");
  std::int64_t expected = 0;
  const int entries = GetParam() == "dynamodb" ? 60 : 120;
  for (int i = 0; i < entries; ++i) {
    table_.attach(card, i + 1);
    expected += i + 1;
  }
  const Totals totals = table_.totals();
  const MaterializeResult result = totals.materialize(kAccount);
  EXPECT_EQ(result.entries, static_cast<std::size_t>(entries));
  EXPECT_EQ(result.transactions, (entries + kMaterializeBatch - 1) / kMaterializeBatch);
  EXPECT_EQ(totals.bytes_used(kAccount), expected);
  const LedgerRoot root = totals.read_root(kAccount);
  EXPECT_TRUE(root.pending.empty());
  EXPECT_EQ(root.materialized_count, entries);
  EXPECT_EQ(table_.sum_of_entries(kAccount), expected);
}

TEST_P(TotalsTest, MaterializeIsIncrementalAndIdempotent) {
  const OwnerRecord card = owner("1");
  const Totals totals = table_.totals();
  const TestAttachment a = table_.attach(card, 1000);
  EXPECT_EQ(totals.materialize(kAccount).entries, 1u);
  EXPECT_EQ(totals.materialize(kAccount).entries, 0u);
  EXPECT_EQ(totals.bytes_used(kAccount), 1000);

  table_.attach(card, 24);
  table_.detach(a);
  EXPECT_EQ(totals.bytes_used(kAccount), 1000);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 24);
  EXPECT_EQ(totals.materialize(kAccount).entries, 2u);
  EXPECT_EQ(totals.materialize(kAccount).entries, 0u);
  EXPECT_EQ(totals.bytes_used(kAccount), 24);
  EXPECT_EQ(totals.read_root(kAccount).total_version, 2);
}

TEST_P(TotalsTest, AccountAndBoardTotalsAreIndependent) {
  const OwnerRecord a = owner("a", kAccount, Ledger::board("b1"));
  const OwnerRecord b = owner("b", kAccount, Ledger::board("b2"));
  const OwnerRecord c = owner("c", Ledger::account("acct-2"), Ledger::board("b2"));
  table_.attach(a, 10);
  table_.attach(b, 20);
  table_.attach(c, 40);
  const Totals totals = table_.totals();
  totals.materialize(Ledger::board("b2"));
  EXPECT_EQ(totals.bytes_used(Ledger::board("b2")), 60);
  EXPECT_EQ(totals.bytes_used(kAccount), 0);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 30);
  EXPECT_EQ(totals.bytes_used_exact(Ledger::account("acct-2")), 40);
  EXPECT_EQ(totals.bytes_used_exact(Ledger::board("b1")), 10);
  totals.materialize(kAccount);
  EXPECT_EQ(totals.bytes_used(kAccount), 30);
  EXPECT_EQ(totals.bytes_used(Ledger::board("b1")), 0);
}

TEST_P(TotalsTest, UntrackedAttachmentsAreNotCounted) {
  const OwnerRecord card = owner("1");
  table_.attach(card, 500, /*tracked=*/false);
  table_.attach({table_.make_attachment(card, 7, false), table_.make_attachment(card, 3, true)});
  const Totals totals = table_.totals();
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 3);
  EXPECT_EQ(read_owner_context(table_.engine(), table_.schema(), card).tracked_bytes, 3);
}

TEST_P(TotalsTest, MultiAttachmentChangeWritesOneEntryPerLedger) {
  const OwnerRecord card = owner("1");
  std::vector<TestAttachment> rows;
  for (int i = 0; i < 97; ++i) rows.push_back(table_.make_attachment(card, 2));
  table_.attach(rows);  // 97 rows + context + 2 entries = 100 actions
  const LedgerRoot root = table_.totals().read_root(kAccount);
  ASSERT_EQ(root.pending.size(), 1u);
  EXPECT_EQ(root.pending[0].delta_bytes, 194);

  rows.push_back(table_.make_attachment(card, 2));
  std::vector<TestAttachment> too_many;
  for (int i = 0; i < 98; ++i) too_many.push_back(table_.make_attachment(card, 1));
  try {
    table_.attach(too_many);
    FAIL() << "101 actions committed";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::TransactionTooLarge) << error.what();
  }
  EXPECT_EQ(table_.totals().bytes_used_exact(kAccount), 194);
}

TEST_P(TotalsTest, MaterializeTakesMoreThanOneReadOfPendingEntries) {
  if (GetParam() == "dynamodb") GTEST_SKIP() << "moto copies the table per action: too slow";
  const OwnerRecord card = owner("1");
  const std::size_t entries = kMaterializeBatch * kMaterializeSequence * 2 + 7;
  for (std::size_t i = 0; i < entries; ++i) table_.attach(card, 3);
  const Totals totals = table_.totals();
  const MaterializeResult result = totals.materialize(kAccount);
  EXPECT_EQ(result.entries, entries);
  EXPECT_EQ(totals.bytes_used(kAccount), static_cast<std::int64_t>(3 * entries));
  EXPECT_TRUE(totals.read_root(kAccount).pending.empty());
  EXPECT_EQ(table_.sum_of_entries(kAccount), static_cast<std::int64_t>(3 * entries));
}

INSTANTIATE_TEST_SUITE_P(Engines, TotalsTest,
                         ::testing::ValuesIn(stowage::testing::engine_names()),
                         [](const auto& info) { return info.param; });

// An exact read is a query between two reads of the Total; a
// materialization that commits in the middle of it must leave each entry
// counted once, whether it lands between the query's pages or after them.
class ExactReadTest : public ::testing::TestWithParam<std::string> {
 protected:
  ExactReadTest()
      : faulty_(std::make_shared<table::FaultInjectingEngine>(
            stowage::testing::make_engine(GetParam()), table::FaultOptions{})),
        table_(faulty_) {
    assign_owner(table_.engine(), table_.schema(), card_, {"acct-1", "board-1"});
  }

  // Materializes the account once, right after the `nth` query answered.
  void materialize_after_query(int nth) {
    // The engine copies the hook for each call, so the count lives outside.
    auto seen = std::make_shared<std::atomic<int>>(0);
    faulty_->set_after_query_hook([this, nth, seen](const table::QueryRequest&) {
      if (++*seen == nth) table_.totals().materialize(kAccount);
    });
  }

  const OwnerRecord card_{"Card", "1"};
  std::shared_ptr<table::FaultInjectingEngine> faulty_;
  LedgerTable table_;
};

TEST_P(ExactReadTest, AMaterializationAfterTheQueryIsCountedOnce) {
  for (int bytes : {10, 20, 30}) table_.attach(card_, bytes);
  const Totals totals = table_.totals();
  materialize_after_query(1);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 60);
  faulty_->set_after_query_hook({});
  EXPECT_EQ(totals.bytes_used(kAccount), 60);  // the materialization did commit
  EXPECT_TRUE(totals.read_root(kAccount).pending.empty());
}

TEST_P(ExactReadTest, AMaterializationBetweenPagesIsCountedOnce) {
  if (GetParam() == "dynamodb") GTEST_SKIP() << "moto copies the table per action: too slow";
  // Entries of 49 attachments list 98 ids each: 400 of them fill more than
  // one 1 MB page.
  std::int64_t written = 0;
  for (int i = 0; i < 400; ++i) {
    std::vector<TestAttachment> rows;
    for (int j = 0; j < 49; ++j) rows.push_back(table_.make_attachment(card_, 1));
    table_.attach(rows);
    written += 49;
  }
  const Totals totals = table_.totals();
  std::size_t pages = 0;
  faulty_->set_after_query_hook([&](const table::QueryRequest&) { ++pages; });
  EXPECT_EQ(totals.bytes_used_exact(kAccount), written);
  ASSERT_GT(pages, 1u) << "the pending entries fit in one page; the case needs two";
  materialize_after_query(1);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), written);
  faulty_->set_after_query_hook({});
  EXPECT_EQ(totals.bytes_used(kAccount), written);
}

INSTANTIATE_TEST_SUITE_P(Engines, ExactReadTest,
                         ::testing::ValuesIn(stowage::testing::engine_names()),
                         [](const auto& info) { return info.param; });

class ConcurrentMaterializeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConcurrentMaterializeTest, ThreadsCountEveryEntryOnce) {
  // moto copies the whole table for every action of a transaction, so on it
  // each materialization costs more as entries accumulate: fewer entries
  // there make the same race in seconds rather than minutes.
  const int attaches = GetParam() == "dynamodb" ? 60 : 300;
  LedgerTable table(stowage::testing::make_engine(GetParam()));
  const OwnerRecord card{"Card", "1"};
  assign_owner(table.engine(), table.schema(), card, {"acct-1", "board-1"});
  std::atomic<bool> writing{true};
  std::atomic<std::int64_t> written{0};
  std::thread writer([&] {
    for (int i = 0; i < attaches; ++i) {
      table.attach(card, i % 17 + 1);
      written += i % 17 + 1;
    }
    writing = false;
  });
  std::vector<std::thread> materializers;
  for (int t = 0; t < 4; ++t) {
    materializers.emplace_back([&] {
      const Totals totals = table.totals();
      while (writing) totals.materialize(kAccount);
    });
  }
  writer.join();
  for (auto& m : materializers) m.join();
  const Totals totals = table.totals();
  totals.materialize(kAccount);
  EXPECT_EQ(totals.bytes_used(kAccount), written.load());
  EXPECT_EQ(totals.bytes_used_exact(kAccount), written.load());
  EXPECT_EQ(table.sum_of_entries(kAccount), written.load());
  EXPECT_EQ(totals.read_root(kAccount).materialized_count, attaches);
}

INSTANTIATE_TEST_SUITE_P(Engines, ConcurrentMaterializeTest,
                         ::testing::ValuesIn(stowage::testing::engine_names()),
                         [](const auto& info) { return info.param; });

TEST(TwoEnginesOneFile, MaterializersOfTwoEnginesCountEveryEntryOnce) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("stowage-ledger-" + uuid_v4() + ".db")).string();
  {
    table::SqliteOptions options;
    options.path = path;
    std::shared_ptr<table::Engine> first = table::make_sqlite_engine(options);
    std::shared_ptr<table::Engine> second = table::make_sqlite_engine(options);
    LedgerTable a(first);
    LedgerTable b(second, a);
    const OwnerRecord card{"Card", "1"};
    assign_owner(a.engine(), a.schema(), card, {"acct-1", "board-1"});
    for (int i = 0; i < 200; ++i) (i % 2 ? a : b).attach(card, 3);
    std::vector<std::thread> threads;
    std::atomic<std::size_t> moved{0};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        moved += (t % 2 ? a : b).totals().materialize(kAccount).entries;
      });
    }
    for (auto& t : threads) t.join();
    moved += a.totals().materialize(kAccount).entries;
    EXPECT_EQ(moved.load(), 200u);
    EXPECT_EQ(b.totals().bytes_used(kAccount), 600);
    EXPECT_EQ(a.sum_of_entries(kAccount), 600);
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// An entry whose transaction commits after a materialization that started
// later than the entry was created: a cursor of "largest id seen" would
// skip it for ever; here the next materialization counts it, once.
TEST(LateCommit, EntryCommittedAfterALaterMaterializationIsCountedOnce) {
  auto inner = stowage::testing::make_engine("sqlite");
  auto faulty = std::make_shared<table::FaultInjectingEngine>(inner, table::FaultOptions{});
  LedgerTable table(faulty);
  const OwnerRecord card{"Card", "1"};
  assign_owner(table.engine(), table.schema(), card, {"acct-1", "board-1"});

  std::mutex mutex;
  std::condition_variable cv;
  bool held = false, release = false;
  std::thread::id late_thread;
  faulty->set_before_write_hook([&](std::string_view) {
    std::unique_lock lock(mutex);
    if (std::this_thread::get_id() != late_thread) return;
    held = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
  });

  std::thread late([&] {
    {
      std::lock_guard lock(mutex);
      late_thread = std::this_thread::get_id();
    }
    table.attach(card, 1'000'000);  // entry id and time taken now; commit held
  });
  {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return held; });
  }
  // Entries created after the held one, committed before the materialization.
  table.attach(card, 5);
  table.attach(card, 7);
  const Totals totals = table.totals();
  const MaterializeResult first = totals.materialize(kAccount);
  EXPECT_EQ(first.entries, 2u);
  EXPECT_EQ(totals.bytes_used(kAccount), 12);

  {
    std::lock_guard lock(mutex);
    release = true;
  }
  cv.notify_all();
  late.join();
  faulty->set_before_write_hook({});

  EXPECT_EQ(totals.bytes_used(kAccount), 12);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 1'000'012);
  // The held entry's id is older than those already materialized.
  const LedgerRoot root = totals.read_root(kAccount);
  ASSERT_EQ(root.pending.size(), 1u);
  const LedgerKeys keys(table.schema().keys());
  const table::QueryResult permanent = table.engine().query(
      table.schema().listing_query(keys.entries_partition(kAccount), ""));
  ASSERT_EQ(permanent.items.size(), 2u);
  for (const table::Item& item : permanent.items) {
    EXPECT_LT(root.pending[0].entry_id, item.at("as_id").as_string());
  }
  EXPECT_EQ(totals.materialize(kAccount).entries, 1u);
  EXPECT_EQ(totals.materialize(kAccount).entries, 0u);
  EXPECT_EQ(totals.bytes_used(kAccount), 1'000'012);
  EXPECT_EQ(table.sum_of_entries(kAccount), 1'000'012);
}

TEST(ModeB, MaterializeAndExactReadThroughTheIndex) {
  LedgerTable table(stowage::testing::make_engine("memory"), table::KeyLayout::ModeB);
  const OwnerRecord card{"Card", "1"};
  assign_owner(table.engine(), table.schema(), card, {"acct-1", "board-1"});
  for (int i = 0; i < 60; ++i) table.attach(card, 10);
  const Totals totals = table.totals();
  EXPECT_EQ(totals.bytes_used_exact(kBoard), 600);
  EXPECT_EQ(totals.materialize(kBoard).entries, 60u);
  EXPECT_EQ(totals.bytes_used(kBoard), 600);
  EXPECT_EQ(totals.bytes_used_exact(kBoard), 600);
  EXPECT_EQ(table.sum_of_entries(kBoard), 600);
}

}  // namespace
}  // namespace stowage::ledger
