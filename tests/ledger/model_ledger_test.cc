// The storage ledger through the model (DESIGN §5.1, I4): tracked attach,
// detach, replace, purge and destroy-owner through model::Attachments write
// their entries in the same transaction, with the operation, delta, account,
// board, owner, blobs, attachments and actor of the change; untracked rows
// are never counted; transfers through model::OwnerContexts move an owner's
// bytes; quotas refuse a change before any write. Every case ends with the
// whole-table invariant check (I1-I5). Runs on sqlite and on DynamoDB
// (moto), Mode A and Mode B.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/uuid.h"
#include "jobs/job_handlers.h"
#include "jobs/model_jobs.h"
#include "ledger/ledger_entry.h"
#include "ledger/ledger_keys.h"
#include "ledger/quota.h"
#include "ledger/reconcile.h"
#include "ledger/totals.h"
#include "ledger/tracked_workload.h"
#include "ledger/transfer.h"
#include "model/attachments.h"
#include "model/definitions.h"
#include "model/item_conversion.h"
#include "model/model_fixture.h"
#include "model/outbox.h"
#include "model/owner_contexts.h"
#include "model/storage_tracking.h"
#include "support/invariants.h"
#include "support/workload.h"
#include "table/fault_injecting_engine.h"

namespace stowage::model {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using ledger::Ledger;
using ledger::LedgerEntry;
using ledger::Operation;

constexpr const char* kDefinitions = R"(
[[attachments]]
record_type = "Card"
name = "image"
cardinality = "one"
dependent = "purge_later"

[[attachments]]
record_type = "Card"
name = "files"
dependent = "detach"

[[attachments]]
record_type = "Card"
name = "notes"
dependent = "detach"
track_storage = false
)";

const Ledger kAccount = Ledger::account("a1");
const Ledger kBoard1 = Ledger::board("b1");
const Ledger kBoard2 = Ledger::board("b2");

std::vector<ModelParam> durable_params() {
  std::vector<ModelParam> params;
  for (const char* engine : {"sqlite", "dynamodb"}) {
    params.emplace_back(engine, table::KeyLayout::ModeA);
    params.emplace_back(engine, table::KeyLayout::ModeB);
  }
  return params;
}

class ModelLedgerTest : public ModelTest {
 protected:
  void SetUp() override {
    ModelTest::SetUp();
    if (HasFatalFailure()) return;
    attachments_.emplace(*engine_, *schema_, definitions_, *store_);
    contexts_.emplace(*engine_, *schema_);
  }

  ledger::Totals totals() const { return ledger::Totals(*engine_, *schema_); }

  std::vector<LedgerEntry> entries_under(const std::string& h, const std::string& prefix) {
    std::vector<LedgerEntry> entries;
    table::QueryRequest request = schema_->listing_query(h, prefix);
    for (;;) {
      table::QueryResult page = engine_->query(request);
      for (const table::Item& item : page.items) entries.push_back(ledger::entry_from_item(item));
      if (!page.last_evaluated_key) return entries;
      request.exclusive_start_key = page.last_evaluated_key;
    }
  }
  // The ledger's pending entries, oldest first.
  std::vector<LedgerEntry> pending(const Ledger& ledger) {
    const ledger::LedgerKeys keys(schema_->keys());
    return entries_under(keys.root_partition(ledger), keys.pending_prefix());
  }
  std::vector<LedgerEntry> permanent(const Ledger& ledger) {
    const ledger::LedgerKeys keys(schema_->keys());
    return entries_under(keys.entries_partition(ledger), keys.entry_prefix());
  }

  std::vector<Job> queued_jobs() {
    std::vector<Job> jobs;
    const std::string h = schema_->keys().compose({{"kind", "Jobs"}, {"queue", kDefaultQueue}});
    for (const table::Item& item : engine_->query(schema_->listing_query(h, "")).items) {
      jobs.push_back(job_from_item(item));
    }
    return jobs;
  }
  std::vector<Job> materialize_jobs() {
    std::vector<Job> jobs;
    for (Job& job : queued_jobs()) {
      if (job.type == kMaterializeJob) jobs.push_back(std::move(job));
    }
    return jobs;
  }

