// TrackedWorkload: random tracked attachment changes and transfers through
// the model, over a few owners, accounts and boards — shared by the ledger's
// model stress test and the crash workload, which check DESIGN I4 on what
// it leaves behind.
//
// Operations: attach to a many and to a one (a replace), attach_many,
// replace, detach, purge, destroy_owner, uploads of new blobs, untracked
// attaches, and transfers of an owner to another account or board (or to
// none). Failures a caller can act on (a blob purged meanwhile, retries
// exhausted, contention) are counted; any other error is kept as unexpected.
//
// Thread safety: safe for concurrent use; the model objects must outlive it.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ledger/ledger_keys.h"
#include "model/attachments.h"
#include "model/blob_store.h"
#include "model/owner_contexts.h"
#include "service/service.h"
#include "stowage/error.h"

namespace stowage::ledger::testing {

// "image" is a one whose old blobs are purged by a job; "notes" is never
// counted.
inline constexpr const char* kTrackedDefinitions = R"(
[[attachments]]
record_type = "Card"
name = "files"
dependent = "detach"

[[attachments]]
record_type = "Card"
name = "image"
cardinality = "one"
dependent = "purge_later"

[[attachments]]
record_type = "Card"
name = "notes"
dependent = "detach"
track_storage = false
)";

inline const std::vector<std::string>& workload_accounts() {
  static const std::vector<std::string> ids = {"a1", "a2"};
  return ids;
}
inline const std::vector<std::string>& workload_boards() {
  static const std::vector<std::string> ids = {"b1", "b2", "b3"};
  return ids;
}
inline std::vector<Ledger> workload_ledgers() {
  std::vector<Ledger> ledgers;
  for (const std::string& id : workload_accounts()) ledgers.push_back(Ledger::account(id));
  for (const std::string& id : workload_boards()) ledgers.push_back(Ledger::board(id));
  return ledgers;
}
inline std::vector<model::OwnerRef> workload_owners() {
  std::vector<model::OwnerRef> owners;
  for (int i = 1; i <= 6; ++i) owners.push_back({"Card", std::to_string(i)});
  return owners;
}

// Failures an operation may end with under faults and races.
inline bool expected_failure(ErrorCode code) {
  switch (code) {
    case ErrorCode::RecordNotFound:       // the blob was purged meanwhile
    case ErrorCode::TransactionCanceled:  // rows or context kept changing
    case ErrorCode::UnknownOutcome:       // an answer lost, not retryable
    case ErrorCode::Throttled:            // retries exhausted
    case ErrorCode::ServiceUnavailable:
      return true;
    default:
      return false;
  }
}

class TrackedWorkload {
 public:
  TrackedWorkload(model::Attachments& attachments, model::OwnerContexts& contexts,
                  model::BlobStore& blobs)
      : attachments_(attachments), contexts_(contexts), blobs_(blobs) {}

  // One random operation; the error code it failed with, if any.
  std::optional<ErrorCode> run_one(std::mt19937_64& random) {
    try {
      operate(random);
      return std::nullopt;
    } catch (const Error& error) {
      if (!expected_failure(error.code())) {
        std::lock_guard lock(mutex_);
        unexpected_.push_back(error.what());
      }
      return error.code();
    }
  }

  // A new blob of 1 to 8,000 bytes, shared from now on.
  std::string upload(std::mt19937_64& random) {
    const std::string bytes(1 + pick(random, 8000), static_cast<char>('a' + pick(random, 26)));
    service::StringSource source(bytes);
    const model::Blob blob = blobs_.create_and_upload(source, {"tracked.bin", "", {}, ""});
    std::lock_guard lock(mutex_);
    pool_.push_back(blob.id);
    return blob.id;
  }

  std::vector<std::string> unexpected() const {
    std::lock_guard lock(mutex_);
    return unexpected_;
  }

 private:
  void operate(std::mt19937_64& random) {
    static const std::vector<model::OwnerRef> owners = workload_owners();
    const model::OwnerRef& owner = owners[pick(random, owners.size())];
    const model::ChangeContext context{"worker", "req-" + std::to_string(random() % 100000)};
    const std::size_t roll = pick(random, 100);
    if (roll < 28) {
      attachments_.attach(owner, "files", some_blob(random), context);
    } else if (roll < 36) {
      attachments_.attach(owner, "image", some_blob(random), context);
    } else if (roll < 42) {
      attachments_.attach(owner, "notes", some_blob(random), context);
    } else if (roll < 50) {
      attachments_.attach_many(owner, "files", some_blobs(random, 1, 4), context);
    } else if (roll < 57) {
      attachments_.replace(owner, "files", some_blobs(random, 0, 3), context);
    } else if (roll < 70) {
      const char* name = pick(random, 4) == 0 ? "notes" : "files";
      attachments_.detach(owner, name, some_row(random, owner, name), context);
    } else if (roll < 74) {
      attachments_.purge(owner, "image", std::nullopt, context);
    } else if (roll < 90) {
      transfer(random, owner, context);
    } else if (roll < 94) {
      attachments_.destroy_owner(owner, context);
    } else {
      upload(random);
    }
  }

  // Another account or board, now and then none.
  void transfer(std::mt19937_64& random, const model::OwnerRef& owner,
                const model::ChangeContext& context) {
    const auto& accounts = workload_accounts();
    const auto& boards = workload_boards();
    std::optional<std::string> account = accounts[pick(random, accounts.size())];
    std::optional<std::string> board = boards[pick(random, boards.size())];
    if (pick(random, 10) == 0) board.reset();
    if (pick(random, 20) == 0) account.reset();
    contexts_.set_context(owner, account, board, context);
  }

  static std::size_t pick(std::mt19937_64& random, std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  }

  std::string some_blob(std::mt19937_64& random) {
    {
      std::lock_guard lock(mutex_);
      if (!pool_.empty() && pick(random, 8) != 0) return pool_[pick(random, pool_.size())];
    }
    return upload(random);
  }

  std::vector<std::string> some_blobs(std::mt19937_64& random, std::size_t least,
                                      std::size_t most) {
    std::vector<std::string> ids(least + pick(random, most - least + 1));
    for (std::string& id : ids) id = some_blob(random);
    return ids;
  }

  // One of the owner's rows of `name` half the time, else every row (nullopt).
  std::optional<std::string> some_row(std::mt19937_64& random, const model::OwnerRef& owner,
                                      const char* name) {
    if (pick(random, 2) == 0) return std::nullopt;
    const std::vector<model::Attachment> rows = attachments_.list(owner, name).attachments;
    if (rows.empty()) return std::nullopt;
    return rows[pick(random, rows.size())].id;
  }

  model::Attachments& attachments_;
  model::OwnerContexts& contexts_;
  model::BlobStore& blobs_;
  mutable std::mutex mutex_;
  std::vector<std::string> pool_;        // guarded by mutex_
  std::vector<std::string> unexpected_;  // guarded by mutex_
};

}  // namespace stowage::ledger::testing
