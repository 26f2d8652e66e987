// Reconcile: real bytes from attachment items against the ledger's entries
// and its exact total, with positive, negative and zero drift, repair, and
// a run while writers change the ledger.

#include "ledger/reconcile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <thread>

#include "ledger/ledger_test_util.h"
#include "ledger/totals.h"
#include "ledger/transfer.h"
#include "table/fault_injecting_engine.h"

namespace stowage::ledger {
namespace {

using testing::LedgerTable;
using testing::TestAttachment;

const Ledger kAccount = Ledger::account("acct");
const Ledger kBoard = Ledger::board("board");

class ReconcileTest : public ::testing::TestWithParam<std::string> {
 protected:
  ReconcileTest() : table_(stowage::testing::make_engine(GetParam())) {
    assign_owner(table_.engine(), table_.schema(), card_, {"acct", "board"});
    assign_owner(table_.engine(), table_.schema(), comment_, {"acct", "board"});
    table_.attach(card_, 100);
    table_.attach(comment_, 50);
    table_.attach(comment_, 1, /*tracked=*/false);
    table_.totals().materialize(kAccount);
  }
  ReconcileReport run(const Ledger& ledger, bool repair = false) {
    ReconcileOptions options;
    options.repair = repair;
    return reconcile(table_.engine(), table_.schema(), ledger, options);
  }

