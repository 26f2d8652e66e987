// The storage ledger's commands as a user runs them: in a fresh working
// directory with the embedded default configuration (every attachment name
// tracked), checking what they print and how they exit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli_fixture.h"

namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

using Result = stowage::cli::CliResult;

class LedgerCliTest : public stowage::cli::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    std::ofstream(dir_ / "data.bin") << std::string(1000, 'd');  // 1000 bytes
  }

  // The value of the first line `name  value` of a successful run's output.
  std::string field(const std::vector<std::string>& arguments, const std::string& name) const {
    const Result run = stowage(arguments);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return CliFixture::field(run.output, name);
  }

  void put(const std::string& file, const std::string& name) const {
    const Result run = stowage({"put", file, "--record", "Card:42", "--name", name});
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
};

TEST_F(LedgerCliTest, ContextUsageMaterializeReconcileEntries) {
  // Bytes attached before the record has a context wait in its context and
  // move to the ledgers, pending, when it gets one.
  put("note.txt", "image");
  put("data.bin", "files");
  const Result set = stowage({"context", "set", "Card:42", "--account", "A", "--board", "B"});
  ASSERT_EQ(set.exit_code, 0) << set.output;
  EXPECT_THAT(set.output, ContainsRegex("account +A\n"));
  EXPECT_THAT(set.output, ContainsRegex("board +B\n"));
  EXPECT_THAT(set.output, ContainsRegex("tracked_bytes +1015\n"));

  EXPECT_EQ(field({"usage", "account", "A", "--exact"}, "bytes"), "1015");
  EXPECT_EQ(field({"usage", "account", "A"}, "bytes"), "0");
  EXPECT_EQ(field({"usage", "board", "B", "--exact"}, "bytes"), "1015");
  EXPECT_EQ(field({"usage", "board", "B"}, "bytes"), "0");

  const Result materialize = stowage({"materialize", "account", "A"});
  ASSERT_EQ(materialize.exit_code, 0) << materialize.output;
  EXPECT_THAT(materialize.output, HasSubstr("materialized 1 entry (1 transaction) over account A"));
  EXPECT_EQ(field({"usage", "account", "A"}, "bytes"), "1015");
  EXPECT_EQ(field({"usage", "board", "B"}, "bytes"), "0");

  // --all finds board B (and account A, which has nothing left to roll up).
  const Result all = stowage({"materialize", "--all"});
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_THAT(all.output, HasSubstr("materialized 1 entry (1 transaction) over 2 ledgers"));
  EXPECT_EQ(field({"usage", "board", "B"}, "bytes"), "1015");

  // A tracked attach with a context: its entries commit with it, and the
  // command runs the materialize job it enqueued before it exits.
  put("note.txt", "image");
  EXPECT_EQ(field({"usage", "account", "A", "--exact"}, "bytes"), "1030");
  EXPECT_EQ(field({"usage", "account", "A"}, "bytes"), "1030");

  const Result reconcile = stowage({"reconcile", "account", "A"});
  ASSERT_EQ(reconcile.exit_code, 0) << reconcile.output;
  EXPECT_THAT(reconcile.output, ContainsRegex("real_bytes +1030\n"));
  EXPECT_THAT(reconcile.output, ContainsRegex("ledger_bytes +1030\n"));
  EXPECT_THAT(reconcile.output, ContainsRegex("total_bytes +1030\n"));
  EXPECT_THAT(reconcile.output, ContainsRegex("drift +0\n"));
  EXPECT_THAT(reconcile.output, ContainsRegex("settled +true\n"));
  EXPECT_THAT(reconcile.output, ContainsRegex("attachments +3\n"));
  EXPECT_THAT(reconcile.output, Not(HasSubstr("--repair")));

  const Result entries = stowage({"ledger", "entries", "account", "A"});
  ASSERT_EQ(entries.exit_code, 0) << entries.output;
  EXPECT_THAT(entries.output, ContainsRegex("^time +operation +delta +account +board +owner +"
                                            "blob +attachment +actor +state\n"));
  EXPECT_THAT(entries.output,
              ContainsRegex("\n[0-9T:.-]+Z +transfer_in +\\+1015 +A +B +Card:42 +- +- +- "
                            "+materialized\n"));
  EXPECT_THAT(entries.output,
              ContainsRegex("\n[0-9T:.-]+Z +attach +\\+15 +A +B +Card:42 +[0-9a-f-]{36} "
                            "+[0-9a-f-]{36} +- +materialized\n"));
  EXPECT_THAT(stowage({"ledger", "entries", "account", "A", "--until", "2001-01-01"}).output,
              HasSubstr("no entries in account A"));
  EXPECT_THAT(stowage({"ledger", "entries", "account", "A", "--since", "2001-01-01T00:00:00Z",
                       "--until", "2261-12-31T23:59:59.999999Z"})
                  .output,
              HasSubstr("transfer_in"));
}

TEST_F(LedgerCliTest, DetachedBytesLeaveTheLedger) {
  ASSERT_EQ(stowage({"context", "set", "Card:42", "--account", "A"}).exit_code, 0);
  put("data.bin", "files");
  EXPECT_EQ(field({"usage", "account", "A"}, "bytes"), "1000");
  ASSERT_EQ(stowage({"purge", "Card:42", "--name", "files"}).exit_code, 0);
  EXPECT_EQ(field({"usage", "account", "A", "--exact"}, "bytes"), "0");
  EXPECT_EQ(field({"reconcile", "account", "A"}, "drift"), "0");
  EXPECT_THAT(stowage({"ledger", "entries", "account", "A"}).output,
              ContainsRegex("\n[0-9T:.-]+Z +detach +-1000 +A +- +Card:42 "));
}

TEST_F(LedgerCliTest, BadInputIsAUsageError) {
  const Result kind = stowage({"usage", "team", "7"});
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_THAT(kind.output, HasSubstr("stowage: KIND: team not in {account,board}"));

  const Result account = stowage({"context", "set", "Card:42", "--board", "B"});
  EXPECT_EQ(account.exit_code, 2);
  EXPECT_THAT(account.output, HasSubstr("stowage: --account is required"));

  const Result record = stowage({"context", "set", "Card", "--account", "A"});
  EXPECT_EQ(record.exit_code, 2);
  EXPECT_THAT(record.output, HasSubstr("a record is TYPE:ID"));

  const Result nothing = stowage({"materialize"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_THAT(nothing.output, HasSubstr("name a ledger (account ID or board ID) or --all"));

  const Result both = stowage({"materialize", "--all", "board", "B"});
  EXPECT_EQ(both.exit_code, 2);

  const Result time = stowage({"ledger", "entries", "board", "B", "--since", "yesterday"});
  EXPECT_EQ(time.exit_code, 2);
  EXPECT_THAT(time.output, HasSubstr("a time is ISO-8601 in UTC"));
  // Past what the clock holds: refused, not wrapped around.
  EXPECT_EQ(stowage({"ledger", "entries", "board", "B", "--until", "2999-01-01"}).exit_code, 2);
  EXPECT_EQ(stowage({"ledger", "entries", "board", "B", "--until", "2026-02-30"}).exit_code, 2);
}

}  // namespace
