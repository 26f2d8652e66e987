// Concurrency stress with fault injection (DESIGN §8): many threads change
// overlapping owners and shared blobs through an engine that throttles,
// fails, conflicts and loses answers; operations may fail, with an error
// code a caller can act on, but the table and the services must afterwards
// satisfy I1, I2, I3 and I5, as read back whole by check_invariants().
// Runs on memory, sqlite and DynamoDB (moto), Mode A and Mode B.
//
// Seeded: the seed is printed, and STOWAGE_SEED=<n> replays it (the thread
// interleaving still varies). STOWAGE_STRESS_SCALE=<k> runs k times the
// operations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/uuid.h"
#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "jobs/model_jobs.h"
#include "jobs/worker_pool.h"
#include "model/attachments.h"
#include "model/blob_store.h"
#include "model/definitions.h"
#include "model/item_conversion.h"
#include "model/outbox.h"
#include "model/sweep.h"
#include "schema/table_schema.h"
#include "service/disk_service.h"
#include "stowage/error.h"
#include "support/engines.h"
#include "support/invariants.h"
#include "support/workload.h"
#include "table/fault_injecting_engine.h"
#include "table/retrying_engine.h"

namespace stowage::model {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// Every dependent rule on a one and on a many, plus a record type that only
// has the default definition (many, purge_later).
constexpr const char* kDefinitions = R"(
[[attachments]]
record_type = "Card"
name = "image"
cardinality = "one"
dependent = "purge"

[[attachments]]
record_type = "Card"
name = "cover"
cardinality = "one"
dependent = "purge_later"

[[attachments]]
record_type = "Card"
name = "logo"
cardinality = "one"
dependent = "detach"

[[attachments]]
record_type = "Card"
name = "files"
dependent = "purge"

[[attachments]]
record_type = "Card"
name = "photos"
dependent = "purge_later"

[[attachments]]
record_type = "Card"
name = "docs"
dependent = "detach"
)";

struct Slot {
  OwnerRef owner;
  std::string name;
  bool one = false;
};

const std::vector<Slot>& slots() {
  static const std::vector<Slot> all = [] {
    std::vector<Slot> result;
    for (const char* id : {"1", "2", "3"}) {
      for (const char* name : {"image", "cover", "logo"}) result.push_back({{"Card", id}, name, true});
      for (const char* name : {"files", "photos", "docs"}) result.push_back({{"Card", id}, name, false});
    }
    result.push_back({{"Board", "1"}, "files", false});
    return result;
  }();
  return all;
}

// The model's objects on one engine stack.
struct Model {
  Model(table::Engine& engine, const schema::TableSchema& schema, const Definitions& definitions,
        const ServiceMap& services, jobs::JobQueueOptions queue_options = {})
      : blobs(engine, schema, BlobStoreOptions{services, "local", std::string(40, 's')}),
        attachments(engine, schema, definitions, blobs),
        queue(engine, schema, std::move(queue_options)) {
    jobs::add_model_handlers(handlers, blobs);
  }

  BlobStore blobs;
  Attachments attachments;
  jobs::JobQueue queue;
  jobs::JobHandlers handlers;
};

// Failures an operation may end with under faults and races, each a state
// the caller can act on. Anything else fails the test.
bool expected_failure(ErrorCode code) {
  switch (code) {
    case ErrorCode::RecordNotFound:       // the blob was purged meanwhile
    case ErrorCode::ForeignKeyViolation:  // purging a blob still attached
    case ErrorCode::TransactionCanceled:  // a one's rows kept changing
    case ErrorCode::UnknownOutcome:       // an answer lost, not retryable
    case ErrorCode::Throttled:            // retries exhausted
    case ErrorCode::ServiceUnavailable:
      return true;
    default:
      return false;
  }
}

// Random operations on the slots and a shared pool of blob ids.
class Workload {
 public:
  Workload(Model& model, std::vector<std::string> pool) : model_(model), pool_(std::move(pool)) {}

  // One random operation. Returns the error code it failed with, if any.
  std::optional<ErrorCode> run_one(std::mt19937_64& random) {
    try {
      operate(random);
      return std::nullopt;
    } catch (const Error& error) {
      if (!expected_failure(error.code())) {
        std::lock_guard lock(mutex_);
        unexpected_.push_back(error.what());
      }
      return error.code();
    }
  }

