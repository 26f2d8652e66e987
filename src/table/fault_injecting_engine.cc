#include "table/fault_injecting_engine.h"

#include <string>
#include <utility>
#include <vector>

#include "stowage/error.h"

namespace stowage::table {

namespace {

void check_probability(const char* name, double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw Error(ErrorCode::ConfigurationError,
                std::string("fault probability ") + name + " = " +
                    std::to_string(p) + " is outside [0, 1]");
  }
}

}  // namespace

FaultInjectingEngine::FaultInjectingEngine(std::shared_ptr<Engine> inner,
                                           FaultOptions options)
    : inner_(std::move(inner)), options_(options), random_(options.seed) {
  check_probability("throttle", options_.throttle);
  check_probability("server_error", options_.server_error);
  check_probability("conflict", options_.conflict);
  check_probability("timeout_before", options_.timeout_before);
  check_probability("timeout_after", options_.timeout_after);
  const double sum = options_.throttle + options_.server_error +
                     options_.conflict + options_.timeout_before +
                     options_.timeout_after;
  if (sum > 1.0 + 1e-9) {
    throw Error(ErrorCode::ConfigurationError,
                "fault probabilities sum to " + std::to_string(sum) +
                    "; at most one fault is injected per call, so the sum "
                    "must not exceed 1");
  }
}

void FaultInjectingEngine::set_before_write_hook(WriteHook hook) {
  std::lock_guard lock(mutex_);
  write_hook_ = std::move(hook);
}

void FaultInjectingEngine::set_after_query_hook(QueryHook hook) {
  std::lock_guard lock(mutex_);
  query_hook_ = std::move(hook);
}

FaultCounts FaultInjectingEngine::injected() const {
  FaultCounts counts;
  counts.throttle = throttles_.load();
  counts.server_error = server_errors_.load();
  counts.conflict = conflicts_.load();
  counts.timeout_before = timeouts_before_.load();
  counts.timeout_after = timeouts_after_.load();
  return counts;
}

FaultInjectingEngine::Draw FaultInjectingEngine::draw(
    std::size_t transaction_actions) {
  std::lock_guard lock(mutex_);
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  if (options_.max_faults && faults_ >= *options_.max_faults) return {};
  // One draw against consecutive slices of [0, 1), so each kind keeps its
  // own probability. The conflict slice is empty for non-transactions.
  const std::pair<double, Fault> slices[] = {
      {options_.throttle, Fault::Throttle},
      {options_.server_error, Fault::ServerError},
      {transaction_actions > 0 ? options_.conflict : 0.0, Fault::Conflict},
      {options_.timeout_before, Fault::TimeoutBefore},
      {options_.timeout_after, Fault::TimeoutAfter},
  };
  double edge = 0.0;
  for (const auto& [probability, fault] : slices) {
    edge += probability;
    if (u < edge) {
      ++faults_;
      Draw result{fault, 0};
      if (fault == Fault::Conflict) {
        result.conflicting_action = std::uniform_int_distribution<std::size_t>(
            0, transaction_actions - 1)(random_);
      }
      return result;
    }
  }
  return {};
}

template <typename Call>
auto FaultInjectingEngine::inject(std::string_view operation, bool is_write,
                                  std::size_t transaction_actions,
                                  Call&& call) {
  const bool drawn = is_write || options_.reads_too;
  const Draw d = drawn ? draw(transaction_actions) : Draw{};
  const std::string op(operation);
  switch (d.fault) {
    case Fault::None:
    case Fault::TimeoutAfter:
      break;
    case Fault::Throttle:
      ++throttles_;
      throw Error(ErrorCode::Throttled,
                  "injected fault: " + op + " throttled (rate of requests "
                  "exceeds the allowed throughput)");
    case Fault::ServerError:
      ++server_errors_;
      throw Error(ErrorCode::ServiceUnavailable,
                  "injected fault: " + op + " got HTTP 503 from the service");
    case Fault::Conflict: {
      ++conflicts_;
      std::vector<CancellationReason> reasons(transaction_actions,
                                              CancellationReason{"None", ""});
      reasons[d.conflicting_action] = {
          "TransactionConflict",
          "Transaction is ongoing for the item (injected fault)"};
      throw Error(ErrorCode::TransactionCanceled,
                  "injected fault: transaction canceled; action " +
                      std::to_string(d.conflicting_action) +
                      " conflicts with another transaction",
                  std::move(reasons));
    }
    case Fault::TimeoutBefore:
      ++timeouts_before_;
      throw Error(ErrorCode::UnknownOutcome,
                  "injected fault: " + op +
                      " timed out (request lost before the service)");
  }
  if (is_write) {
    WriteHook hook;
    {
      std::lock_guard lock(mutex_);
      hook = write_hook_;
    }
    if (hook) hook(operation);
  }
  if (d.fault != Fault::TimeoutAfter) return call();
  call();
  ++timeouts_after_;
  throw Error(ErrorCode::UnknownOutcome,
              "injected fault: " + op +
                  " timed out (the service applied it; the answer was lost)");
}

void FaultInjectingEngine::create_table(const TableDescription& description) {
  inner_->create_table(description);
}

void FaultInjectingEngine::delete_table(std::string_view table) {
  inner_->delete_table(table);
}

TableDescription FaultInjectingEngine::describe(std::string_view table) {
  return inner_->describe(table);
}

std::optional<Item> FaultInjectingEngine::get(const GetRequest& request) {
  return inject("get", false, 0, [&] { return inner_->get(request); });
}

std::optional<Item> FaultInjectingEngine::put(const PutRequest& request) {
  return inject("put", true, 0, [&] { return inner_->put(request); });
}

std::optional<Item> FaultInjectingEngine::remove(const DeleteRequest& request) {
  return inject("remove", true, 0, [&] { return inner_->remove(request); });
}

std::optional<Item> FaultInjectingEngine::update(const UpdateRequest& request) {
  return inject("update", true, 0, [&] { return inner_->update(request); });
}

QueryResult FaultInjectingEngine::query(const QueryRequest& request) {
  QueryResult result = inject("query", false, 0, [&] { return inner_->query(request); });
  QueryHook hook;
  {
    std::lock_guard lock(mutex_);
    hook = query_hook_;
  }
  if (hook) hook(request);
  return result;
}

QueryResult FaultInjectingEngine::scan(const ScanRequest& request) {
  return inject("scan", false, 0, [&] { return inner_->scan(request); });
}

void FaultInjectingEngine::transact_write(const TransactWriteRequest& request) {
  inject("transact_write", true, request.actions.size(),
         [&] { inner_->transact_write(request); });
}

}  // namespace stowage::table
