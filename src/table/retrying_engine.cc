#include "table/retrying_engine.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "common/uuid.h"

namespace stowage::table {

RetryingEngine::RetryingEngine(std::shared_ptr<Engine> inner,
                               aws::RetryPolicy policy)
    : inner_(std::move(inner)), policy_(std::move(policy)) {}

template <typename Attempt>
auto RetryingEngine::with_retries(bool idempotent, Attempt&& attempt) {
  for (int attempts = 1;; ++attempts) {
    try {
      return attempt();
    } catch (const Error& error) {
      if (!policy_.should_retry(error, attempts, idempotent)) throw;
    }
    std::this_thread::sleep_for(policy_.backoff(attempts));
  }
}

void RetryingEngine::create_table(const TableDescription& description) {
  // A create that applied without an answer would fail its retry with
  // ResourceInUse, hiding the success, so it is not idempotent.
  with_retries(false, [&] { inner_->create_table(description); });
}

void RetryingEngine::delete_table(std::string_view table) {
  with_retries(false, [&] { inner_->delete_table(table); });
}

TableDescription RetryingEngine::describe(std::string_view table) {
  return with_retries(true, [&] { return inner_->describe(table); });
}

std::optional<Item> RetryingEngine::get(const GetRequest& request) {
  return with_retries(true, [&] { return inner_->get(request); });
}

std::optional<Item> RetryingEngine::put(const PutRequest& request) {
  // A repeated unconditional put leaves the same item, but its old image
  // would be the item the first attempt wrote.
  const bool idempotent = !request.condition.has_value() &&
                          request.return_values == ReturnValues::None;
  return with_retries(idempotent, [&] { return inner_->put(request); });
}

std::optional<Item> RetryingEngine::remove(const DeleteRequest& request) {
  const bool idempotent = !request.condition.has_value() &&
                          request.return_values == ReturnValues::None;
  return with_retries(idempotent, [&] { return inner_->remove(request); });
}

std::optional<Item> RetryingEngine::update(const UpdateRequest& request) {
  return with_retries(false, [&] { return inner_->update(request); });
}

QueryResult RetryingEngine::query(const QueryRequest& request) {
  return with_retries(true, [&] { return inner_->query(request); });
}

QueryResult RetryingEngine::scan(const ScanRequest& request) {
  return with_retries(true, [&] { return inner_->scan(request); });
}

void RetryingEngine::transact_write(const TransactWriteRequest& request) {
  if (!request.client_request_token.empty()) {
    with_retries(true, [&] { inner_->transact_write(request); });
    return;
  }
  TransactWriteRequest tokened = request;
  tokened.client_request_token = uuid_v4();
  with_retries(true, [&] { inner_->transact_write(tokened); });
}

SequenceResult RetryingEngine::transact_write_sequence(
    std::span<const TransactWriteRequest> requests) {
  const bool idempotent =
      std::all_of(requests.begin(), requests.end(), [](const TransactWriteRequest& request) {
        return !request.client_request_token.empty();
      });
  SequenceResult done;
  for (int attempts = 1;; ++attempts) {
    SequenceResult result = inner_->transact_write_sequence(requests.subspan(done.committed));
    done.committed += result.committed;
    done.failure = std::move(result.failure);
    if (!done.failure) return done;
    if (result.committed > 0) attempts = 1;  // progress: the next failure is a first one
    if (!policy_.should_retry(*done.failure, attempts, idempotent)) return done;
    std::this_thread::sleep_for(policy_.backoff(attempts));
  }
}

}  // namespace stowage::table
