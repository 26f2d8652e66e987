// Stress of the storage ledger through the model (DESIGN I4): 8 threads of
// random tracked attaches, detaches, replaces, purges, destroys and board
// transfers over a few accounts and boards, through an engine that
// throttles, fails, conflicts and loses answers (retried as production
// retries), while workers run the materialize jobs the changes enqueue and
// another thread materializes every ledger in a loop. Afterwards, with the
// jobs drained and a final materialization: for every account and board,
// exact usage = Σ byte_size of its owners' tracked attachments = the total
// (I4), reconcile finds no drift, and I1/I2/I5 hold — all read back from
// the whole table. Runs on sqlite and on DynamoDB (moto), Mode A and Mode B.
//
// Seeded: the seed is printed, and STOWAGE_SEED=<n> replays it (the thread
// interleaving still varies). STOWAGE_STRESS_SCALE=<k> runs k times the
// operations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/uuid.h"
#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "jobs/model_jobs.h"
#include "jobs/worker_pool.h"
#include "ledger/reconcile.h"
#include "ledger/totals.h"
#include "ledger/tracked_workload.h"
#include "model/attachments.h"
#include "model/blob_store.h"
#include "model/definitions.h"
#include "model/owner_contexts.h"
#include "schema/table_schema.h"
#include "service/disk_service.h"
#include "support/engines.h"
#include "support/invariants.h"
#include "support/workload.h"
#include "table/fault_injecting_engine.h"
#include "table/retrying_engine.h"

namespace stowage::ledger {
namespace {

using ::testing::IsEmpty;
using stowage::testing::scale_from_environment;
using stowage::testing::seed_from_environment;

// The model's objects on one engine stack, with the jobs that drain it.
struct Model {
  Model(table::Engine& engine, const schema::TableSchema& schema,
        const model::Definitions& definitions, const model::ServiceMap& services,
        jobs::JobQueueOptions queue_options)
      : blobs(engine, schema, {services, "local", std::string(40, 's')}),
        attachments(engine, schema, definitions, blobs),
        contexts(engine, schema),
        queue(engine, schema, std::move(queue_options)) {
    jobs::add_model_handlers(handlers, blobs);
    jobs::add_materialize_handler(handlers, engine, schema);
  }

  model::BlobStore blobs;
  model::Attachments attachments;
  model::OwnerContexts contexts;
  jobs::JobQueue queue;
  jobs::JobHandlers handlers;
};

using StressParam = std::tuple<std::string, table::KeyLayout>;

class ModelLedgerStressTest : public ::testing::TestWithParam<StressParam> {
 protected:
  void SetUp() override {
    seed_ = seed_from_environment();
    engine_ = stowage::testing::make_bare_engine(std::get<0>(GetParam()));
    schema::SchemaConfig config;
    config.table = stowage::testing::unique_table_name("ledger-stress");
    config.mode = std::get<1>(GetParam());
    config.manage_table = true;
    schema_.emplace(schema::TableSchema::open(*engine_, config));
    root_ = std::filesystem::temp_directory_path() / ("stowage-ledger-stress-" + uuid_v4());
    services_ = {{"local", std::make_shared<service::DiskService>(
                               service::DiskServiceOptions{root_})}};
    definitions_ = model::Definitions::parse(testing::kTrackedDefinitions);
  }