  std::vector<std::string> unexpected() const {
    std::lock_guard lock(mutex_);
    return unexpected_;
  }

 private:
  void operate(std::mt19937_64& random) {
    const Slot& slot = slots()[pick(random, slots().size())];
    Attachments& attachments = model_.attachments;
    // Percentages: mostly attaching, enough removal to keep purging; few
    // destroys and blob purges, or the shared pool would soon be all gone.
    const std::size_t roll = pick(random, 100);
    if (roll < 30) {
      attachments.attach(slot.owner, slot.name, some_blob(random));
    } else if (roll < 42) {
      attachments.attach(slot.owner, slot.name, upload(random));
    } else if (roll < 52) {
      const std::vector<std::string> ids = some_blobs(random, slot.one ? 1 : 4);
      if (slot.one) {
        attachments.replace(slot.owner, slot.name, ids);
      } else if (!ids.empty()) {
        attachments.attach_many(slot.owner, slot.name, ids);
      }
    } else if (roll < 62) {
      attachments.replace(slot.owner, slot.name, some_blobs(random, slot.one ? 1 : 3));
    } else if (roll < 74) {
      attachments.detach(slot.owner, slot.name, some_row(random, slot));
    } else if (roll < 84) {
      attachments.purge(slot.owner, slot.name, some_row(random, slot));
    } else if (roll < 87) {
      attachments.destroy_owner(slot.owner);
    } else if (roll < 92) {
      model_.blobs.purge(some_blob(random));
    } else {
      list_all(slot);
    }
  }

  static std::size_t pick(std::mt19937_64& random, std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  }

  std::string some_blob(std::mt19937_64& random) {
    std::lock_guard lock(mutex_);
    return pool_[pick(random, pool_.size())];
  }

  // 0 to `most` blob ids, repeats allowed (a replace or an append may name
  // one blob twice).
  std::vector<std::string> some_blobs(std::mt19937_64& random, std::size_t most) {
    std::vector<std::string> ids(pick(random, most + 1));
    for (std::string& id : ids) id = some_blob(random);
    return ids;
  }

  // A new blob, shared from now on.
  std::string upload(std::mt19937_64& random) {
    const std::string bytes = "stress bytes " + std::to_string(random());
    service::StringSource source(bytes);
    const Blob blob = model_.blobs.create_and_upload(source, BlobInput{"stress.txt", "", {}, ""});
    std::lock_guard lock(mutex_);
    pool_.push_back(blob.id);
    return blob.id;
  }

  // One of the slot's rows half the time, else every row (nullopt).
  std::optional<std::string> some_row(std::mt19937_64& random, const Slot& slot) {
    if (pick(random, 2) == 0) return std::nullopt;
    const std::vector<Attachment> rows =
        model_.attachments.list(slot.owner, slot.name).attachments;
    if (rows.empty()) return std::nullopt;
    return rows[pick(random, rows.size())].id;
  }

  // Pages through the owner's listing, two rows a page.
  void list_all(const Slot& slot) {
    std::optional<std::string> token;
    do {
      AttachmentPage page = model_.attachments.list(slot.owner, std::nullopt, token, 2);
      token = std::move(page.next_page_token);
    } while (token);
  }

  Model& model_;
  mutable std::mutex mutex_;
  std::vector<std::string> pool_;        // guarded by mutex_
  std::vector<std::string> unexpected_;  // guarded by mutex_
};

using StressParam = std::tuple<std::string, table::KeyLayout>;

class StressTest : public ::testing::TestWithParam<StressParam> {
 protected:
  void SetUp() override {
    seed_ = testing::seed_from_environment();
    engine_ = testing::make_bare_engine(std::get<0>(GetParam()));
    schema::SchemaConfig config;
    config.table = testing::unique_table_name("stress");
    config.mode = std::get<1>(GetParam());
    config.manage_table = true;
    schema_.emplace(schema::TableSchema::open(*engine_, config));
    root_ = std::filesystem::temp_directory_path() / ("stowage-stress-" + uuid_v4());
    services_ = {{"local", std::make_shared<service::DiskService>(
                               service::DiskServiceOptions{root_})}};
    definitions_ = Definitions::parse(kDefinitions);
    clean_.emplace(*engine_, *schema_, definitions_, services_, settling_queue_options());
  }

