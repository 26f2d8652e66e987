// FaultInjectingEngine: an Engine that makes another engine fail the way
// DynamoDB does under load or a bad network, with seeded randomness so a
// failing test replays exactly (DESIGN §8; after LevelDB's
// fault_injection_test).
//
// Each data call draws once from a std::mt19937_64 seeded with
// FaultOptions::seed and injects at most one fault:
//   throttle        Throttled; the inner engine is not called
//   server_error    ServiceUnavailable; not called
//   conflict        transact_write only: TransactionCanceled with one action's
//                   reason "TransactionConflict" and the others "None", as
//                   DynamoDB reports a conflict with another transaction;
//                   not called
//   timeout_before  UnknownOutcome; not called (the request was lost)
//   timeout_after   the inner call runs, then UnknownOutcome (the write
//                   applied but its answer was lost)
// Writes (put, remove, update, transact_write) always draw; reads (get,
// query, scan) draw when `reads_too`. Table management (create, delete,
// describe) passes through untouched: it is set-up, not the data path under
// test.
//
// A write hook runs before every write reaches the inner engine, outside any
// lock, so a test can hold a commit (block in the hook) while another thread
// acts. A query hook runs after every query answered by the inner engine,
// before the caller sees the answer, so a test can commit a write in the
// middle of a read made of several requests.
//
// Thread safety: safe for concurrent use; the generator and the hooks are
// guarded by a mutex, the counters are atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string_view>

#include "table/engine.h"

namespace stowage::table {

struct FaultOptions {
  std::uint64_t seed = 0;
  // Probabilities per call; their sum must not exceed 1.
  double throttle = 0;
  double server_error = 0;
  double conflict = 0;
  double timeout_before = 0;
  double timeout_after = 0;
  bool reads_too = false;
  // After this many injected faults every call passes through ("fail the
  // first N calls" with probability 1).
  std::optional<std::uint64_t> max_faults;
};

// Faults injected so far, by kind.
struct FaultCounts {
  std::uint64_t throttle = 0;
  std::uint64_t server_error = 0;
  std::uint64_t conflict = 0;
  std::uint64_t timeout_before = 0;
  std::uint64_t timeout_after = 0;

  std::uint64_t total() const {
    return throttle + server_error + conflict + timeout_before + timeout_after;
  }
};

class FaultInjectingEngine : public Engine {
 public:
  // `operation` is "put", "remove", "update" or "transact_write".
  using WriteHook = std::function<void(std::string_view operation)>;

  // Throws Error(ConfigurationError) when a probability is outside [0, 1] or
  // their sum exceeds 1.
  FaultInjectingEngine(std::shared_ptr<Engine> inner, FaultOptions options);

  using QueryHook = std::function<void(const QueryRequest& request)>;

  // An empty hook removes it.
  void set_before_write_hook(WriteHook hook);
  void set_after_query_hook(QueryHook hook);
  FaultCounts injected() const;

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

 private:
  enum class Fault {
    None, Throttle, ServerError, Conflict, TimeoutBefore, TimeoutAfter
  };

  struct Draw {
    Fault fault = Fault::None;
    std::size_t conflicting_action = 0;  // for Fault::Conflict
  };

  // Draws this call's fault; a conflict only when `transaction_actions` > 0.
  Draw draw(std::size_t transaction_actions);
  // Runs `call` under a drawn fault: throws instead of calling it, or calls
  // it and throws after. `is_write` decides whether the hook runs.
  template <typename Call>
  auto inject(std::string_view operation, bool is_write,
              std::size_t transaction_actions, Call&& call);

  const std::shared_ptr<Engine> inner_;
  const FaultOptions options_;

  mutable std::mutex mutex_;
  std::mt19937_64 random_;   // guarded by mutex_
  WriteHook write_hook_;     // guarded by mutex_
  QueryHook query_hook_;     // guarded by mutex_
  std::uint64_t faults_ = 0; // guarded by mutex_; for max_faults

  std::atomic<std::uint64_t> throttles_{0};
  std::atomic<std::uint64_t> server_errors_{0};
  std::atomic<std::uint64_t> conflicts_{0};
  std::atomic<std::uint64_t> timeouts_before_{0};
  std::atomic<std::uint64_t> timeouts_after_{0};
};

}  // namespace stowage::table
