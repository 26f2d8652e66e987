// ChangeContext: who asked for a change, recorded on the storage ledger's
// entries for the audit trail (ledger/ledger_entry.h: as_actor_id,
// as_request_id). Both are optional and free-form; the model never
// interprets them.
//
// Plain value type; thread-compatible.
#pragma once

#include <optional>
#include <string>

namespace stowage::model {

struct ChangeContext {
  std::optional<std::string> actor_id;
  std::optional<std::string> request_id;
};

}  // namespace stowage::model
