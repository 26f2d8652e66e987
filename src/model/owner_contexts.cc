#include "model/owner_contexts.h"

#include <utility>

#include "ledger/transfer.h"

namespace stowage::model {

ledger::OwnerContext OwnerContexts::set_context(const OwnerRef& owner,
                                                std::optional<std::string> account_id,
                                                std::optional<std::string> board_id,
                                                const ChangeContext& context) const {
  schema_.keys().owner_partition(owner.record_type, owner.record_id);
  return ledger::assign_owner(
      engine_, schema_, {owner.record_type, owner.record_id},
      {std::move(account_id), std::move(board_id), context.actor_id, context.request_id});
}

ledger::OwnerContext OwnerContexts::find(const OwnerRef& owner) const {
  return ledger::read_owner_context(engine_, schema_, {owner.record_type, owner.record_id});
}

}  // namespace stowage::model
