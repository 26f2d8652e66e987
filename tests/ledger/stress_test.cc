// Stress (DESIGN I4): 8 threads doing random tracked attaches, detaches and
// board transfers while materializers run, on sqlite; afterwards, for every
// account and board: exact = Σ entries = real bytes = total after a final
// materialization, and reconcile finds no drift.

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "ledger/ledger_test_util.h"
#include "ledger/reconcile.h"
#include "ledger/totals.h"
#include "ledger/transfer.h"

namespace stowage::ledger {
namespace {

using testing::LedgerTable;
using testing::TestAttachment;

TEST(LedgerStress, EveryLedgerIsExactAfterConcurrentChangesTransfersAndMaterializations) {
  LedgerTable table(stowage::testing::make_engine("sqlite"));
  const std::vector<std::string> accounts = {"a1", "a2"};
  const std::vector<std::string> boards = {"b1", "b2", "b3"};
  std::vector<OwnerRecord> owners;
  for (int i = 0; i < 6; ++i) {
    owners.push_back({"Card", std::to_string(i)});
    assign_owner(table.engine(), table.schema(), owners.back(),
                 {accounts[i % 2], boards[i % 3]});
  }
  std::vector<Ledger> ledgers;
  for (const auto& a : accounts) ledgers.push_back(Ledger::account(a));
  for (const auto& b : boards) ledgers.push_back(Ledger::board(b));

  std::mutex mutex;
  std::vector<TestAttachment> live;  // guarded by mutex
  std::atomic<int> running{8};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(1000 + t);
      for (int i = 0; i < 80; ++i) {
        const OwnerRecord& owner = owners[random() % owners.size()];
        const int dice = random() % 10;
        if (dice < 5) {
          TestAttachment a = table.attach(owner, 1 + random() % 5000, random() % 5 != 0);
          std::lock_guard lock(mutex);
          live.push_back(a);
        } else if (dice < 8) {
          TestAttachment victim;
          {
            std::lock_guard lock(mutex);
            if (live.empty()) continue;
            const std::size_t k = random() % live.size();
            victim = live[k];
            live.erase(live.begin() + k);
          }
          table.detach(victim);
        } else {
          assign_owner(table.engine(), table.schema(), owner,
                       {accounts[random() % 2], boards[random() % 3]});
        }
      }
      --running;
    });
  }
  for (int m = 0; m < 2; ++m) {
    threads.emplace_back([&, m] {
      std::size_t k = m;
      while (running > 0) table.totals().materialize(ledgers[k++ % ledgers.size()]);
    });
  }
  for (auto& thread : threads) thread.join();

  // Real bytes from the test's own record and the final contexts.
  std::map<Ledger, std::int64_t> real;
  for (const OwnerRecord& owner : owners) {
    const OwnerContext context = read_owner_context(table.engine(), table.schema(), owner);
    std::int64_t bytes = 0;
    for (const TestAttachment& a : live) {
      if (a.owner == owner && a.tracked) bytes += a.byte_size;
    }
    EXPECT_EQ(context.tracked_bytes, bytes);
    for (const Ledger& ledger : context.ledgers()) real[ledger] += bytes;
  }
  const Totals totals = table.totals();
  for (const Ledger& ledger : ledgers) {
    SCOPED_TRACE(ledger.describe());
    EXPECT_EQ(totals.bytes_used_exact(ledger), real[ledger]);
    EXPECT_EQ(table.sum_of_entries(ledger), real[ledger]);
    totals.materialize(ledger);
    EXPECT_EQ(totals.bytes_used(ledger), real[ledger]);
    EXPECT_EQ(totals.bytes_used_exact(ledger), real[ledger]);
    const ReconcileReport report = reconcile(table.engine(), table.schema(), ledger);
    EXPECT_TRUE(report.settled);
    EXPECT_EQ(report.real_bytes, real[ledger]);
    EXPECT_EQ(report.drift(), 0);
    EXPECT_EQ(report.total_drift(), 0);
  }
}

}  // namespace
}  // namespace stowage::ledger
