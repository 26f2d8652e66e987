// RetryPolicy: which failures are worth another attempt and how long to
// wait: capped exponential backoff with full jitter
// (sleep = random(0, min(cap, base × 2^attempt))), a bounded number of
// attempts. Shared by the DynamoDB engine (through RetryingEngine) and the
// S3 service. Thread-safe: the jitter source is per thread.
#pragma once

#include <chrono>
#include <cstdint>

#include "stowage/error.h"

namespace stowage::aws {

struct RetryOptions {
  int max_attempts = 8;  // including the first
  std::chrono::milliseconds base_delay{25};
  std::chrono::milliseconds max_delay{2000};
};

class RetryPolicy {
 public:
  explicit RetryPolicy(RetryOptions options = {});

  // Throttled, ServiceUnavailable, NetworkError, UnknownOutcome, and a
  // TransactionCanceled whose reasons include only TransactionConflict/None.
  // UnknownOutcome is retryable only for idempotent requests (a transaction
  // carrying a ClientRequestToken, reads, unconditional puts/deletes); the
  // caller says which.
  bool should_retry(const Error& error, int attempt, bool idempotent) const;
  // The delay before attempt `attempt + 1` (attempt counts from 1).
  std::chrono::milliseconds backoff(int attempt) const;

  const RetryOptions& options() const { return options_; }

 private:
  RetryOptions options_;
};

}  // namespace stowage::aws
