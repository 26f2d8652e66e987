#include "table/counting_engine.h"

#include <utility>

namespace stowage::table {

CountingEngine::CountingEngine(std::shared_ptr<Engine> inner)
    : inner_(std::move(inner)) {}

CallCounts CountingEngine::counts() const {
  CallCounts counts;
  counts.get = get_.load();
  counts.put = put_.load();
  counts.remove = remove_.load();
  counts.update = update_.load();
  counts.query = query_.load();
  counts.scan = scan_.load();
  counts.transact_write = transact_write_.load();
  counts.transact_write_sequence = transact_write_sequence_.load();
  counts.describe = describe_.load();
  counts.create_table = create_table_.load();
  counts.delete_table = delete_table_.load();
  return counts;
}

void CountingEngine::reset() {
  for (auto* counter : {&get_, &put_, &remove_, &update_, &query_, &scan_,
                        &transact_write_, &transact_write_sequence_, &describe_, &create_table_,
                        &delete_table_}) {
    counter->store(0);
  }
}

void CountingEngine::create_table(const TableDescription& description) {
  ++create_table_;
  inner_->create_table(description);
}

void CountingEngine::delete_table(std::string_view table) {
  ++delete_table_;
  inner_->delete_table(table);
}

TableDescription CountingEngine::describe(std::string_view table) {
  ++describe_;
  return inner_->describe(table);
}

std::optional<Item> CountingEngine::get(const GetRequest& request) {
  ++get_;
  return inner_->get(request);
}

std::optional<Item> CountingEngine::put(const PutRequest& request) {
  ++put_;
  return inner_->put(request);
}

std::optional<Item> CountingEngine::remove(const DeleteRequest& request) {
  ++remove_;
  return inner_->remove(request);
}

std::optional<Item> CountingEngine::update(const UpdateRequest& request) {
  ++update_;
  return inner_->update(request);
}

QueryResult CountingEngine::query(const QueryRequest& request) {
  ++query_;
  return inner_->query(request);
}

QueryResult CountingEngine::scan(const ScanRequest& request) {
  ++scan_;
  return inner_->scan(request);
}

void CountingEngine::transact_write(const TransactWriteRequest& request) {
  ++transact_write_;
  inner_->transact_write(request);
}

SequenceResult CountingEngine::transact_write_sequence(
    std::span<const TransactWriteRequest> requests) {
  ++transact_write_sequence_;
  return inner_->transact_write_sequence(requests);
}

}  // namespace stowage::table
