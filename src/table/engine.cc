#include "table/engine.h"

namespace stowage::table {

SequenceResult Engine::transact_write_sequence(
    std::span<const TransactWriteRequest> requests) {
  SequenceResult result;
  for (const TransactWriteRequest& request : requests) {
    try {
      transact_write(request);
    } catch (const Error& error) {
      result.failure = error;
      return result;
    }
    ++result.committed;
  }
  return result;
}

}  // namespace stowage::table
