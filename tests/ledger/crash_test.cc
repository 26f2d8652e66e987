// Crash test of the storage ledger (DESIGN I4 "after a crash at any point",
// §8): the crash workload (crash_workload.cc) changes tracked attachments,
// transfers owners and materializes on a SQLite file with synchronous =
// FULL; it is killed with SIGKILL at a random moment and restarted, again
// and again. Afterwards the jobs are drained, every ledger is materialized
// once more, and the whole table is read back: I4 (each account's and
// board's exact usage and total = Σ byte_size of its owners' tracked
// attachments), I1, I2 and I5 hold, and reconcile finds no drift.
//
// Seeded: the seed is printed, and STOWAGE_SEED=<n> replays the kill times
// and the workload's choices (not the timing). STOWAGE_STRESS_SCALE=<k>
// kills k times as often.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>

#include "common/uuid.h"
#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "jobs/model_jobs.h"
#include "jobs/worker_pool.h"
#include "ledger/reconcile.h"
#include "ledger/totals.h"
#include "ledger/tracked_workload.h"
#include "model/blob_store.h"
#include "schema/table_schema.h"
#include "service/disk_service.h"
#include "support/invariants.h"
#include "support/workload.h"
#include "table/sqlite_engine.h"

namespace stowage::ledger {
namespace {

using ::testing::IsEmpty;
using stowage::testing::scale_from_environment;
using stowage::testing::seed_from_environment;

constexpr int kKills = 24;

// A running crash workload, its stdout on a pipe.
struct Workload {
  pid_t pid = -1;
  int output = -1;
};

Workload start_workload(const std::filesystem::path& db, const std::filesystem::path& storage,
                        std::uint64_t seed) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
  const std::string seed_text = std::to_string(seed);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_ends[1], STDOUT_FILENO);
    ::close(pipe_ends[0]);
    ::close(pipe_ends[1]);
    ::execl(STOWAGE_CRASH_WORKLOAD, STOWAGE_CRASH_WORKLOAD, db.c_str(), storage.c_str(),
            seed_text.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(pipe_ends[1]);
  return {pid, pipe_ends[0]};
}

// Whether the workload printed "ready" within `timeout`.
bool wait_until_ready(const Workload& workload, std::chrono::milliseconds timeout) {
  std::string seen;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (seen.find("ready\n") == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd descriptor{workload.output, POLLIN, 0};
    if (::poll(&descriptor, 1, static_cast<int>(left.count())) <= 0) return false;
    char buffer[256];
    const ssize_t n = ::read(workload.output, buffer, sizeof buffer);
    if (n <= 0) return false;  // it exited
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

TEST(LedgerCrashTest, KilledWorkloadsLeaveEveryLedgerExact) {
  const std::uint64_t seed = seed_from_environment();
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("stowage-ledger-crash-" + uuid_v4());
  std::filesystem::create_directories(root / "storage");
  const std::filesystem::path db = root / "table.db";

  std::mt19937_64 random(seed);
  const int kills = kKills * scale_from_environment();
  for (int run = 0; run < kills; ++run) {
    Workload workload = start_workload(db, root / "storage", seed + run);
    const bool ready = wait_until_ready(workload, std::chrono::seconds(30));
    if (ready) {
      std::this_thread::sleep_for(std::chrono::milliseconds(
          std::uniform_int_distribution<int>(10, 400)(random)));
    }
    ::kill(workload.pid, SIGKILL);
    int status = 0;
    ::waitpid(workload.pid, &status, 0);
    ::close(workload.output);
    ASSERT_TRUE(ready) << "run " << run << ": the workload did not start";
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "run " << run << ": the workload ended by itself (status " << status
        << "); its error is above";
  }

  std::shared_ptr<table::Engine> engine =
      table::make_sqlite_engine({.path = db.string(), .synchronous = "FULL"});
  schema::SchemaConfig config;
  const schema::TableSchema schema = schema::TableSchema::open(*engine, config);
  const model::ServiceMap services = {
      {"local", std::make_shared<service::DiskService>(
                    service::DiskServiceOptions{root / "storage"})}};
  {
    // The clock an hour ahead: the killed runs' leases and backoffs are over.
    model::BlobStore blobs(*engine, schema, {services, "local", std::string(40, 's')});
    jobs::JobQueueOptions options;
    options.clock = [] { return std::chrono::system_clock::now() + std::chrono::hours(1); };
    jobs::JobQueue queue(*engine, schema, options);
    jobs::JobHandlers handlers;
    jobs::add_model_handlers(handlers, blobs);
    jobs::add_materialize_handler(handlers, *engine, schema);
    jobs::WorkerPool pool(queue, handlers,
                          {.threads = 2, .min_idle_sleep = std::chrono::milliseconds(1)});
    ASSERT_TRUE(pool.drain_until_idle(std::chrono::seconds(60)));
  }
  const Totals totals(*engine, schema);
  for (const Ledger& ledger : testing::workload_ledgers()) totals.materialize(ledger);

  const stowage::testing::InvariantReport report =
      stowage::testing::check_invariants(*engine, schema, services);
  std::cout << "after " << kills << " kills: " << report << "\n";
  EXPECT_THAT(report.violations, IsEmpty());
  EXPECT_GT(report.attachments, 0u);
  EXPECT_GT(report.ledgers, 0u);
  for (const std::string& leftover : report.leftovers) {
    EXPECT_FALSE(leftover.starts_with("I4")) << leftover;  // nothing pending
  }
  for (const Ledger& ledger : testing::workload_ledgers()) {
    const ReconcileReport reconciled = reconcile(*engine, schema, ledger);
    EXPECT_EQ(reconciled.drift(), 0) << ledger.describe();
    EXPECT_EQ(reconciled.total_drift(), 0) << ledger.describe();
    EXPECT_EQ(totals.bytes_used(ledger), reconciled.real_bytes) << ledger.describe();
  }
  engine.reset();
  std::error_code ignored;
  std::filesystem::remove_all(root, ignored);
}

}  // namespace
}  // namespace stowage::ledger
