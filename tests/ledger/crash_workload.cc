// The process the ledger's crash test kills: runs the tracked workload
// (tracked_workload.h) on a SQLite file with synchronous = FULL, with two
// workers draining its jobs (purges, materializations) and a thread
// materializing every ledger in a loop, until it is killed.
//
// Usage: ledger_crash_workload <sqlite file> <storage directory> <seed>
// Creates the table on its first run; each run resumes on what the last one
// left. Prints "ready" once the table is open, so the test kills it while it
// writes, not while it starts. Exits 1 on an error no caller could act on.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "jobs/model_jobs.h"
#include "jobs/worker_pool.h"
#include "ledger/totals.h"
#include "ledger/tracked_workload.h"
#include "model/attachments.h"
#include "model/blob_store.h"
#include "model/definitions.h"
#include "model/owner_contexts.h"
#include "schema/table_schema.h"
#include "service/disk_service.h"
#include "table/sqlite_engine.h"

namespace stowage::ledger::testing {
namespace {

[[noreturn]] void fail(const std::string& what) {
  std::cerr << "crash workload: " << what << std::endl;
  std::_Exit(1);
}

int run(const std::string& path, const std::string& storage, std::uint64_t seed) {
  std::shared_ptr<table::Engine> engine =
      table::make_sqlite_engine({.path = path, .synchronous = "FULL"});
  schema::SchemaConfig config;
  config.manage_table = true;
  const schema::TableSchema schema = schema::TableSchema::open(*engine, config);
  const model::ServiceMap services = {
      {"local", std::make_shared<service::DiskService>(service::DiskServiceOptions{storage})}};
  const model::Definitions definitions = model::Definitions::parse(kTrackedDefinitions);
  model::BlobStore blobs(*engine, schema, {services, "local", std::string(40, 's')});
  model::Attachments attachments(*engine, schema, definitions, blobs);
  model::OwnerContexts contexts(*engine, schema);
  jobs::JobQueueOptions queue_options;
  // Jobs a killed run held are claimed again soon by the next.
  queue_options.lease = std::chrono::milliseconds(500);
  queue_options.first_backoff = std::chrono::milliseconds(10);
  jobs::JobQueue queue(*engine, schema, queue_options);
  jobs::JobHandlers handlers;
  jobs::add_model_handlers(handlers, blobs);
  jobs::add_materialize_handler(handlers, *engine, schema);
  jobs::WorkerPool workers(queue, handlers,
                           {.threads = 2, .min_idle_sleep = std::chrono::milliseconds(1),
                            .max_idle_sleep = std::chrono::milliseconds(10)});
  workers.start();

  TrackedWorkload workload(attachments, contexts, blobs);
  std::mt19937_64 random(seed);
  for (int i = 0; i < 4; ++i) workload.upload(random);
  std::cout << "ready" << std::endl;

  std::thread materializer([&] {
    const Totals totals(*engine, schema);
    const std::vector<Ledger> ledgers = workload_ledgers();
    for (std::size_t k = 0;; ++k) {
      try {
        totals.materialize(ledgers[k % ledgers.size()]);
      } catch (const Error& error) {
        fail(std::string("materialize: ") + error.what());
      }
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t) {
    writers.emplace_back([&, t] {
      std::mt19937_64 mine(seed * 10 + t);
      for (;;) {
        workload.run_one(mine);
        if (!workload.unexpected().empty()) fail(workload.unexpected().front());
      }
    });
  }
  materializer.join();  // never: the process ends by SIGKILL
  return 0;
}

}  // namespace
}  // namespace stowage::ledger::testing

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: ledger_crash_workload <sqlite file> <storage directory> <seed>\n";
    return 2;
  }
  try {
    return stowage::ledger::testing::run(argv[1], argv[2], std::strtoull(argv[3], nullptr, 10));
  } catch (const std::exception& error) {
    std::cerr << "crash workload: " << error.what() << std::endl;
    return 1;
  }
}
