// History (usage at T, series) from permanent entries, and quotas refused
// before any write.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "ledger/entry_listing.h"
#include "ledger/history.h"
#include "ledger/ledger_test_util.h"
#include "ledger/quota.h"
#include "ledger/totals.h"
#include "ledger/transfer.h"
#include "table/counting_engine.h"
#include "table/fault_injecting_engine.h"

namespace stowage::ledger {
namespace {

using std::chrono::microseconds;
using std::chrono::system_clock;
using testing::LedgerTable;

const Ledger kAccount = Ledger::account("acct");
const Ledger kBoard = Ledger::board("board");

class HistoryQuotaTest : public ::testing::TestWithParam<std::string> {
 protected:
  HistoryQuotaTest() : table_(stowage::testing::make_engine(GetParam())) {
    assign_owner(table_.engine(), table_.schema(), card_, {"acct", "board"});
  }
  // An attach, then the time just after its entry was created.
  system_clock::time_point attach(std::int64_t bytes) {
    table_.attach(card_, bytes);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const auto t = system_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return t;
  }
  LedgerTable table_;
  const OwnerRecord card_{"Card", "1"};
};

TEST_P(HistoryQuotaTest, UsageAtATimeAndASeriesFromPermanentEntries) {
  const auto t0 = system_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto t1 = attach(100);
  const auto t2 = attach(20);
  const auto t3 = attach(3);
  // Pending entries are not history yet.
  EXPECT_EQ(usage_at(table_.engine(), table_.schema(), kAccount, t3), 0);
  table_.totals().materialize(kAccount);
  EXPECT_EQ(usage_at(table_.engine(), table_.schema(), kAccount, t0), 0);
  EXPECT_EQ(usage_at(table_.engine(), table_.schema(), kAccount, t1), 100);
  EXPECT_EQ(usage_at(table_.engine(), table_.schema(), kAccount, t2), 120);
  EXPECT_EQ(usage_at(table_.engine(), table_.schema(), kAccount, t3), 123);
  EXPECT_EQ(usage_at(table_.engine(), table_.schema(), kBoard, t2), 0);  // not materialized

  const auto step = std::chrono::duration_cast<microseconds>(t2 - t1);
  const std::vector<UsagePoint> series =
      usage_series(table_.engine(), table_.schema(), kAccount, t1, t1 + 2 * step, step);
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0].bytes, 100);
  EXPECT_EQ(series[1].bytes, 120);
  EXPECT_EQ(series[0].time, t1);
  EXPECT_EQ(series[2].time, t1 + 2 * step);
  EXPECT_EQ(series[2].bytes,
            usage_at(table_.engine(), table_.schema(), kAccount, series[2].time));
  EXPECT_GE(series[2].bytes, 120);
  try {
    usage_series(table_.engine(), table_.schema(), kAccount, t0, t0 + std::chrono::hours(24 * 365),
                 microseconds(1));
    FAIL() << "a series of 3e13 points was built";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ValidationError);
  }
  EXPECT_THROW(usage_series(table_.engine(), table_.schema(), kAccount, t1, t0, step), Error);
  EXPECT_THROW(usage_series(table_.engine(), table_.schema(), kAccount, t0, t1, microseconds(0)),
               Error);
}

TEST_P(HistoryQuotaTest, AnAttachOverTheQuotaFailsBeforeAnyWrite) {
  const Quotas quotas(table_.engine(), table_.schema());
  quotas.set_limit(kBoard, 150);
  EXPECT_EQ(quotas.limit(kBoard), 150);
  EXPECT_EQ(quotas.limit(kAccount), std::nullopt);
  table_.attach(card_, 100);
  OwnerContext context = read_owner_context(table_.engine(), table_.schema(), card_);
  EXPECT_NO_THROW(quotas.check(context, 50));
  try {
    quotas.check(context, 51);
    FAIL() << "over the quota";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::QuotaExceeded);
    EXPECT_NE(error.message().find("board board"), std::string::npos) << error.message();
  }
  EXPECT_NO_THROW(quotas.check(context, -100));  // freeing is never refused
  quotas.set_limit(kBoard, std::nullopt);
  EXPECT_NO_THROW(quotas.check(context, 1'000'000));
  EXPECT_THROW(quotas.set_limit(kAccount, -1), Error);
  // The quota item shares the root partition and is not an entry.
  EXPECT_EQ(table_.totals().bytes_used_exact(kBoard), 100);
}

