#include "jobs/worker_pool.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/uuid.h"
#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "model/outbox.h"
#include "schema/table_schema.h"
#include "stowage/error.h"
#include "support/engines.h"
#include "table/sqlite_engine.h"

namespace stowage::jobs {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;
using table::Item;
using table::Value;

constexpr milliseconds kDrainTimeout{60'000};

// How often each job id was run. Thread-safe.
class RunLog {
 public:
  void record(const model::Job& job) {
    std::lock_guard lock(mutex_);
    ++runs_[job.id];
  }
  std::map<std::string, int> runs() const {
    std::lock_guard lock(mutex_);
    return runs_;
  }
  int runs_of(const std::string& id) const {
    std::lock_guard lock(mutex_);
    const auto it = runs_.find(id);
    return it == runs_.end() ? 0 : it->second;
  }
  std::size_t distinct() const {
    std::lock_guard lock(mutex_);
    return runs_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> runs_;
};

schema::SchemaConfig schema_config(std::string table) {
  schema::SchemaConfig config;
  config.table = std::move(table);
  config.manage_table = true;
  return config;
}

WorkerPoolOptions fast_pool(std::size_t threads) {
  WorkerPoolOptions options;
  options.threads = threads;
  options.min_idle_sleep = milliseconds(1);
  options.max_idle_sleep = milliseconds(20);
  return options;
}

// Waits up to a minute for `done`.
template <typename Predicate>
bool eventually(Predicate done) {
  const auto deadline = std::chrono::steady_clock::now() + seconds(60);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

class WorkerPoolTest : public ::testing::TestWithParam<std::string> {
 protected:
  WorkerPoolTest()
      : micros_(std::chrono::duration_cast<microseconds>(
                    (std::chrono::system_clock::now() + std::chrono::hours(1))
                        .time_since_epoch())
                    .count()),
        engine_(testing::make_engine(GetParam())),
        schema_(schema::TableSchema::open(*engine_,
                                          schema_config(testing::unique_table_name("pool")))),
        queue_(*engine_, schema_, queue_options()) {
    handlers_.add("record", [this](const model::Job& job) { log_.record(job); });
  }

  JobQueueOptions queue_options() {
    JobQueueOptions options;
    options.first_backoff = seconds(1);
    options.max_backoff = seconds(4);
    options.max_attempts = 3;
    options.clock = [this] {
      return std::chrono::system_clock::time_point(microseconds(micros_.load()));
    };
    return options;
  }

  model::Job enqueue(std::string type, Item args = {}) {
    model::Job job = model::make_job(type, std::move(args));
    queue_.enqueue(job);
    return job;
  }

  std::vector<Item> items_of(const std::string& partition) {
    return engine_->query(schema_.listing_query(partition, {})).items;
  }
  std::vector<Item> queued() { return items_of(queue_.queue_partition("default")); }
  std::vector<Item> dead() { return items_of(queue_.dead_letter_partition("default")); }

  std::atomic<std::int64_t> micros_;
  std::shared_ptr<table::Engine> engine_;
  schema::TableSchema schema_;
  JobQueue queue_;
  JobHandlers handlers_;
  RunLog log_;
};

TEST_P(WorkerPoolTest, DrainRunsEveryDueJobOnce) {
  std::vector<std::string> ids;
  for (int i = 0; i < 40; ++i) ids.push_back(enqueue("record").id);
  WorkerPool pool(queue_, handlers_, fast_pool(4));
  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  EXPECT_EQ(log_.distinct(), ids.size());
  for (const std::string& id : ids) EXPECT_EQ(log_.runs_of(id), 1) << id;
  EXPECT_TRUE(queued().empty());
}

TEST_P(WorkerPoolTest, TargetGoneIsDiscardedNotRetried) {
  std::atomic<int> calls{0};
  handlers_.add("gone", [&](const model::Job&) {
    ++calls;
    throw Error::not_found("blob 42 not found");
  });
  enqueue("gone");
  WorkerPool pool(queue_, handlers_, fast_pool(2));
  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(queued().empty());
  EXPECT_TRUE(dead().empty());
}

TEST_P(WorkerPoolTest, FailingJobBacksOffThenIsDeadLettered) {
  std::atomic<int> calls{0};
  handlers_.add("flaky", [&](const model::Job&) {
    ++calls;
    throw Error::io("disk on fire");
  });
  const model::Job job = enqueue("flaky");
  WorkerPool pool(queue_, handlers_, fast_pool(2));

  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  EXPECT_EQ(calls, 1) << "run again before its backoff";

  micros_ += 1'000'000;  // backoff(1)
  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  EXPECT_EQ(calls, 2);
  micros_ += 1'999'999;  // backoff(2) less a microsecond
  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  EXPECT_EQ(calls, 2);
  micros_ += 1;
  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  EXPECT_EQ(calls, 3);

  EXPECT_TRUE(queued().empty());
  const std::vector<Item> letters = dead();
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_EQ(model::job_from_item(letters[0]).id, job.id);
  EXPECT_NE(letters[0].at("as_last_error").as_string().find("disk on fire"),
            std::string::npos);
}

TEST_P(WorkerPoolTest, JobOfUnknownTypeIsRetriedNotDropped) {
  enqueue("from_a_newer_version");
  WorkerPool pool(queue_, handlers_, fast_pool(1));
  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  const std::vector<Item> items = queued();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(model::job_from_item(items[0]).attempts, 1);
  EXPECT_NE(items[0].at("as_last_error").as_string().find("no handler"),
            std::string::npos);
}

TEST_P(WorkerPoolTest, JobsWithOneCoalesceKeyNeverOverlap) {
  std::mutex mutex;
  std::map<std::string, int> running;
  std::map<std::string, int> most_at_once;
  handlers_.add("materialize", [&](const model::Job& job) {
    const std::string owner = job.args.at("coalesce_key").as_string();
    {
      std::lock_guard lock(mutex);
      most_at_once[owner] = std::max(most_at_once[owner], ++running[owner]);
    }
    std::this_thread::sleep_for(milliseconds(20));
    std::lock_guard lock(mutex);
    --running[owner];
  });
  for (int i = 0; i < 6; ++i) {
    enqueue("materialize", {{"coalesce_key", Value::string(i % 2 ? "a" : "b")}});
  }
  WorkerPool pool(queue_, handlers_, fast_pool(4));
  ASSERT_TRUE(pool.drain_until_idle(kDrainTimeout));
  EXPECT_TRUE(queued().empty());
  EXPECT_EQ(most_at_once["a"], 1);
  EXPECT_EQ(most_at_once["b"], 1);
}

TEST_P(WorkerPoolTest, StartedPoolRunsJobsEnqueuedLater) {
  WorkerPool pool(queue_, handlers_, fast_pool(3));
  pool.start();
  std::vector<std::string> ids;
  for (int i = 0; i < 30; ++i) ids.push_back(enqueue("record").id);
  EXPECT_TRUE(eventually([&] { return log_.distinct() == ids.size(); }));
  pool.stop();
  for (const std::string& id : ids) EXPECT_EQ(log_.runs_of(id), 1) << id;
  EXPECT_TRUE(queued().empty());
}

TEST_P(WorkerPoolTest, StopLetsTheRunningJobFinish) {
  std::atomic<bool> entered{false};
  std::atomic<bool> finished{false};
  handlers_.add("slow", [&](const model::Job&) {
    entered = true;
    std::this_thread::sleep_for(milliseconds(200));
    finished = true;
  });
  enqueue("slow");
  WorkerPool pool(queue_, handlers_, fast_pool(2));
  pool.start();
  ASSERT_TRUE(eventually([&] { return entered.load(); }));
  pool.stop();
  EXPECT_TRUE(finished);
  EXPECT_TRUE(queued().empty()) << "the finished job was completed before stop returned";
  pool.stop();  // a second stop is a no-op
}

TEST_P(WorkerPoolTest, RejectsUnusableOptions) {
  WorkerPoolOptions no_threads = fast_pool(0);
  WorkerPoolOptions no_queues = fast_pool(1);
  no_queues.queues.clear();
  for (const WorkerPoolOptions& bad : {no_threads, no_queues}) {
    try {
      WorkerPool pool(queue_, handlers_, bad);
      ADD_FAILURE() << "accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::ConfigurationError);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, WorkerPoolTest, ::testing::Values("memory", "sqlite"),
                         [](const auto& info) { return info.param; });

// Several processes, each with its own engine on one SQLite file, drain one
// queue. Handlers succeed and finish well within the lease, so every job
// runs exactly once; a worker that crashes mid-job would make that
// at-least-once (its job is run again when the lease expires).
TEST(WorkerPoolsOnOneSqliteFile, RunEveryJobExactlyOnce) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("stowage-jobs-" + std::to_string(::getpid()) + "-" + uuid_v4() + ".db");
  {
    constexpr int kProcesses = 3;
    constexpr int kJobs = 500;
    struct Process {
      std::unique_ptr<table::Engine> engine;
      std::unique_ptr<schema::TableSchema> schema;
      std::unique_ptr<JobQueue> queue;
      std::unique_ptr<WorkerPool> pool;
    };
    RunLog log;
    JobHandlers handlers;
    handlers.add("record", [&](const model::Job& job) { log.record(job); });

    std::vector<Process> processes(kProcesses);
    for (Process& process : processes) {
      table::SqliteOptions options;
      options.path = path.string();
      process.engine = table::make_sqlite_engine(options);
      process.schema = std::make_unique<schema::TableSchema>(
          schema::TableSchema::open(*process.engine, schema_config("jobs")));
      process.queue = std::make_unique<JobQueue>(*process.engine, *process.schema);
      process.pool = std::make_unique<WorkerPool>(*process.queue, handlers, fast_pool(2));
    }
    for (int i = 0; i < kJobs; ++i) {
      processes[i % kProcesses].queue->enqueue(model::make_job("record", {}));
    }

    std::vector<std::thread> drains;
    std::atomic<int> idle{0};
    for (Process& process : processes) {
      drains.emplace_back([&] {
        if (process.pool->drain_until_idle(kDrainTimeout)) ++idle;
      });
    }
    for (std::thread& drain : drains) drain.join();

    EXPECT_EQ(idle, kProcesses);
    const std::map<std::string, int> runs = log.runs();
    EXPECT_EQ(runs.size(), static_cast<std::size_t>(kJobs));
    for (const auto& [id, count] : runs) EXPECT_EQ(count, 1) << id;
    EXPECT_TRUE(processes[0].queue->due("default", 1).empty());
    const table::QueryResult left = processes[0].engine->query(
        processes[0].schema->listing_query(processes[0].queue->queue_partition("default"), {}));
    EXPECT_TRUE(left.items.empty());
  }
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(path.string() + suffix, ignored);
  }
}

}  // namespace
}  // namespace stowage::jobs
