// The dynamodb engine: the table contract over DynamoDB's JSON protocol
// (POST / with X-Amz-Target: DynamoDB_20120810.<Operation>, SigV4-signed),
// for Amazon DynamoDB and compatible servers such as moto.
//
// Every request is validated with table/validation.h before any I/O, against
// the table's description, fetched once with DescribeTable and cached, so
// that a request the embedded engines reject is rejected here identically
// and never reaches the network. DynamoDB's errors are decoded to
// stowage::Error codes; a TransactionCanceled carries one reason per action.
//
// One HTTP exchange per Engine call and no retries: production code wraps it
// in RetryingEngine, which also fills in a ClientRequestToken for every
// transaction; this engine sends the token it is given.
//
// Thread safety: safe for concurrent use (the description cache is locked,
// the HttpClient is thread-safe, everything else is immutable).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "aws/credentials.h"
#include "aws/http_client.h"
#include "table/engine.h"

namespace stowage::table {

struct DynamoDbOptions {
  std::string endpoint;   // empty: aws::resolve_endpoint("dynamodb", region)
  std::string region;     // empty: aws::resolve_region()
  std::optional<aws::Credentials> credentials;   // empty: aws::resolve_credentials()
  std::shared_ptr<aws::HttpClient> http;          // empty: aws::make_curl_http_client()
};

// Resolves the endpoint, region and credentials now: a configuration error
// (bad endpoint URL, no credentials anywhere) throws here, not on first use.
std::unique_ptr<Engine> make_dynamodb_engine(const DynamoDbOptions& options);

}  // namespace stowage::table
