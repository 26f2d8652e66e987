// CountingEngine: an Engine that counts the calls made to another engine, by
// operation, so tests and benchmarks can assert how many requests a
// higher-level operation costs (e.g. "bytes_used is one point read"). A call
// is counted when it is made, whether or not it succeeds.
//
// Thread safety: safe for concurrent use when the inner engine is; counters
// are atomic, and counts() is a snapshot that may be mid-way through
// concurrent calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "table/engine.h"

namespace stowage::table {

struct CallCounts {
  std::uint64_t get = 0;
  std::uint64_t put = 0;
  std::uint64_t remove = 0;
  std::uint64_t update = 0;
  std::uint64_t query = 0;
  std::uint64_t scan = 0;
  std::uint64_t transact_write = 0;
  std::uint64_t transact_write_sequence = 0;  // calls, whatever their length
  std::uint64_t describe = 0;
  std::uint64_t create_table = 0;
  std::uint64_t delete_table = 0;

  std::uint64_t total() const {
    return get + put + remove + update + query + scan + transact_write +
           transact_write_sequence + describe + create_table + delete_table;
  }
  friend bool operator==(const CallCounts&, const CallCounts&) = default;
};

class CountingEngine : public Engine {
 public:
  explicit CountingEngine(std::shared_ptr<Engine> inner);

  CallCounts counts() const;
  void reset();

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
  const std::shared_ptr<Engine> inner_;

  std::atomic<std::uint64_t> get_{0};
  std::atomic<std::uint64_t> put_{0};
  std::atomic<std::uint64_t> remove_{0};
  std::atomic<std::uint64_t> update_{0};
  std::atomic<std::uint64_t> query_{0};
  std::atomic<std::uint64_t> scan_{0};
  std::atomic<std::uint64_t> transact_write_{0};
  std::atomic<std::uint64_t> transact_write_sequence_{0};
  std::atomic<std::uint64_t> describe_{0};
  std::atomic<std::uint64_t> create_table_{0};
  std::atomic<std::uint64_t> delete_table_{0};
};

}  // namespace stowage::table
