#include "table/update.h"

#include <utility>

namespace stowage::table {

Update& Update::set(std::string attribute, Value value) {
  actions_.push_back(update_action::Set{std::move(attribute), std::move(value)});
  return *this;
}

Update& Update::set_if_not_exists(std::string attribute, Value value) {
  actions_.push_back(update_action::Set{std::move(attribute), std::move(value),
                                        /*if_not_exists=*/true});
  return *this;
}

Update& Update::add(std::string attribute, Value value) {
  actions_.push_back(update_action::Add{std::move(attribute), std::move(value)});
  return *this;
}

Update& Update::remove(std::string attribute) {
  actions_.push_back(update_action::Remove{std::move(attribute)});
  return *this;
}

}  // namespace stowage::table
