#include "jobs/job_handlers.h"

#include <utility>

#include "stowage/error.h"

namespace stowage::jobs {

void JobHandlers::add(std::string_view type, JobHandler handler) {
  if (!handler) {
    throw Error::configuration("job type \"" + std::string(type) +
                               "\" registered without a handler");
  }
  if (!handlers_.emplace(std::string(type), std::move(handler)).second) {
    throw Error::configuration("job type \"" + std::string(type) +
                               "\" already has a handler");
  }
}

const JobHandler* JobHandlers::find(std::string_view type) const {
  const auto it = handlers_.find(type);
  return it == handlers_.end() ? nullptr : &it->second;
}

}  // namespace stowage::jobs