  void TearDown() override {
    if (schema_) engine_->delete_table(schema_->table_name());
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  // Blobs made without faults, for the workload to share.
  std::vector<std::string> make_pool(std::size_t count) {
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < count; ++i) {
      service::StringSource source("pool blob " + std::to_string(i));
      ids.push_back(clean_->blobs.create_and_upload(source, BlobInput{"pool.txt", "", {}, ""}).id);
    }
    return ids;
  }

  // Drains every job without faults, sweeps with grace 0, and checks the
  // invariants on the settled state.
  void settle_and_check() {
    jobs::WorkerPool pool(clean_->queue, clean_->handlers, {.threads = 2, .min_idle_sleep = std::chrono::milliseconds(1)});
    ASSERT_TRUE(pool.drain_until_idle(std::chrono::seconds(60)));
    sweep(*engine_, *schema_, clean_->blobs, services_, std::chrono::seconds(0));
    const testing::InvariantReport report = testing::check_invariants(*engine_, *schema_, services_);
    std::cout << "settled: " << report << "\n";
    EXPECT_THAT(report.violations, IsEmpty());
    EXPECT_THAT(report.leftovers, IsEmpty());
    EXPECT_GT(report.blobs, 0u);
  }

  // The settling queue's clock runs an hour ahead: leases taken by claims
  // whose answer was lost, and backoffs of jobs that failed under faults,
  // have all run out for it.
  static jobs::JobQueueOptions settling_queue_options() {
    jobs::JobQueueOptions options;
    options.clock = [] { return std::chrono::system_clock::now() + std::chrono::hours(1); };
    return options;
  }

  static void print_outcomes(const std::map<std::string, int>& outcomes,
                             const table::FaultCounts& faults) {
    std::cout << "outcomes:";
    for (const auto& [code, count] : outcomes) std::cout << " " << code << "=" << count;
    std::cout << "\ninjected: throttle=" << faults.throttle
              << " server_error=" << faults.server_error << " conflict=" << faults.conflict
              << " timeout_before=" << faults.timeout_before
              << " timeout_after=" << faults.timeout_after << "\n";
  }

  std::uint64_t seed_ = 0;
  std::shared_ptr<table::Engine> engine_;
  std::optional<schema::TableSchema> schema_;
  std::filesystem::path root_;
  ServiceMap services_;
  Definitions definitions_;
  std::optional<Model> clean_;
};

// 8 threads of random changes under every kind of fault, retried as
// production retries them, with workers draining jobs meanwhile.
TEST_P(StressTest, ConcurrentChangesUnderFaultsKeepTheInvariants) {
  constexpr int kThreads = 8;
  const int operations_per_thread = 250 * testing::scale_from_environment();
  const bool on_moto = std::get<0>(GetParam()) == "dynamodb";

  table::FaultOptions faults;
  faults.seed = seed_;
  faults.throttle = 0.03;
  faults.server_error = 0.03;
  faults.conflict = 0.03;
  faults.timeout_before = 0.03;
  // A transaction whose answer was lost after it applied is retried with
  // its ClientRequestToken, which DynamoDB answers without applying it
  // again. moto ignores the token and applies the retry, which then fails
  // on the row the first attempt wrote, so on moto answers are lost only
  // before the service (LostAnswersLeaveWholeChangesOrNone, unretried, loses
  // them after too).
  faults.timeout_after = on_moto ? 0 : 0.03;
  faults.reads_too = true;
  auto faulty = std::make_shared<table::FaultInjectingEngine>(engine_, faults);
  table::RetryingEngine retrying(
      faulty, aws::RetryPolicy({.max_attempts = 5,
                                .base_delay = std::chrono::milliseconds(1),
                                .max_delay = std::chrono::milliseconds(10)}));
  jobs::JobQueueOptions queue_options;
  queue_options.lease = std::chrono::seconds(1);
  queue_options.first_backoff = std::chrono::milliseconds(5);
  Model model(retrying, *schema_, definitions_, services_, queue_options);
  Workload workload(model, make_pool(12));

  std::mutex mutex;
  std::map<std::string, int> outcomes;
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
        std::lock_guard lock(mutex);
        for (const auto& [code, count] : mine) outcomes[code] += count;
      });
    }
    for (std::thread& thread : threads) thread.join();
    workers.stop();
  }
  print_outcomes(outcomes, faulty->injected());

  EXPECT_THAT(workload.unexpected(), IsEmpty());
  EXPECT_GT(outcomes["ok"], kThreads * operations_per_thread / 2);
  if (!on_moto) {
    EXPECT_GT(faulty->injected().timeout_after, 0u);
  }
  settle_and_check();
}

