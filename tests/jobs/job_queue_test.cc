#include "jobs/job_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "model/outbox.h"
#include "schema/table_schema.h"
#include "stowage/error.h"
#include "support/engines.h"

namespace stowage::jobs {
namespace {

using std::chrono::microseconds;
using std::chrono::seconds;
using table::Item;
using table::KeyLayout;
using table::Value;

// A clock that only moves when the test says so. It starts an hour ahead of
// the system clock, so jobs made by model::make_job (which reads the system
// clock) during a test are due at once.
class ManualClock {
 public:
  ManualClock()
      : micros_(std::chrono::duration_cast<microseconds>(
                    (std::chrono::system_clock::now() + std::chrono::hours(1))
                        .time_since_epoch())
                    .count()) {}

  Clock clock() {
    return [this] {
      return std::chrono::system_clock::time_point(microseconds(micros_.load()));
    };
  }
  void advance(microseconds by) { micros_ += by.count(); }
  std::int64_t now_micros() const { return micros_.load(); }

 private:
  std::atomic<std::int64_t> micros_;
};

class JobQueueTest
    : public ::testing::TestWithParam<std::tuple<std::string, KeyLayout>> {
 protected:
  JobQueueTest()
      : engine_(testing::make_engine(std::get<0>(GetParam()))),
        schema_(open_schema()),
        queue_(*engine_, schema_, options()) {}

  schema::TableSchema open_schema() {
    schema::SchemaConfig config;
    config.table = testing::unique_table_name("jobs");
    config.mode = std::get<1>(GetParam());
    config.manage_table = true;
    return schema::TableSchema::open(*engine_, config);
  }

  JobQueueOptions options() {
    JobQueueOptions options;
    options.lease = seconds(30);
    options.first_backoff = seconds(1);
    options.max_backoff = seconds(60);
    options.max_attempts = 3;
    options.clock = clock_.clock();
    return options;
  }

  model::Job enqueue(std::string type = "test") {
    model::Job job = model::make_job(type, {{"n", Value::number(std::int64_t{7})}});
    queue_.enqueue(job);
    return job;
  }

  // Every item of a partition, raw.
  std::vector<Item> items_of(const std::string& partition) {
    return engine_->query(schema_.listing_query(partition, {})).items;
  }
  std::vector<Item> queued() { return items_of(queue_.queue_partition("default")); }
  std::vector<Item> dead() { return items_of(queue_.dead_letter_partition("default")); }

  ManualClock clock_;
  std::shared_ptr<table::Engine> engine_;
  schema::TableSchema schema_;
  JobQueue queue_;
};

TEST_P(JobQueueTest, EnqueuedJobIsDueClaimedAndCompleted) {
  const model::Job job = enqueue();

  std::vector<model::Job> due = queue_.due("default", 10);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].id, job.id);
  EXPECT_EQ(due[0].type, "test");
  EXPECT_EQ(due[0].args, job.args);
  EXPECT_EQ(due[0].attempts, 0);
  EXPECT_EQ(due[0].lease_until_micros, 0);

  std::optional<model::Job> claimed = queue_.claim(due[0]);
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->attempts, 1);
  EXPECT_EQ(claimed->lease_until_micros, clock_.now_micros() + 30'000'000);
  EXPECT_TRUE(queue_.due("default", 10).empty()) << "a held job is not due";

  EXPECT_TRUE(queue_.complete(*claimed));
  EXPECT_FALSE(queue_.complete(*claimed)) << "completing twice changes nothing";
  EXPECT_FALSE(queue_.claim(due[0])) << "a finished job cannot be claimed back into being";
  EXPECT_TRUE(queued().empty());
}

TEST_P(JobQueueTest, EnqueuingTheSameJobTwiceKeepsOne) {
  const model::Job job = enqueue();
  queue_.enqueue(job);
  EXPECT_EQ(queue_.due("default", 10).size(), 1u);
}

TEST_P(JobQueueTest, DueListsOldestFirstUpToTheLimit) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    ids.push_back(enqueue().id);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::vector<model::Job> due = queue_.due("default", 3);
  ASSERT_EQ(due.size(), 3u);
  for (std::size_t i = 0; i < due.size(); ++i) EXPECT_EQ(due[i].id, ids[i]);
  EXPECT_TRUE(queue_.due("other", 3).empty());
}

TEST_P(JobQueueTest, OfConcurrentClaimersExactlyOneWinsEachJob) {
  std::vector<model::Job> jobs;
  for (int i = 0; i < 20; ++i) jobs.push_back(enqueue());
  JobQueue other(*engine_, schema_, options());

  std::mutex mutex;
  std::map<std::string, int> wins;
  std::vector<std::thread> claimers;
  for (int t = 0; t < 4; ++t) {
    JobQueue& claimer = t % 2 ? other : queue_;
    claimers.emplace_back([&] {
      for (const model::Job& job : jobs) {
        if (claimer.claim(job)) {
          std::lock_guard lock(mutex);
          ++wins[job.id];
        }
      }
    });
  }
  for (std::thread& claimer : claimers) claimer.join();
  ASSERT_EQ(wins.size(), jobs.size());
  for (const auto& [id, count] : wins) EXPECT_EQ(count, 1) << id;
}