  // I1-I5 by reading the whole table; ledgers are checked when any exist.
  void expect_invariants() {
    const testing::InvariantReport report =
        testing::check_invariants(*engine_, *schema_, {{kServiceName, disk_}});
    EXPECT_THAT(report.violations, IsEmpty()) << report;
    EXPECT_GT(report.ledgers, 0u) << report;
  }

  const OwnerRef card_{"Card", "1"};
  const Definitions definitions_ = Definitions::parse(kDefinitions);
  std::optional<Attachments> attachments_;
  std::optional<OwnerContexts> contexts_;
};

TEST_P(ModelLedgerTest, TrackedAttachWritesOneEntryPerLedgerWithTheChange) {
  contexts_->set_context(card_, "a1", "b1");
  const Blob blob = upload(std::string(1200, 'x'));
  const Attachment attachment =
      attachments_->attach(card_, "files", blob, ChangeContext{"user-7", "req-42"});

  for (const Ledger& ledger : {kAccount, kBoard1}) {
    const std::vector<LedgerEntry> entries = pending(ledger);
    ASSERT_EQ(entries.size(), 1u) << ledger.describe();
    const LedgerEntry& entry = entries[0];
    EXPECT_EQ(entry.operation, Operation::Attach);
    EXPECT_EQ(entry.delta_bytes, 1200);
    EXPECT_EQ(entry.account_id, "a1");
    EXPECT_EQ(entry.board_id, "b1");
    EXPECT_EQ(entry.owner, (ledger::OwnerRecord{"Card", "1"}));
    EXPECT_THAT(entry.blob_ids, ElementsAre(blob.id));
    EXPECT_THAT(entry.attachment_ids, ElementsAre(attachment.id));
    EXPECT_EQ(entry.actor_id, "user-7");
    EXPECT_EQ(entry.request_id, "req-42");
    EXPECT_EQ(totals().bytes_used_exact(ledger), 1200);
  }
  EXPECT_EQ(contexts_->find(card_).tracked_bytes, 1200);

  // One materialize job for both ledgers, keyed by the pair so a pool runs
  // one at a time for it.
  const std::vector<Job> jobs = materialize_jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_THAT(materialize_targets(jobs[0]), ElementsAre(kAccount, kBoard1));
  EXPECT_EQ(jobs[0].args.at("coalesce_key").as_string(), "materialize account a1 board b1");
  expect_invariants();
}

TEST_P(ModelLedgerTest, OneMaterializeJobMaterializesTheAccountAndTheBoard) {
  contexts_->set_context(card_, "a1", "b1");
  attachments_->attach(card_, "files", upload(std::string(800, 'm')));
  const std::vector<Job> jobs = materialize_jobs();
  ASSERT_EQ(jobs.size(), 1u);

  jobs::JobHandlers handlers;
  jobs::add_materialize_handler(handlers, *engine_, *schema_);
  (*handlers.find(kMaterializeJob))(jobs[0]);
  for (const Ledger& ledger : {kAccount, kBoard1}) {
    EXPECT_EQ(totals().bytes_used(ledger), 800) << ledger.describe();
    EXPECT_THAT(pending(ledger), IsEmpty()) << ledger.describe();
    EXPECT_EQ(permanent(ledger).size(), 1u) << ledger.describe();
  }
  expect_invariants();

  // An owner with a board alone: its job names that board alone.
  ledger::OwnerContext board_only;
  board_only.board_id = "b2";
  const Job board_job = materialize_job(board_only);
  EXPECT_THAT(materialize_targets(board_job), ElementsAre(kBoard2));
  EXPECT_EQ(board_job.args.at("coalesce_key").as_string(), "materialize board b2");

  // The args are read strictly: the error names the argument at fault.
  auto integrity_error = [](const Job& job) -> std::string {
    try {
      materialize_targets(job);
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::IntegrityError);
      return error.message();
    }
    ADD_FAILURE() << "expected IntegrityError";
    return "";
  };
  Job mistyped = jobs[0];
  mistyped.args.insert_or_assign("board_id", table::Value::number(std::int64_t{1}));
  EXPECT_THAT(integrity_error(mistyped), ::testing::HasSubstr("\"board_id\""));
  Job unnamed = jobs[0];
  unnamed.args.erase("account_id");
  unnamed.args.erase("board_id");
  EXPECT_THAT(integrity_error(unnamed), ::testing::HasSubstr("names no ledger"));
}

