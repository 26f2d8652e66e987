#include "aws/retry_policy.h"

#include <algorithm>
#include <random>
#include <string>

namespace stowage::aws {

namespace {

std::mt19937_64& jitter_source() {
  thread_local std::mt19937_64 source{std::random_device{}()};
  return source;
}

bool only_conflicts(const Error& error) {
  bool conflict = false;
  for (const CancellationReason& reason : error.cancellation_reasons()) {
    if (reason.code == "TransactionConflict") {
      conflict = true;
    } else if (reason.code != "None") {
      return false;
    }
  }
  return conflict;
}

}  // namespace

RetryPolicy::RetryPolicy(RetryOptions options) : options_(options) {
  if (options_.max_attempts < 1) {
    throw Error::configuration("retry max_attempts must be at least 1; got " +
                               std::to_string(options_.max_attempts));
  }
  if (options_.base_delay.count() < 0 || options_.max_delay < options_.base_delay) {
    throw Error::configuration(
        "retry delays must satisfy 0 <= base_delay <= max_delay");
  }
}

bool RetryPolicy::should_retry(const Error& error, int attempt, bool idempotent) const {
  if (attempt >= options_.max_attempts) return false;
  switch (error.code()) {
    case ErrorCode::Throttled:
    case ErrorCode::ServiceUnavailable:
    case ErrorCode::NetworkError:
      return true;
    case ErrorCode::UnknownOutcome:
      return idempotent;
    case ErrorCode::TransactionCanceled:
      return only_conflicts(error);
    default:
      return false;
  }
}

std::chrono::milliseconds RetryPolicy::backoff(int attempt) const {
  // base × 2^attempt, computed without overflow: past the cap it is the cap.
  std::int64_t ceiling = options_.max_delay.count();
  std::int64_t window = options_.base_delay.count();
  for (int i = 0; i < std::max(attempt, 0) && window < ceiling; ++i) window *= 2;
  window = std::min(window, ceiling);
  std::uniform_int_distribution<std::int64_t> pick(0, window);
  return std::chrono::milliseconds(pick(jitter_source()));
}

}  // namespace stowage::aws
