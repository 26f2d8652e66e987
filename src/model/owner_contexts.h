// OwnerContexts: which account and board an owner's tracked bytes count for
// (the owner context item, ledger/owner_context.h), set through the model.
//
// set_context gives an owner an account and a board. When either changes
// it is a board (or account) transfer: ONE transaction, conditioned on the
// context's version, that moves the owner's tracked bytes with
// transfer_out / transfer_in entries (ledger/transfer.h). A tracked change
// racing it is conditioned on the account and board it read, so its bytes
// are counted on exactly one side. Setting what is already set writes
// nothing; safe to repeat.
//
// Requests: 1 GetItem + 1 transaction (+ 1 round per tracked change of the
// owner that commits in between).
//
// Thread safety: safe for concurrent use; the engine and schema must outlive it.
#pragma once

#include <optional>
#include <string>

#include "ledger/owner_context.h"
#include "model/change_context.h"
#include "model/records.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::model {

class OwnerContexts {
 public:
  // REQUIRES: `engine` and `schema` outlive this object.
  OwnerContexts(table::Engine& engine, const schema::TableSchema& schema)
      : engine_(engine), schema_(schema) {}

  // nullopt: no account / no board. Returns the context as it now is.
  // Throws Error(InvalidKey) for a blank or separator-holding id, before any
  // request.
  ledger::OwnerContext set_context(const OwnerRef& owner,
                                   std::optional<std::string> account_id,
                                   std::optional<std::string> board_id,
                                   const ChangeContext& context = {}) const;

  // A consistent read; an owner never given one has no account, no board
  // and no tracked bytes.
  ledger::OwnerContext find(const OwnerRef& owner) const;

 private:
  table::Engine& engine_;
  const schema::TableSchema& schema_;
};

}  // namespace stowage::model