TEST_P(ModelLedgerTest, DetachPurgeAndReplaceRecordTheirDeltas) {
  contexts_->set_context(card_, "a1", "b1");
  const Blob small = upload(std::string(100, 's'));
  const Blob large = upload(std::string(700, 'l'));
  const Attachment first = attachments_->attach(card_, "files", small);
  attachments_->attach(card_, "files", large);
  attachments_->detach(card_, "files", first.id, ChangeContext{"user-1", std::nullopt});

  std::vector<LedgerEntry> entries = pending(kAccount);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[2].operation, Operation::Detach);
  EXPECT_EQ(entries[2].delta_bytes, -100);
  EXPECT_THAT(entries[2].attachment_ids, ElementsAre(first.id));
  EXPECT_EQ(entries[2].actor_id, "user-1");
  EXPECT_EQ(entries[2].request_id, std::nullopt);

  // A has_one: the first attach is an attach, the next a replace of the
  // old row by the new one, with both in the entry.
  const Attachment cover = attachments_->attach(card_, "image", small);
  const Attachment next = attachments_->attach(card_, "image", large);
  entries = pending(kBoard1);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[3].operation, Operation::Attach);
  EXPECT_EQ(entries[4].operation, Operation::Replace);
  EXPECT_EQ(entries[4].delta_bytes, 600);
  EXPECT_THAT(entries[4].attachment_ids, UnorderedElementsAre(cover.id, next.id));

  // replace() with several blobs, then a purge of the name.
  attachments_->replace(card_, "files", {small.id, small.id});
  entries = pending(kAccount);
  ASSERT_EQ(entries.size(), 6u);
  EXPECT_EQ(entries[5].operation, Operation::Replace);
  EXPECT_EQ(entries[5].delta_bytes, 200 - 700);
  attachments_->purge(card_, "image");
  entries = pending(kAccount);
  ASSERT_EQ(entries.size(), 7u);
  EXPECT_EQ(entries[6].operation, Operation::Detach);
  EXPECT_EQ(entries[6].delta_bytes, -700);

  EXPECT_EQ(totals().bytes_used_exact(kAccount), 200);
  EXPECT_EQ(totals().bytes_used_exact(kBoard1), 200);
  EXPECT_EQ(contexts_->find(card_).tracked_bytes, 200);
  expect_invariants();

  // Materialized, the totals alone say the same and the trail is kept.
  totals().materialize(kAccount);
  totals().materialize(kBoard1);
  EXPECT_EQ(totals().bytes_used(kAccount), 200);
  EXPECT_EQ(totals().bytes_used(kBoard1), 200);
  EXPECT_THAT(pending(kAccount), IsEmpty());
  EXPECT_EQ(permanent(kAccount).size(), 7u);
}

