// JobHandlers: what each job type does, by type name.
//
// A handler runs one claimed job. How it ends decides the job's fate:
//   returns                          the job is complete (deleted)
//   throws Error(RecordNotFound)     its target is gone and the job can never
//                                    succeed: discarded, not retried
//   throws anything else             retried later with a backoff
// A job whose type has no handler here is retried like a failure (a newer
// process sharing the table may know it) and dead-lettered in the end.
// Handlers may run more than once for one job (JobQueue is at-least-once)
// and on several threads at once.
//
// Thread safety: add() while no worker uses the registry; find() from any
// number of threads.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "model/outbox.h"

namespace stowage::jobs {

using JobHandler = std::function<void(const model::Job&)>;

class JobHandlers {
 public:
  // Throws Error(ConfigurationError) when `type` already has a handler: two
  // layers claiming one job type is a wiring mistake.
  void add(std::string_view type, JobHandler handler);

  // nullptr when no handler is registered for `type`.
  const JobHandler* find(std::string_view type) const;

 private:
  std::map<std::string, JobHandler, std::less<>> handlers_;
};

}  // namespace stowage::jobs
