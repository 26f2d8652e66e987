// Transfers: an owner's bytes move between boards (and accounts) in one
// transaction, and a tracked change racing the move is never counted on
// the ledger the owner left.

#include "ledger/transfer.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "ledger/ledger_test_util.h"
#include "ledger/totals.h"
#include "table/fault_injecting_engine.h"

namespace stowage::ledger {
namespace {

using testing::LedgerTable;
using testing::TestAttachment;

const Ledger kAccount = Ledger::account("acct");
const Ledger kOld = Ledger::board("old");
const Ledger kNew = Ledger::board("new");

class TransferTest : public ::testing::TestWithParam<std::string> {
 protected:
  TransferTest() : table_(stowage::testing::make_engine(GetParam())) {}
  OwnerContext assign(const OwnerRecord& owner, std::optional<std::string> account,
                      std::optional<std::string> board) {
    return assign_owner(table_.engine(), table_.schema(), owner,
                        {std::move(account), std::move(board)});
  }
  LedgerTable table_;
};

TEST_P(TransferTest, MovesEveryByteToTheNewBoardAndNetsZeroOnTheAccount) {
  const OwnerRecord card{"Card", "1"};
  assign(card, "acct", "old");
  table_.attach(card, 100);
  table_.attach({table_.make_attachment(card, 20), table_.make_attachment(card, 3)});
  table_.attach(card, 9999, /*tracked=*/false);
  const Totals totals = table_.totals();
  totals.materialize(kOld);

  const OwnerContext moved = assign(card, "acct", "new");
  EXPECT_EQ(moved.board_id, "new");
  EXPECT_EQ(moved.tracked_bytes, 123);
  EXPECT_EQ(totals.bytes_used_exact(kOld), 0);
  EXPECT_EQ(totals.bytes_used_exact(kNew), 123);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 123);
  // One transfer_out and one transfer_in; the account has no transfer entry.
  const LedgerRoot old_root = totals.read_root(kOld);
  ASSERT_EQ(old_root.pending.size(), 1u);
  EXPECT_EQ(old_root.pending[0].delta_bytes, -123);
  EXPECT_EQ(totals.read_root(kAccount).pending.size(), 2u);

  totals.materialize(kOld);
  totals.materialize(kNew);
  EXPECT_EQ(totals.bytes_used(kOld), 0);
  EXPECT_EQ(totals.bytes_used(kNew), 123);
  // Later changes count on the new board only.
  table_.attach(card, 7);
  EXPECT_EQ(totals.bytes_used_exact(kOld), 0);
  EXPECT_EQ(totals.bytes_used_exact(kNew), 130);
}

TEST_P(TransferTest, SettingTheSameContextWritesNothing) {
  const OwnerRecord card{"Card", "1"};
  assign(card, "acct", "old");
  table_.attach(card, 5);
  const OwnerContext before = read_owner_context(table_.engine(), table_.schema(), card);
  const OwnerContext after = assign(card, "acct", "old");
  EXPECT_EQ(after, before);
  EXPECT_EQ(table_.totals().read_root(kOld).pending.size(), 1u);
}

TEST_P(TransferTest, BytesOfAnOwnerWithoutContextAreChargedWhenItGetsOne) {
  const OwnerRecord card{"Card", "1"};
  table_.attach(card, 40);
  table_.attach(card, 2);
  EXPECT_EQ(read_owner_context(table_.engine(), table_.schema(), card).tracked_bytes, 42);
  assign(card, "acct", "old");
  const Totals totals = table_.totals();
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 42);
  EXPECT_EQ(totals.bytes_used_exact(kOld), 42);
  // Moving to another account is a transfer too.
  assign(card, "other", "old");
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 0);
  EXPECT_EQ(totals.bytes_used_exact(Ledger::account("other")), 42);
  EXPECT_EQ(totals.bytes_used_exact(kOld), 42);
}

TEST_P(TransferTest, RejectsABadIdBeforeAnyWrite) {
  const OwnerRecord card{"Card", "1"};
  try {
    assign(card, "acct", "a#b");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidKey);
  }
  EXPECT_FALSE(read_owner_context(table_.engine(), table_.schema(), card).stored);
}

INSTANTIATE_TEST_SUITE_P(Engines, TransferTest,
                         ::testing::ValuesIn(stowage::testing::engine_names()),
                         [](const auto& info) { return info.param; });