TEST_P(ModelLedgerTest, UntrackedAttachmentsAreNeverCounted) {
  contexts_->set_context(card_, "a1", "b1");
  const ledger::OwnerContext before = contexts_->find(card_);
  const Blob blob = upload(std::string(500, 'n'));
  const Attachment note = attachments_->attach(card_, "notes", blob);
  EXPECT_FALSE(note.tracked);
  attachments_->attach_many(card_, "notes", {blob.id, blob.id});
  attachments_->detach(card_, "notes", note.id);

  EXPECT_THAT(pending(kAccount), IsEmpty());
  EXPECT_THAT(pending(kBoard1), IsEmpty());
  EXPECT_EQ(contexts_->find(card_), before);  // not even its version moved
  EXPECT_EQ(totals().bytes_used_exact(kAccount), 0);
  for (const Job& job : queued_jobs()) EXPECT_NE(job.type, kMaterializeJob);

  // A change mixing both counts only the tracked rows.
  const Blob counted = upload(std::string(300, 'c'));
  attachments_->attach(card_, "files", counted);
  attachments_->destroy_owner(card_);
  const std::vector<LedgerEntry> entries = pending(kAccount);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].delta_bytes, -300);
  EXPECT_THAT(entries[1].blob_ids, ElementsAre(counted.id));
  expect_invariants();
}

TEST_P(ModelLedgerTest, DestroyOwnerRecordsTheDetachesFromTheContextAlone) {
  contexts_->set_context(card_, "a1", "b1");
  const Blob a = upload(std::string(100, 'a'));
  const Blob b = upload(std::string(200, 'b'));
  const Blob c = upload(std::string(400, 'c'));
  const std::vector<Attachment> files = attachments_->attach_many(card_, "files", {a.id, b.id});
  const Attachment image = attachments_->attach(card_, "image", c);
  attachments_->attach(card_, "notes", c);  // untracked

  // The cascade: only the owner's own items are read, no parent record.
  attachments_->destroy_owner(card_, ChangeContext{"cleanup", "req-9"});

  for (const Ledger& ledger : {kAccount, kBoard1}) {
    const std::vector<LedgerEntry> entries = pending(ledger);
    ASSERT_EQ(entries.size(), 3u);
    const LedgerEntry& entry = entries.back();
    EXPECT_EQ(entry.operation, Operation::Detach);
    EXPECT_EQ(entry.delta_bytes, -700);
    EXPECT_EQ(entry.account_id, "a1");
    EXPECT_EQ(entry.board_id, "b1");
    EXPECT_THAT(entry.attachment_ids, UnorderedElementsAre(files[0].id, files[1].id, image.id));
    EXPECT_THAT(entry.blob_ids, UnorderedElementsAre(a.id, b.id, c.id));
    EXPECT_EQ(entry.actor_id, "cleanup");
    EXPECT_EQ(totals().bytes_used_exact(ledger), 0);
  }
  EXPECT_EQ(contexts_->find(card_).tracked_bytes, 0);
  expect_invariants();
}

TEST_P(ModelLedgerTest, TransferMovesTheOwnersBytesBetweenBoards) {
  contexts_->set_context(card_, "a1", "b1");
  const Blob a = upload(std::string(1000, 'a'));
  const Blob b = upload(std::string(234, 'b'));
  attachments_->attach_many(card_, "files", {a.id, b.id});
  attachments_->attach(card_, "image", a);
  // Another card on the same account and board stays where it is.
  const OwnerRef other{"Card", "2"};
  contexts_->set_context(other, "a1", "b1");
  attachments_->attach(other, "files", b);

  const ledger::OwnerContext moved =
      contexts_->set_context(card_, "a1", "b2", ChangeContext{"mover", "req-t"});
  EXPECT_EQ(moved.board_id, "b2");
  EXPECT_EQ(moved.tracked_bytes, 2234);

  EXPECT_EQ(totals().bytes_used_exact(kAccount), 2234 + 234);  // nets zero
  EXPECT_EQ(totals().bytes_used_exact(kBoard1), 234);
  EXPECT_EQ(totals().bytes_used_exact(kBoard2), 2234);
  const std::vector<LedgerEntry> in = pending(kBoard2);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].operation, Operation::TransferIn);
  EXPECT_EQ(in[0].delta_bytes, 2234);
  EXPECT_EQ(in[0].actor_id, "mover");
  EXPECT_EQ(pending(kBoard1).back().operation, Operation::TransferOut);
  EXPECT_EQ(pending(kBoard1).back().delta_bytes, -2234);

  // Changes after the move count on the new board.
  attachments_->detach(card_, "image");
  EXPECT_EQ(totals().bytes_used_exact(kBoard2), 1234);
  EXPECT_EQ(totals().bytes_used_exact(kBoard1), 234);
  // Setting what is set writes nothing.
  const std::size_t entries = pending(kBoard2).size();
  contexts_->set_context(card_, "a1", "b2");
  EXPECT_EQ(pending(kBoard2).size(), entries);
  expect_invariants();
}