TEST_P(JobQueueTest, ExpiredLeaseIsTakenOverAndTheOldOwnerChangesNothing) {
  enqueue();
  const model::Job first = queue_.claim(queue_.due("default", 1).at(0)).value();

  clock_.advance(seconds(30));  // lease_until == now: not yet expired
  EXPECT_TRUE(queue_.due("default", 1).empty());
  EXPECT_FALSE(queue_.claim(first));

  clock_.advance(microseconds(1));
  std::vector<model::Job> due = queue_.due("default", 1);
  ASSERT_EQ(due.size(), 1u);
  const model::Job second = queue_.claim(due[0]).value();
  EXPECT_EQ(second.attempts, 2);
  EXPECT_GT(second.lease_until_micros, first.lease_until_micros);

  EXPECT_FALSE(queue_.complete(first));
  EXPECT_FALSE(queue_.retry_later(first, "late"));
  EXPECT_FALSE(queue_.discard(first, "late"));
  ASSERT_EQ(queued().size(), 1u);
  EXPECT_EQ(model::job_from_item(queued()[0]).lease_until_micros,
            second.lease_until_micros);

  EXPECT_TRUE(queue_.complete(second));
  EXPECT_TRUE(queued().empty());
}

TEST_P(JobQueueTest, RetryLaterWaitsTheBackoffAndKeepsTheError) {
  const model::Job job = enqueue();
  const model::Job claimed = queue_.claim(job).value();
  ASSERT_TRUE(queue_.retry_later(claimed, "service unavailable"));

  ASSERT_EQ(queued().size(), 1u);
  const Item item = queued()[0];
  EXPECT_EQ(item.at("as_last_error"), Value::string("service unavailable"));
  EXPECT_EQ(item.count("as_lease_until"), 0u);
  EXPECT_EQ(model::job_from_item(item).run_at_micros, clock_.now_micros() + 1'000'000);

  EXPECT_TRUE(queue_.due("default", 1).empty());
  EXPECT_FALSE(queue_.claim(job)) << "a stale listing cannot cut the backoff short";
  clock_.advance(seconds(1));
  const model::Job again = queue_.claim(queue_.due("default", 1).at(0)).value();
  EXPECT_EQ(again.attempts, 2);

  ASSERT_TRUE(queue_.retry_later(again, "still unavailable"));
  EXPECT_EQ(model::job_from_item(queued().at(0)).run_at_micros,
            clock_.now_micros() + 2'000'000);
}

TEST_P(JobQueueTest, JobIsDeadLetteredAfterMaxAttempts) {
  enqueue();
  for (int attempt = 1; attempt <= 3; ++attempt) {
    std::vector<model::Job> due = queue_.due("default", 1);
    ASSERT_EQ(due.size(), 1u) << "attempt " << attempt;
    const model::Job claimed = queue_.claim(due[0]).value();
    EXPECT_EQ(claimed.attempts, attempt);
    ASSERT_TRUE(queue_.retry_later(claimed, "failure " + std::to_string(attempt)));
    clock_.advance(seconds(60));
  }
  EXPECT_TRUE(queued().empty());
  const std::vector<Item> letters = dead();
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_EQ(letters[0].at("as_last_error"), Value::string("failure 3"));
  const model::Job dead_job = model::job_from_item(letters[0]);
  EXPECT_EQ(dead_job.attempts, 3);
  EXPECT_EQ(dead_job.queue, "default");
  EXPECT_EQ(dead_job.lease_until_micros, 0);
  EXPECT_TRUE(queue_.due("default", 1).empty());
}

TEST_P(JobQueueTest, DiscardDeletesTheJob) {
  enqueue();
  const model::Job claimed = queue_.claim(queue_.due("default", 1).at(0)).value();
  EXPECT_TRUE(queue_.discard(claimed, "blob is gone"));
  EXPECT_TRUE(queued().empty());
  EXPECT_TRUE(dead().empty());
}

TEST_P(JobQueueTest, UnreadableItemIsSkipped) {
  Item broken;
  schema_.stamp(broken, {queue_.queue_partition("default"),
                         schema_.keys().compose({{"kind", "Job"}, {"job_id", "0"}})});
  broken["as_kind"] = Value::string("Job");
  table::PutRequest put;
  put.table = schema_.table_name();
  put.item = broken;
  engine_->put(put);
  const model::Job job = enqueue();

  std::vector<model::Job> due = queue_.due("default", 10);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].id, job.id);
}

TEST_P(JobQueueTest, BackoffDoublesUpToTheCap) {
  EXPECT_EQ(queue_.backoff(1), seconds(1));
  EXPECT_EQ(queue_.backoff(2), seconds(2));
  EXPECT_EQ(queue_.backoff(6), seconds(32));
  EXPECT_EQ(queue_.backoff(7), seconds(60));
  EXPECT_EQ(queue_.backoff(1'000'000), seconds(60));
}

TEST_P(JobQueueTest, RejectsUnusableOptions) {
  JobQueueOptions no_lease = options();
  no_lease.lease = microseconds(0);
  JobQueueOptions no_attempts = options();
  no_attempts.max_attempts = 0;
  for (const JobQueueOptions& bad : {no_lease, no_attempts}) {
    try {
      JobQueue queue(*engine_, schema_, bad);
      ADD_FAILURE() << "accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::ConfigurationError);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Engines, JobQueueTest,
    ::testing::Combine(::testing::ValuesIn(testing::engine_names()),
                       ::testing::Values(KeyLayout::ModeA, KeyLayout::ModeB)),
    [](const auto& info) {
      return std::get<0>(info.param) +
             (std::get<1>(info.param) == KeyLayout::ModeA ? "_ModeA" : "_ModeB");
    });

}  // namespace
}  // namespace stowage::jobs