// Most ledgers have no limit: within the cache time a tracked change reads
// no quota item, a limit set through the same Quotas binds at once, and one
// set through another instance binds once the cache time has passed.
TEST_P(HistoryQuotaTest, TheLimitCacheSavesReadsAndBoundsStaleness) {
  table_.attach(card_, 100);
  const OwnerContext context = read_owner_context(table_.engine(), table_.schema(), card_);
  // Counts the requests of the cached instance only; the table stays the fixture's.
  table::CountingEngine counting(
      std::shared_ptr<table::Engine>(std::shared_ptr<void>(), &table_.engine()));
  auto now = std::chrono::steady_clock::time_point();
  QuotaOptions options;
  options.cache_time = std::chrono::seconds(1);
  options.clock = [&now] { return now; };
  const Quotas tracked(counting, table_.schema(), options);
  const Quotas elsewhere(table_.engine(), table_.schema());

  tracked.check(context, 10);
  EXPECT_EQ(counting.counts().get, 2u);  // "no limit" for the account and the board
  counting.reset();
  now += std::chrono::milliseconds(999);
  tracked.check(context, 10);
  EXPECT_EQ(counting.counts().total(), 0u);

  // Set through the same instance: binds the very next check.
  tracked.set_limit(kAccount, 150);
  EXPECT_THROW(tracked.check(context, 51), Error);
  EXPECT_NO_THROW(tracked.check(context, 50));

  // Set elsewhere: the cached "no limit" of the board holds until the cache
  // time has passed, then the limit binds.
  elsewhere.set_limit(kBoard, 120);
  EXPECT_NO_THROW(tracked.check(context, 30));
  now += std::chrono::milliseconds(1);
  try {
    tracked.check(context, 30);
    FAIL() << "the board's new limit was not read after the cache time";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::QuotaExceeded);
    EXPECT_NE(error.message().find("board board"), std::string::npos) << error.message();
  }
  // Removed elsewhere: the same bound.
  elsewhere.set_limit(kBoard, std::nullopt);
  EXPECT_THROW(tracked.check(context, 30), Error);
  now += std::chrono::seconds(1);
  EXPECT_NO_THROW(tracked.check(context, 30));

  // Removed through the same instance: at once.
  tracked.set_limit(kAccount, std::nullopt);
  EXPECT_NO_THROW(tracked.check(context, 1'000'000));
  EXPECT_THROW(Quotas(table_.engine(), table_.schema(), {std::chrono::milliseconds(-1)}), Error);
}

// list_entries reads the pending entries, then the permanent ones: an
// entry a materialization moves in between is listed once, as permanent.
TEST_P(HistoryQuotaTest, AnEntryMaterializedDuringAListingIsListedOnce) {
  auto faulty = std::make_shared<table::FaultInjectingEngine>(
      stowage::testing::make_engine(GetParam()), table::FaultOptions{});
  LedgerTable table(faulty);
  assign_owner(table.engine(), table.schema(), card_, {"acct", "board"});
  table.attach(card_, 5);
  table.totals().materialize(kAccount);
  table.attach(card_, 7);
  auto queries = std::make_shared<std::atomic<int>>(0);
  faulty->set_after_query_hook([&table, queries](const table::QueryRequest&) {
    if (++*queries == 1) table.totals().materialize(kAccount);
  });
  const std::vector<ListedEntry> listed =
      list_entries(table.engine(), table.schema(), kAccount, std::nullopt, std::nullopt);
  faulty->set_after_query_hook({});
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].entry.delta_bytes, 5);
  EXPECT_EQ(listed[1].entry.delta_bytes, 7);
  EXPECT_FALSE(listed[0].pending);
  EXPECT_FALSE(listed[1].pending);  // materialized by the hook
  EXPECT_TRUE(table.totals().read_root(kAccount).pending.empty());
}

INSTANTIATE_TEST_SUITE_P(Engines, HistoryQuotaTest,
                         ::testing::ValuesIn(stowage::testing::engine_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace stowage::ledger