TEST_P(ModelLedgerTest, AChangeRacingATransferIsRebuiltOnTheNewBoard) {
  contexts_->set_context(card_, "a1", "b1");
  const Blob blob = upload(std::string(900, 'r'));
  // The first transaction of the attach waits while the owner moves: its
  // context condition fails and it is rebuilt from the moved context.
  auto racing = std::make_shared<table::FaultInjectingEngine>(engine_, table::FaultOptions{});
  bool moved = false;
  racing->set_before_write_hook([&](std::string_view operation) {
    if (operation != "transact_write" || moved) return;
    moved = true;
    ledger::assign_owner(*engine_, *schema_, {"Card", "1"}, {"a1", "b2"});
  });
  Attachments through(*racing, *schema_, definitions_, *store_);
  through.attach(card_, "files", blob);

  EXPECT_TRUE(moved);
  EXPECT_EQ(totals().bytes_used_exact(kBoard1), 0);
  EXPECT_EQ(totals().bytes_used_exact(kBoard2), 900);
  EXPECT_EQ(totals().bytes_used_exact(kAccount), 900);
  ASSERT_EQ(pending(kBoard2).size(), 1u);
  EXPECT_EQ(pending(kBoard2)[0].board_id, "b2");
  expect_invariants();
}

TEST_P(ModelLedgerTest, TheActionBudgetCountsTheLedgerActions) {
  contexts_->set_context(card_, "a1", "b1");
  std::vector<std::string> ids;
  for (int i = 0; i < 49; ++i) ids.push_back(upload("blob " + std::to_string(i)).id);

  // 49 rows + 49 blobs + context + 2 entries + 1 materialize job = 102.
  try {
    attachments_->attach_many(card_, "files", ids);
    FAIL() << "expected TransactionTooLarge";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::TransactionTooLarge);
    EXPECT_THAT(error.message(), ::testing::HasSubstr("102 transaction actions"));
  }
  EXPECT_TRUE(attachments_->list(card_).attachments.empty());
  EXPECT_THAT(pending(kAccount), IsEmpty());
  EXPECT_EQ(contexts_->find(card_).tracked_bytes, 0);

  // 48 fit (exactly 100 actions), in one transaction, one coalesced entry
  // per ledger and one materialize job.
  const std::string spare = ids.back();
  ids.pop_back();
  const std::vector<Attachment> added = attachments_->attach_many(card_, "files", ids);
  ASSERT_EQ(added.size(), 48u);
  EXPECT_EQ(materialize_jobs().size(), 1u);
  const std::vector<LedgerEntry> entries = pending(kAccount);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].attachment_ids.size(), 48u);
  std::int64_t bytes = 0;
  for (const Attachment& a : added) bytes += static_cast<std::int64_t>(a.byte_size);
  EXPECT_EQ(entries[0].delta_bytes, bytes);

  // Untracked rows add no ledger actions: 50 rows of 50 blobs fit exactly.
  std::vector<std::string> notes = ids;
  notes.push_back(spare);
  notes.push_back(upload("blob 49").id);
  EXPECT_EQ(attachments_->attach_many(card_, "notes", notes).size(), 50u);
  expect_invariants();
}

