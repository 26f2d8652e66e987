// Idempotency of transact_write in the embedded engines: a transaction that
// carries a client_request_token is remembered for
// limits::kIdempotencyWindowSeconds with a fingerprint of its actions, so a
// repeat applies once and a different request under the same token is told
// apart (IdempotentParameterMismatch), as DynamoDB does.
// Plain value type and pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "table/requests.h"

namespace stowage::table {

struct IdempotencyRecord {
  std::string fingerprint;  // transaction_fingerprint() of the request
  std::int64_t expires_at = 0;  // seconds since the epoch
};

// A digest of the request's actions (not its token): equal for equal
// requests, different for requests that differ in any table, key, item,
// condition or update.
std::string transaction_fingerprint(const TransactWriteRequest& request);

}  // namespace stowage::table
