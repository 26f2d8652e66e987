// RetryingEngine: an Engine that retries another engine's retryable failures
// (throttling, 5xx, network errors, transaction conflicts, and unknown
// outcomes of idempotent requests) per an aws::RetryPolicy, sleeping its
// jittered backoff between attempts. The production DynamoDB stack is
// RetryingEngine over the dynamodb engine, which itself tries once.
//
// Transactions: an empty client_request_token is filled with a fresh UUID
// once, before the first attempt, so every retry carries the same token and
// a transaction whose first attempt applied without an answer applies once.
// This is the only place tokens are generated.
//
// Sequences (transact_write_sequence) are retried from the first transaction
// that did not commit. They keep the tokens their caller gave: a sequence
// whose transactions all carry one is retried after an unknown outcome too;
// any other returns the unknown outcome (a materialization needs no token:
// its version condition makes a repeat fail harmlessly).
//
// Unknown outcomes are retried only where running the request twice is
// harmless: reads, describe, transactions (they always carry a token here),
// and unconditional puts and deletes that return no old image. An update
// (ADD would count twice), a conditional write (the retry would see its own
// effect and fail) and create/delete table rethrow UnknownOutcome.
//
// Thread safety: safe for concurrent use when the inner engine is.
#pragma once

#include <memory>

#include "aws/retry_policy.h"
#include "table/engine.h"

namespace stowage::table {

class RetryingEngine : public Engine {
 public:
  explicit RetryingEngine(std::shared_ptr<Engine> inner,
                          aws::RetryPolicy policy = aws::RetryPolicy());

  void create_table(const TableDescription& description) override;
  void delete_table(std::string_view table) override;
  TableDescription describe(std::string_view table) override;
  std::optional<Item> get(const GetRequest& request) override;
  std::optional<Item> put(const PutRequest& request) override;
  std::optional<Item> remove(const DeleteRequest& request) override;
  std::optional<Item> update(const UpdateRequest& request) override;
  QueryResult query(const QueryRequest& request) override;
  QueryResult scan(const ScanRequest& request) override;
  void transact_write(const TransactWriteRequest& request) override;
  SequenceResult transact_write_sequence(
      std::span<const TransactWriteRequest> requests) override;

 private:
  // Calls `attempt` until it succeeds or the policy gives up, then rethrows
  // the last error.
  template <typename Attempt>
  auto with_retries(bool idempotent, Attempt&& attempt);

  std::shared_ptr<Engine> inner_;
  aws::RetryPolicy policy_;
};

}  // namespace stowage::table