// I3 at the grain of one transaction: writes whose answer is lost (after
// they applied, or before) surface as UnknownOutcome, unretried. After each
// such failure the state must be a whole change or none of it, which the
// invariants would catch otherwise (a row without its count, a count
// without its row).
TEST_P(StressTest, LostAnswersLeaveWholeChangesOrNone) {
  const int operations = 150 * testing::scale_from_environment();

  table::FaultOptions faults;
  faults.seed = seed_;
  faults.timeout_after = 0.25;
  faults.timeout_before = 0.1;
  auto faulty = std::make_shared<table::FaultInjectingEngine>(engine_, faults);
  Model model(*faulty, *schema_, definitions_, services_);
  Workload workload(model, make_pool(6));

  std::map<std::string, int> outcomes;
  std::mt19937_64 random(seed_);
  for (int i = 0; i < operations; ++i) {
    const std::optional<ErrorCode> failure = workload.run_one(random);
    ++outcomes[failure ? std::string(to_string(*failure)) : "ok"];
    if (failure != ErrorCode::UnknownOutcome) continue;
    const testing::InvariantReport report = testing::check_invariants(*engine_, *schema_, services_);
    ASSERT_THAT(report.violations, IsEmpty()) << "after operation " << i << ": " << report;
  }
  print_outcomes(outcomes, faulty->injected());

  EXPECT_THAT(workload.unexpected(), IsEmpty());
  EXPECT_GT(outcomes["UnknownOutcome"], 0);
  settle_and_check();
}

// The check itself must see each kind of broken state, or the tests above
// could not fail.
TEST_P(StressTest, TheCheckSeesBrokenState) {
  const std::vector<std::string> pool = make_pool(3);
  const std::string& table = schema_->table_name();
  // I1: a count without its row.
  engine_->transact_write({{clean_->blobs.refcount_action(pool[0], 1)}, ""});
  // I2: a count-only zombie (an unconditioned ADD on a blob that is gone),
  // and a row whose blob is gone.
  table::UpdateRequest zombie;
  zombie.table = table;
  zombie.key = schema_->physical_key(schema_->keys().blob("gone"));
  zombie.update.add(std::string(attr::kAttachmentsCount), table::Value::number(1));
  engine_->update(zombie);
  Attachment dangling;
  dangling.id = uuid_v7(std::chrono::system_clock::now());
  dangling.owner = {"Card", "9"};
  dangling.name = "files";
  dangling.blob_id = "missing";
  dangling.created_at = "2024-01-01T00:00:00.000000Z";
  engine_->put(table::PutRequest{table, attachment_to_item(*schema_, dangling)});
  // I5: a blob's bytes gone, and bytes of no blob.
  service::Service& disk = *services_.at("local");
  disk.remove(clean_->blobs.find(pool[1]).key);
  service::StringSource orphan("orphaned");
  disk.upload("orphan0001", orphan, {});
  // Work left.
  clean_->queue.enqueue(make_job(kPurgeBlobJob, {{"blob_id", table::Value::string(pool[2])}}));

  const testing::InvariantReport report = testing::check_invariants(*engine_, *schema_, services_);
  EXPECT_THAT(report.violations,
              UnorderedElementsAre(HasSubstr("I1: blob " + pool[0] + " counts 1"),
                                   HasSubstr("I2: blob item"),
                                   HasSubstr("references blob missing"),
                                   HasSubstr("I5: the bytes of blob " + pool[1])))
      << report;
  EXPECT_THAT(report.leftovers, UnorderedElementsAre(HasSubstr("orphan0001"),
                                                     HasSubstr("purge_blob job")))
      << report;
}

INSTANTIATE_TEST_SUITE_P(
    Engines, StressTest,
    ::testing::Values(StressParam{"memory", table::KeyLayout::ModeA},
                      StressParam{"memory", table::KeyLayout::ModeB},
                      StressParam{"sqlite", table::KeyLayout::ModeA},
                      StressParam{"sqlite", table::KeyLayout::ModeB}),
    [](const ::testing::TestParamInfo<StressParam>& info) {
      return std::get<0>(info.param) +
             (std::get<1>(info.param) == table::KeyLayout::ModeA ? "_ModeA" : "_ModeB");
    });

}  // namespace
}  // namespace stowage::model