  void TearDown() override {
    if (schema_) engine_->delete_table(schema_->table_name());
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  std::uint64_t seed_ = 0;
  std::shared_ptr<table::Engine> engine_;
  std::optional<schema::TableSchema> schema_;
  std::filesystem::path root_;
  model::ServiceMap services_;
  model::Definitions definitions_;
};

TEST_P(ModelLedgerStressTest, EveryLedgerIsExactAfterConcurrentChangesTransfersAndFaults) {
  constexpr int kThreads = 8;
  const bool on_moto = std::get<0>(GetParam()) == "dynamodb";
  // moto copies the whole table for every action of a transaction, so its
  // time per change grows with the table: 30 operations a thread take under
  // a minute a layout there, 60 took three.
  const int operations_per_thread = (on_moto ? 30 : 120) * scale_from_environment();

  table::FaultOptions faults;
  faults.seed = seed_;
  faults.throttle = 0.02;
  faults.server_error = 0.02;
  faults.conflict = 0.03;
  faults.timeout_before = 0.02;
  // A transaction whose answer was lost after it applied is retried with
  // its ClientRequestToken, which DynamoDB answers without applying it
  // again. moto ignores the token and applies the retry, which then fails
  // on the row the first attempt wrote, so on moto answers are lost only
  // before the service.
  faults.timeout_after = on_moto ? 0 : 0.03;
  faults.reads_too = true;
  auto faulty = std::make_shared<table::FaultInjectingEngine>(engine_, faults);
  table::RetryingEngine retrying(
      faulty, aws::RetryPolicy({.max_attempts = 5,
                                .base_delay = std::chrono::milliseconds(1),
                                .max_delay = std::chrono::milliseconds(10)}));
  jobs::JobQueueOptions queue_options;
  queue_options.lease = std::chrono::seconds(2);
  queue_options.first_backoff = std::chrono::milliseconds(5);
  Model model(retrying, *schema_, definitions_, services_, queue_options);
  testing::TrackedWorkload workload(model.attachments, model.contexts, model.blobs);

  std::mutex mutex;
  std::map<std::string, int> outcomes;
  std::atomic<int> running{kThreads};
  std::atomic<std::size_t> materialized{0};
  {
    jobs::WorkerPool workers(model.queue, model.handlers,
                             {.threads = 2, .min_idle_sleep = std::chrono::milliseconds(1),
                              .max_idle_sleep = std::chrono::milliseconds(20)});
    workers.start();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937_64 random(seed_ * 1000 + t);
        std::map<std::string, int> mine;
        for (int i = 0; i < operations_per_thread; ++i) {
          const std::optional<ErrorCode> failure = workload.run_one(random);
          ++mine[failure ? std::string(to_string(*failure)) : "ok"];
        }
        --running;
        std::lock_guard lock(mutex);
        for (const auto& [code, count] : mine) outcomes[code] += count;
      });
    }
    // A materializer racing the workers' jobs and the writers.
    threads.emplace_back([&] {
      const Totals totals(retrying, *schema_);
      const std::vector<Ledger> ledgers = testing::workload_ledgers();
      for (std::size_t k = 0; running > 0; ++k) {
        try {
          materialized += totals.materialize(ledgers[k % ledgers.size()]).entries;
        } catch (const Error& error) {
          if (!testing::expected_failure(error.code())) ADD_FAILURE() << error.what();
        }
      }
    });
    for (std::thread& thread : threads) thread.join();
    workers.stop();
  }
  std::cout << "outcomes:";
  for (const auto& [code, count] : outcomes) std::cout << " " << code << "=" << count;
  std::cout << "\nmaterialized by the loop: " << materialized << "; faults injected: "
            << faulty->injected().total() << "\n";
  EXPECT_THAT(workload.unexpected(), IsEmpty());
  EXPECT_GT(outcomes["ok"], kThreads * operations_per_thread / 2);
  // Every kind of fault asked for was injected at least once.
  const table::FaultCounts injected = faulty->injected();
  EXPECT_GT(injected.throttle, 0u);
  EXPECT_GT(injected.server_error, 0u);
  EXPECT_GT(injected.conflict, 0u);
  EXPECT_GT(injected.timeout_before, 0u);
  if (!on_moto) {
    EXPECT_GT(injected.timeout_after, 0u);
  }

  // Settle without faults: the jobs (the clock an hour ahead, past every
  // lease and backoff), then a final materialization of every ledger.
  jobs::JobQueueOptions settling;
  settling.clock = [] { return std::chrono::system_clock::now() + std::chrono::hours(1); };
  Model clean(*engine_, *schema_, definitions_, services_, settling);
  {
    jobs::WorkerPool pool(clean.queue, clean.handlers,
                          {.threads = 2, .min_idle_sleep = std::chrono::milliseconds(1)});
    ASSERT_TRUE(pool.drain_until_idle(std::chrono::seconds(60)));
  }
  const Totals totals(*engine_, *schema_);
  for (const Ledger& ledger : testing::workload_ledgers()) totals.materialize(ledger);

  const stowage::testing::InvariantReport report =
      stowage::testing::check_invariants(*engine_, *schema_, services_);
  std::cout << "settled: " << report << "\n";
  EXPECT_THAT(report.violations, IsEmpty());
  EXPECT_EQ(report.ledgers, testing::workload_ledgers().size());
  EXPECT_GT(report.attachments, 0u);
  for (const std::string& leftover : report.leftovers) {
    EXPECT_FALSE(leftover.starts_with("I4")) << leftover;  // nothing pending
  }
  for (const Ledger& ledger : testing::workload_ledgers()) {
    const ReconcileReport reconciled = reconcile(*engine_, *schema_, ledger);
    EXPECT_TRUE(reconciled.settled) << ledger.describe();
    EXPECT_EQ(reconciled.drift(), 0) << ledger.describe();
    EXPECT_EQ(reconciled.total_drift(), 0) << ledger.describe();
    EXPECT_EQ(totals.bytes_used(ledger), reconciled.real_bytes) << ledger.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Engines, ModelLedgerStressTest,
    ::testing::Values(StressParam{"sqlite", table::KeyLayout::ModeA},
                      StressParam{"sqlite", table::KeyLayout::ModeB},
                      StressParam{"dynamodb", table::KeyLayout::ModeA},
                      StressParam{"dynamodb", table::KeyLayout::ModeB}),
    [](const ::testing::TestParamInfo<StressParam>& info) {
      return std::get<0>(info.param) +
             (std::get<1>(info.param) == table::KeyLayout::ModeA ? "_ModeA" : "_ModeB");
    });

}  // namespace
}  // namespace stowage::ledger
