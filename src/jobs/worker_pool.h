// WorkerPool: threads in this process that drain job queues.
//
// Each worker polls its queues for due jobs, claims one at a time, runs the
// handler for its type and ends the job as the handler's outcome says
// (JobHandlers). Any number of pools, in this and in other processes, may
// drain one table: a claim is a conditional write, so each run of a job
// belongs to one worker. Workers list jobs in a shuffled order so that
// pools polling one queue do not all race for its oldest job.
//
// Idle workers sleep, doubling the pause from min_idle_sleep up to
// max_idle_sleep while polls find nothing, and poll at once again after
// running a job.
//
// Coalescing: a job whose args hold a string `coalesce_key` is not started
// while another job with the same key runs in this pool; it is left queued
// for a later poll rather than waited for, so no lease is spent waiting.
// This keeps one materialize job per set of ledgers (an owner's account and
// board) running per process; jobs of sets that share a ledger, and jobs
// across processes, are guarded by the handler itself (conditional writes).
//
// Thread safety: start(), stop(), drain_until_idle() and the destructor are
// called from one controlling thread. The queue and the handlers must
// outlive the pool.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "model/outbox.h"

namespace stowage::jobs {

struct WorkerPoolOptions {
  std::vector<std::string> queues = {std::string(model::kDefaultQueue)};
  std::size_t threads = 2;
  // Jobs listed per poll of a queue.
  std::size_t batch_size = 32;
  std::chrono::milliseconds min_idle_sleep{20};
  std::chrono::milliseconds max_idle_sleep{2000};
};

class WorkerPool {
 public:
  // Throws Error(ConfigurationError) for no queues, no threads, a zero
  // batch size or idle sleeps out of order.
  WorkerPool(JobQueue& queue, const JobHandlers& handlers,
             WorkerPoolOptions options = {});
  // Stops the workers (see stop()).
  ~WorkerPool();

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts the worker threads. REQUIRES: not running.
  void start();
  // Asks the workers to stop and joins them. A job already claimed runs to
  // its end; no new job is claimed. A no-op when not running.
  void stop();

  // Runs the pool's threads until no due job is left that this pool could
  // claim (every worker's last poll found none), or until `timeout` has
  // passed. Returns true when the queues went idle in time. Jobs waiting out
  // a backoff are not due. REQUIRES: not running.
  bool drain_until_idle(std::chrono::milliseconds timeout);

 private:
  enum class Poll {
    Ran,        // ran at least one job
    Contended,  // found due jobs but claimed none (others hold them)
    Idle,       // found no due job
  };

  // One pass over the queues; stops claiming when `should_stop` or the
  // deadline has come.
  Poll poll_once(std::mt19937& random, std::chrono::steady_clock::time_point deadline);
  void run(const model::Job& job);
  // The background loop of start().
  void work();
  // Sleeps for `pause` unless stop() is called first.
  void pause_unless_stopped(std::chrono::milliseconds pause);

  // The coalescing set. try_reserve returns false when another job with the
  // same key runs; a job without a key always gets through.
  bool try_reserve(const model::Job& job);
  void release(const model::Job& job);

  JobQueue& queue_;
  const JobHandlers& handlers_;
  const WorkerPoolOptions options_;

  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  std::set<std::string, std::less<>> running_keys_;  // guarded by mutex_
};

}  // namespace stowage::jobs