  LedgerTable table_;
  const OwnerRecord card_{"Card", "1"};
  const OwnerRecord comment_{"Comment", "2"};
};

TEST_P(ReconcileTest, ZeroDriftWhenEverythingWentThroughTheLedger) {
  for (const Ledger& ledger : {kAccount, kBoard}) {
    const ReconcileReport report = run(ledger, /*repair=*/true);
    EXPECT_TRUE(report.settled);
    EXPECT_EQ(report.real_bytes, 150);
    EXPECT_EQ(report.ledger_bytes, 150);
    EXPECT_EQ(report.exact_bytes, 150);
    EXPECT_EQ(report.drift(), 0);
    EXPECT_EQ(report.total_drift(), 0);
    EXPECT_EQ(report.owners, 2u);
    EXPECT_EQ(report.attachments, 2u);
    EXPECT_FALSE(report.repaired);
  }
}

TEST_P(ReconcileTest, PositiveDriftIsReportedAndRepaired) {
  // A tracked row the ledger never heard of.
  table_.put_untracked_by_ledger(table_.make_attachment(card_, 30));
  ReconcileReport report = run(kBoard);
  EXPECT_EQ(report.real_bytes, 180);
  EXPECT_EQ(report.exact_bytes, 150);
  EXPECT_EQ(report.drift(), 30);
  EXPECT_FALSE(report.repaired);
  EXPECT_EQ(table_.totals().bytes_used_exact(kBoard), 150);

  report = run(kBoard, /*repair=*/true);
  EXPECT_TRUE(report.repaired);
  EXPECT_EQ(table_.totals().bytes_used_exact(kBoard), 180);
  const LedgerRoot root = table_.totals().read_root(kBoard);
  ASSERT_EQ(root.pending.size(), 3u);  // two attaches and the reconcile entry
  // A second repair finds nothing left to do; the account is untouched.
  report = run(kBoard, /*repair=*/true);
  EXPECT_EQ(report.drift(), 0);
  EXPECT_FALSE(report.repaired);
  EXPECT_EQ(run(kAccount).drift(), 30);
}

TEST_P(ReconcileTest, NegativeDriftIsReportedAndRepaired) {
  const TestAttachment gone = table_.attach(card_, 70);
  table_.delete_row_only(gone);
  ReconcileReport report = run(kAccount, /*repair=*/true);
  EXPECT_EQ(report.real_bytes, 150);
  EXPECT_EQ(report.exact_bytes, 220);
  EXPECT_EQ(report.drift(), -70);
  EXPECT_TRUE(report.repaired);
  EXPECT_EQ(table_.totals().bytes_used_exact(kAccount), 150);
  table_.totals().materialize(kAccount);
  EXPECT_EQ(table_.totals().bytes_used(kAccount), 150);
  EXPECT_EQ(run(kAccount).drift(), 0);
}

TEST_P(ReconcileTest, TotalThatDisagreesWithItsEntriesIsReported) {
  // Corrupt the snapshot by hand: the entries still say 150.
  const LedgerKeys keys(table_.schema().keys());
  table::UpdateRequest update{table_.schema().table_name(),
                              table_.schema().physical_key(keys.total(kAccount))};
  update.update.add("as_bytes", table::Value::number(5));
  table_.engine().update(update);
  const ReconcileReport report = run(kAccount);
  EXPECT_EQ(report.ledger_bytes, 150);
  EXPECT_EQ(report.exact_bytes, 155);
  EXPECT_EQ(report.total_drift(), -5);
  EXPECT_EQ(report.drift(), -5);
}

// An attach that commits in the middle of a scan, after its owner was
// scanned: the scan sees the root partition move, scans again, and finds
// no drift (the attach is counted once, in both real and exact bytes).
TEST_P(ReconcileTest, AnAttachCommittedDuringTheScanIsCountedOnce) {
  int scans = 0;
  ReconcileOptions options;
  options.repair = true;
  options.on_owner = [&](std::size_t done, std::size_t) {
    if (done == 1 && scans++ == 0) {
      table_.attach(card_, 11);
      table_.attach(comment_, 13);
    }
  };
  const ReconcileReport report = reconcile(table_.engine(), table_.schema(), kAccount, options);
  EXPECT_EQ(scans, 2);
  EXPECT_TRUE(report.settled);
  EXPECT_EQ(report.real_bytes, 174);
  EXPECT_EQ(report.exact_bytes, 174);
  EXPECT_EQ(report.drift(), 0);
  EXPECT_FALSE(report.repaired);
  EXPECT_EQ(table_.totals().bytes_used_exact(kAccount), 174);
}

// Writers that change the ledger during every scan: the report is not
// settled and, though a repair was asked for, nothing is written.
TEST_P(ReconcileTest, AScanThatNeverSettlesRepairsNothing) {
  table_.put_untracked_by_ledger(table_.make_attachment(card_, 30));  // a real drift
  ReconcileOptions options;
  options.repair = true;
  options.max_attempts = 3;
  int attaches = 0;
  options.on_owner = [&](std::size_t done, std::size_t) {
    if (done == 1) {
      table_.attach(comment_, 1);
      ++attaches;
    }
  };
  const ReconcileReport report = reconcile(table_.engine(), table_.schema(), kAccount, options);
  EXPECT_EQ(attaches, 3);
  EXPECT_FALSE(report.settled);
  EXPECT_FALSE(report.repaired);
  // Only the attaches' entries are pending: no reconcile entry was written.
  const LedgerRoot root = table_.totals().read_root(kAccount);
  EXPECT_EQ(root.pending.size(), 3u);
  EXPECT_EQ(root.exact_bytes(), 153);
}

INSTANTIATE_TEST_SUITE_P(Engines, ReconcileTest,
                         ::testing::ValuesIn(stowage::testing::engine_names()),
                         [](const auto& info) { return info.param; });

// An owner that changes between the two reads of its context every time:
// the scan gives up on it after max_attempts reads instead of looping.
TEST(ReconcileBusyOwner, GivesUpAfterMaxAttemptsAndRepairsNothing) {
  auto faulty = std::make_shared<table::FaultInjectingEngine>(
      stowage::testing::make_engine("sqlite"), table::FaultOptions{});
  LedgerTable table(faulty);
  const OwnerRecord card{"Card", "1"};
  assign_owner(table.engine(), table.schema(), card, {"acct", "board"});
  table.attach(card, 100);
  table.put_untracked_by_ledger(table.make_attachment(card, 30));  // a real drift
  const std::string owner_partition = table.schema().keys().owner_partition("Card", "1");
  auto attaches = std::make_shared<std::atomic<int>>(0);
  faulty->set_after_query_hook([&, attaches](const table::QueryRequest& request) {
    // The scan lists the owner's attachments between two context reads.
    if (request.hash_value == table::Value::string(owner_partition) && *attaches < 100) {
      ++*attaches;
      table.attach(card, 1);
    }
  });
  const ReconcileReport report =
      reconcile(table.engine(), table.schema(), kAccount, {.repair = true, .max_attempts = 3});
  faulty->set_after_query_hook({});
  EXPECT_FALSE(report.settled);
  EXPECT_FALSE(report.repaired);
  EXPECT_EQ(*attaches, 9);  // 3 scans, each giving up after 3 reads of the owner
  EXPECT_EQ(table.totals().bytes_used_exact(kAccount), 109);  // no reconcile entry
}

TEST(ReconcileModeB, RefusesToRepairWhileTheIndexListsPendingEntries) {
  LedgerTable table(stowage::testing::make_engine("memory"), table::KeyLayout::ModeB);
  const OwnerRecord card{"Card", "1"};
  assign_owner(table.engine(), table.schema(), card, {"acct", "board"});
  table.attach(card, 100);
  table.put_untracked_by_ledger(table.make_attachment(card, 30));
  ReconcileReport report =
      reconcile(table.engine(), table.schema(), kAccount, {.repair = true});
  EXPECT_TRUE(report.settled);
  EXPECT_EQ(report.drift(), 30);
  EXPECT_FALSE(report.repaired);
  EXPECT_THAT(report.repair_refused, ::testing::HasSubstr("materialize"));
  EXPECT_EQ(table.totals().bytes_used_exact(kAccount), 100);

  table.totals().materialize(kAccount);
  report = reconcile(table.engine(), table.schema(), kAccount, {.repair = true});
  EXPECT_TRUE(report.repaired);
  EXPECT_TRUE(report.repair_refused.empty());
  EXPECT_EQ(table.totals().bytes_used_exact(kAccount), 130);
}

class ReconcileWhileWriting : public ::testing::TestWithParam<std::string> {};

TEST_P(ReconcileWhileWriting, NeverReportsDriftThatIsNotThere) {
  // moto copies the whole table for every action of a transaction: fewer
  // writes there, with longer pauses so that some scans fall between them.
  const bool moto = GetParam() == "dynamodb";
  const int writes = moto ? 40 : 150;
  const auto pause = std::chrono::milliseconds(moto ? 100 : 1);
  const std::size_t attempts = moto ? 5 : 2;
  LedgerTable table(stowage::testing::make_engine(GetParam()));
  const OwnerRecord a{"Card", "a"}, b{"Card", "b"};
  assign_owner(table.engine(), table.schema(), a, {"acct", "board"});
  assign_owner(table.engine(), table.schema(), b, {"acct", "other"});
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (int i = 0; i < writes; ++i) {
      TestAttachment x = table.attach(i % 2 ? a : b, 10 + i);
      if (i % 3 == 0) table.detach(x);
      if (i % 10 == 0) {
        assign_owner(table.engine(), table.schema(), b, {"acct", i % 20 ? "board" : "other"});
      }
      if (i % 7 == 0) table.totals().materialize(kAccount);
      std::this_thread::sleep_for(pause);
    }
    writing = false;
  });
  std::size_t settled = 0;
  std::size_t unsettled = 0;
  while (writing) {
    for (const Ledger& ledger : {kAccount, kBoard}) {
      const ReconcileReport report =
          reconcile(table.engine(), table.schema(), ledger, {.repair = true, .max_attempts = attempts});
      EXPECT_FALSE(report.repaired) << ledger.describe();  // there is no drift to repair
      if (!report.settled) {
        ++unsettled;
        continue;
      }
      ++settled;
      EXPECT_EQ(report.drift(), 0) << ledger.describe();
      EXPECT_EQ(report.total_drift(), 0) << ledger.describe();
    }
  }
  writer.join();
  std::cout << "scans while writing: " << settled << " settled, " << unsettled
            << " not settled\n";
  EXPECT_GT(settled, 0u);
  for (const Ledger& ledger : {kAccount, kBoard, Ledger::board("other")}) {
    const ReconcileReport report = reconcile(table.engine(), table.schema(), ledger);
    EXPECT_TRUE(report.settled);
    EXPECT_EQ(report.drift(), 0);
    EXPECT_EQ(report.total_drift(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, ReconcileWhileWriting,
                         ::testing::Values("sqlite", "dynamodb"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace stowage::ledger