// Holds the commit of whichever thread is marked until released.
class CommitGate {
 public:
  explicit CommitGate(table::FaultInjectingEngine& engine) : engine_(engine) {
    engine_.set_before_write_hook([this](std::string_view) {
      std::unique_lock lock(mutex_);
      if (std::this_thread::get_id() != held_thread_ || released_) return;
      held_ = true;
      cv_.notify_all();
      cv_.wait(lock, [this] { return released_; });
    });
  }
  ~CommitGate() { engine_.set_before_write_hook({}); }
  void hold_this_thread() {
    std::lock_guard lock(mutex_);
    held_thread_ = std::this_thread::get_id();
  }
  void wait_until_held() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return held_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  table::FaultInjectingEngine& engine_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread::id held_thread_;
  bool held_ = false, released_ = false;
};

TEST(TransferRace, AnAttachReadBeforeATransferIsCountedOnTheNewBoard) {
  auto faulty = std::make_shared<table::FaultInjectingEngine>(
      stowage::testing::make_engine("sqlite"), table::FaultOptions{});
  LedgerTable table(faulty);
  const OwnerRecord card{"Card", "1"};
  assign_owner(table.engine(), table.schema(), card, {"acct", "old"});
  table.attach(card, 10);
  CommitGate gate(*faulty);
  std::thread attach([&] {
    gate.hold_this_thread();
    table.attach(card, 1000);  // read board "old", then held
  });
  gate.wait_until_held();
  assign_owner(table.engine(), table.schema(), card, {"acct", "new"});
  gate.release();
  attach.join();
  EXPECT_GE(table.context_retries(), 1u);
  const Totals totals = table.totals();
  EXPECT_EQ(totals.bytes_used_exact(kOld), 0);
  EXPECT_EQ(totals.bytes_used_exact(kNew), 1010);
  EXPECT_EQ(totals.bytes_used_exact(kAccount), 1010);
}

TEST(TransferRace, AnAttachCommittedDuringATransferIsMovedWithIt) {
  auto faulty = std::make_shared<table::FaultInjectingEngine>(
      stowage::testing::make_engine("sqlite"), table::FaultOptions{});
  LedgerTable table(faulty);
  const OwnerRecord card{"Card", "1"};
  assign_owner(table.engine(), table.schema(), card, {"acct", "old"});
  table.attach(card, 10);
  CommitGate gate(*faulty);
  std::thread transfer([&] {
    gate.hold_this_thread();
    assign_owner(table.engine(), table.schema(), card, {"acct", "new"});  // read 10 bytes
  });
  gate.wait_until_held();
  table.attach(card, 1000);  // commits on "old" first
  gate.release();
  transfer.join();
  const Totals totals = table.totals();
  EXPECT_EQ(totals.bytes_used_exact(kOld), 0);
  EXPECT_EQ(totals.bytes_used_exact(kNew), 1010);
  EXPECT_EQ(read_owner_context(table.engine(), table.schema(), card).tracked_bytes, 1010);
}

// Random interleavings: attaches and detaches on threads while another
// thread moves the owner back and forth; each board ends with exactly the
// bytes its owner holds when it is there.
TEST(TransferRace, RandomTransfersAndAttachesKeepBoardsExact) {
  for (const std::string engine : {"memory", "sqlite"}) {
    LedgerTable table(stowage::testing::make_engine(engine));
    const OwnerRecord card{"Card", "1"};
    assign_owner(table.engine(), table.schema(), card, {"acct", "old"});
    std::atomic<bool> moving{true};
    std::vector<std::thread> writers;
    std::atomic<std::int64_t> bytes{0};
    for (int t = 0; t < 3; ++t) {
      writers.emplace_back([&, t] {
        std::mt19937 random(t);
        std::vector<TestAttachment> mine;
        for (int i = 0; i < 60; ++i) {
          if (!mine.empty() && random() % 3 == 0) {
            table.detach(mine.back());
            bytes -= mine.back().byte_size;
            mine.pop_back();
          } else {
            mine.push_back(table.attach(card, 1 + random() % 100));
            bytes += mine.back().byte_size;
          }
        }
      });
    }
    std::thread mover([&] {
      for (int i = 0; moving; ++i) {
        assign_owner(table.engine(), table.schema(), card, {"acct", i % 2 ? "old" : "new"});
      }
    });
    for (auto& w : writers) w.join();
    moving = false;
    mover.join();
    const OwnerContext context = read_owner_context(table.engine(), table.schema(), card);
    ASSERT_EQ(context.tracked_bytes, bytes.load()) << engine;
    const Totals totals = table.totals();
    const Ledger here = Ledger::board(*context.board_id);
    const Ledger there = here == kOld ? kNew : kOld;
    EXPECT_EQ(totals.bytes_used_exact(here), bytes.load()) << engine;
    EXPECT_EQ(totals.bytes_used_exact(there), 0) << engine;
    EXPECT_EQ(totals.bytes_used_exact(kAccount), bytes.load()) << engine;
  }
}

}  // namespace
}  // namespace stowage::ledger