TEST_P(ModelLedgerTest, AQuotaRefusesAChangeBeforeAnyWrite) {
  contexts_->set_context(card_, "a1", "b1");
  ledger::Quotas(*engine_, *schema_).set_limit(kBoard1, 1000);
  const Blob first = upload(std::string(600, 'f'));
  const Blob second = upload(std::string(600, 's'));
  const Attachment kept = attachments_->attach(card_, "files", first);

  const std::vector<table::Item> before = all_items();
  try {
    attachments_->attach(card_, "files", second);
    FAIL() << "expected QuotaExceeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::QuotaExceeded);
    EXPECT_THAT(error.message(), ::testing::HasSubstr("board b1"));
  }
  EXPECT_EQ(all_items().size(), before.size());
  EXPECT_EQ(blob_from_item(*raw_blob_item(second.id)).attachments_count, 0);
  EXPECT_EQ(pending(kBoard1).size(), 1u);

  // Freeing bytes is never refused; then the attach fits.
  attachments_->detach(card_, "files", kept.id);
  attachments_->attach(card_, "files", second);
  EXPECT_EQ(totals().bytes_used_exact(kBoard1), 600);
  // Untracked rows are not held to the quota.
  attachments_->attach(card_, "notes", first);
  expect_invariants();
}

// The check that every case ends with can fail: a tracked row written
// without its ledger actions is drift on the owner and on both ledgers.
TEST_P(ModelLedgerTest, TheInvariantCheckSeesATrackedRowTheLedgerMissed) {
  contexts_->set_context(card_, "a1", "b1");
  const Blob blob = upload(std::string(321, 'd'));
  Attachment row = attachments_->attach(card_, "files", blob);
  row.id = uuid_v7(std::chrono::system_clock::now());
  engine_->transact_write(
      {{table::PutRequest{schema_->table_name(), attachment_to_item(*schema_, row)},
        store_->refcount_action(blob.id, 1)},
       ""});

  const testing::InvariantReport report =
      testing::check_invariants(*engine_, *schema_, {{kServiceName, disk_}});
  EXPECT_THAT(report.violations,
              UnorderedElementsAre(::testing::HasSubstr("context of Card 1 counts 321"),
                                   ::testing::HasSubstr("account a1 has exact usage 321"),
                                   ::testing::HasSubstr("board b1 has exact usage 321")))
      << report;
}

// The stress workload on one thread, without faults: every operation must
// succeed, and every ledger is exact after each case's materialization.
TEST_P(ModelLedgerTest, RandomChangesAndTransfersKeepEveryLedgerExact) {
  const std::uint64_t seed = stowage::testing::seed_from_environment();
  const Definitions definitions = Definitions::parse(ledger::testing::kTrackedDefinitions);
  Attachments attachments(*engine_, *schema_, definitions, *store_);
  ledger::testing::TrackedWorkload workload(attachments, *contexts_, *store_);
  std::mt19937_64 random(seed);
  for (int i = 0; i < 80; ++i) {
    const std::optional<ErrorCode> failure = workload.run_one(random);
    EXPECT_FALSE(failure) << "operation " << i << ": " << to_string(*failure);
  }
  EXPECT_THAT(workload.unexpected(), IsEmpty());
  expect_invariants();

  for (const Ledger& ledger : ledger::testing::workload_ledgers()) totals().materialize(ledger);
  const testing::InvariantReport report =
      testing::check_invariants(*engine_, *schema_, {{kServiceName, disk_}});
  for (const std::string& leftover : report.leftovers) {
    EXPECT_FALSE(leftover.starts_with("I4")) << leftover;
  }
  for (const Ledger& ledger : ledger::testing::workload_ledgers()) {
    const ledger::ReconcileReport reconciled = ledger::reconcile(*engine_, *schema_, ledger);
    EXPECT_EQ(reconciled.drift(), 0) << ledger.describe();
    EXPECT_EQ(totals().bytes_used(ledger), reconciled.real_bytes) << ledger.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, ModelLedgerTest, ::testing::ValuesIn(durable_params()),
                         model_param_name);

}  // namespace
}  // namespace stowage::model
