#include "jobs/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "stowage/error.h"

namespace stowage::jobs {

namespace {

constexpr char kCoalesceKeyArg[] = "coalesce_key";

// The job's coalesce key, or nullptr when it has none.
const std::string* coalesce_key(const model::Job& job) {
  const auto it = job.args.find(kCoalesceKeyArg);
  if (it == job.args.end() || it->second.type() != table::Type::S) return nullptr;
  return &it->second.as_string();
}

}  // namespace

WorkerPool::WorkerPool(JobQueue& queue, const JobHandlers& handlers,
                       WorkerPoolOptions options)
    : queue_(queue), handlers_(handlers), options_(std::move(options)) {
  if (options_.queues.empty() || options_.threads == 0 || options_.batch_size == 0) {
    throw Error::configuration(
        "worker pool: needs at least one queue, one thread and a batch size of 1 or more");
  }
  if (options_.min_idle_sleep.count() <= 0 ||
      options_.max_idle_sleep < options_.min_idle_sleep) {
    throw Error::configuration(
        "worker pool: min_idle_sleep must be positive and at most max_idle_sleep");
  }
}

WorkerPool::~WorkerPool() { stop(); }

void WorkerPool::start() {
  stopping_ = false;
  for (std::size_t i = 0; i < options_.threads; ++i) {
    threads_.emplace_back([this] { work(); });
  }
}

void WorkerPool::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

bool WorkerPool::drain_until_idle(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  stopping_ = false;
  std::atomic<bool> timed_out{false};
  std::vector<std::thread> drainers;
  for (std::size_t i = 0; i < options_.threads; ++i) {
    drainers.emplace_back([&] {
      std::mt19937 random(std::random_device{}());
      while (std::chrono::steady_clock::now() < deadline) {
        const Poll poll = poll_once(random, deadline);
        if (poll == Poll::Idle) return;
        if (poll == Poll::Contended) std::this_thread::sleep_for(options_.min_idle_sleep);
      }
      timed_out = true;
    });
  }
  for (std::thread& drainer : drainers) drainer.join();
  return !timed_out;
}

WorkerPool::Poll WorkerPool::poll_once(std::mt19937& random,
                                       std::chrono::steady_clock::time_point deadline) {
  Poll result = Poll::Idle;
  for (const std::string& queue_name : options_.queues) {
    std::vector<model::Job> due;
    try {
      due = queue_.due(queue_name, options_.batch_size);
    } catch (const Error& error) {
      // The table is unreachable for now; callers pause as when contended.
      spdlog::warn("job queue {}: listing due jobs failed: {}", queue_name, error.what());
      if (result == Poll::Idle) result = Poll::Contended;
      continue;
    }
    if (!due.empty() && result == Poll::Idle) result = Poll::Contended;
    std::shuffle(due.begin(), due.end(), random);
    for (const model::Job& job : due) {
      if (stopping_ || std::chrono::steady_clock::now() >= deadline) return result;
      if (!try_reserve(job)) continue;
      try {
        if (std::optional<model::Job> claimed = queue_.claim(job)) {
          run(*claimed);
          result = Poll::Ran;
        }
      } catch (const Error& error) {
        // Whatever was claimed keeps its lease and is taken over when the
        // lease expires.
        spdlog::warn("job {} ({}): {}", job.id, job.type, error.what());
      }
      release(job);
    }
  }
  return result;
}

void WorkerPool::run(const model::Job& job) {
  const JobHandler* handler = handlers_.find(job.type);
  if (!handler) {
    queue_.retry_later(job, "no handler for job type \"" + job.type + "\"");
    return;
  }
  try {
    (*handler)(job);
  } catch (const Error& error) {
    if (error.code() == ErrorCode::RecordNotFound) {
      queue_.discard(job, error.message());
    } else {
      queue_.retry_later(job, error.what());
    }
    return;
  } catch (const std::exception& error) {
    queue_.retry_later(job, error.what());
    return;
  }
  if (!queue_.complete(job)) {
    spdlog::warn("job {} ({}) finished after its lease ran out; another worker "
                 "holds it and may run it again",
                 job.id, job.type);
  }
}

void WorkerPool::work() {
  std::mt19937 random(std::random_device{}());
  std::chrono::milliseconds idle_sleep = options_.min_idle_sleep;
  while (!stopping_) {
    switch (poll_once(random, std::chrono::steady_clock::time_point::max())) {
      case Poll::Ran:
        idle_sleep = options_.min_idle_sleep;
        break;
      case Poll::Contended:
        pause_unless_stopped(options_.min_idle_sleep);
        break;
      case Poll::Idle:
        pause_unless_stopped(idle_sleep);
        idle_sleep = std::min(idle_sleep * 2, options_.max_idle_sleep);
        break;
    }
  }
}

void WorkerPool::pause_unless_stopped(std::chrono::milliseconds pause) {
  std::unique_lock lock(mutex_);
  stop_requested_.wait_for(lock, pause, [this] { return stopping_.load(); });
}

bool WorkerPool::try_reserve(const model::Job& job) {
  const std::string* key = coalesce_key(job);
  if (!key) return true;
  std::lock_guard lock(mutex_);
  return running_keys_.insert(*key).second;
}

void WorkerPool::release(const model::Job& job) {
  const std::string* key = coalesce_key(job);
  if (!key) return;
  std::lock_guard lock(mutex_);
  running_keys_.erase(*key);
}

}  // namespace stowage::jobs
