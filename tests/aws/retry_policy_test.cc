#include "aws/retry_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>

namespace stowage::aws {
namespace {

using std::chrono::milliseconds;

Error canceled(std::vector<std::string> codes) {
  std::vector<CancellationReason> reasons;
  for (std::string& code : codes) reasons.push_back({std::move(code), ""});
  return Error(ErrorCode::TransactionCanceled, "canceled", std::move(reasons));
}

TEST(RetryPolicy, TransientErrorsAreRetried) {
  RetryPolicy policy;
  for (ErrorCode code :
       {ErrorCode::Throttled, ErrorCode::ServiceUnavailable, ErrorCode::NetworkError}) {
    EXPECT_TRUE(policy.should_retry(Error(code, "x"), 1, false)) << to_string(code);
    EXPECT_TRUE(policy.should_retry(Error(code, "x"), 1, true)) << to_string(code);
  }
}

TEST(RetryPolicy, UnknownOutcomeOnlyWhenIdempotent) {
  RetryPolicy policy;
  Error error(ErrorCode::UnknownOutcome, "timeout");
  EXPECT_TRUE(policy.should_retry(error, 1, true));
  EXPECT_FALSE(policy.should_retry(error, 1, false));
}

TEST(RetryPolicy, TransactionConflictsOnly) {
  RetryPolicy policy;
  EXPECT_TRUE(policy.should_retry(canceled({"None", "TransactionConflict"}), 1, false));
  EXPECT_FALSE(policy.should_retry(canceled({"ConditionalCheckFailed", "TransactionConflict"}),
                                   1, false));
  EXPECT_FALSE(policy.should_retry(canceled({"None", "None"}), 1, false));
  EXPECT_FALSE(policy.should_retry(canceled({}), 1, false));
}

TEST(RetryPolicy, PermanentErrorsAreNotRetried) {
  RetryPolicy policy;
  for (ErrorCode code :
       {ErrorCode::ConditionalCheckFailed, ErrorCode::ValidationError, ErrorCode::AccessDenied,
        ErrorCode::ResourceNotFound, ErrorCode::MalformedResponse, ErrorCode::ItemTooLarge,
        ErrorCode::ConfigurationError}) {
    EXPECT_FALSE(policy.should_retry(Error(code, "x"), 1, true)) << to_string(code);
  }
}

TEST(RetryPolicy, AttemptsAreBounded) {
  RetryPolicy policy(RetryOptions{3, milliseconds(1), milliseconds(10)});
  Error error(ErrorCode::Throttled, "slow down");
  EXPECT_TRUE(policy.should_retry(error, 1, true));
  EXPECT_TRUE(policy.should_retry(error, 2, true));
  EXPECT_FALSE(policy.should_retry(error, 3, true));
  EXPECT_FALSE(policy.should_retry(error, 4, true));
}

TEST(RetryPolicy, BackoffIsFullJitterWithinTheCappedWindow) {
  RetryPolicy policy(RetryOptions{8, milliseconds(25), milliseconds(2000)});
  for (int attempt = 1; attempt <= 12; ++attempt) {
    long window = std::min<long>(2000, 25L << attempt);
    std::set<long> seen;
    long largest = 0;
    for (int i = 0; i < 2000; ++i) {
      long delay = policy.backoff(attempt).count();
      ASSERT_GE(delay, 0) << "attempt " << attempt;
      ASSERT_LE(delay, window) << "attempt " << attempt;
      seen.insert(delay);
      largest = std::max(largest, delay);
    }
    // Jittered, not fixed: many distinct values, reaching the upper half.
    EXPECT_GT(seen.size(), 20u) << "attempt " << attempt;
    EXPECT_GT(largest, window / 2) << "attempt " << attempt;
  }
}

TEST(RetryPolicy, HugeAttemptNumbersDoNotOverflow) {
  RetryPolicy policy(RetryOptions{8, milliseconds(25), milliseconds(2000)});
  for (int i = 0; i < 100; ++i) {
    long delay = policy.backoff(1000).count();
    EXPECT_GE(delay, 0);
    EXPECT_LE(delay, 2000);
  }
}

TEST(RetryPolicy, InvalidOptionsAreRejected) {
  EXPECT_THROW(RetryPolicy(RetryOptions{0, milliseconds(1), milliseconds(2)}), Error);
  EXPECT_THROW(RetryPolicy(RetryOptions{3, milliseconds(10), milliseconds(2)}), Error);
}

}  // namespace
}  // namespace stowage::aws
