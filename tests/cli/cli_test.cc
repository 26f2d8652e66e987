// The `stowage` command as a user runs it: in a fresh working directory with
// the embedded default configuration (an SQLite file and a disk service
// there), checking what it prints and how it exits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixture.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace fs = std::filesystem;

using Result = stowage::cli::CliResult;

class CliTest : public stowage::cli::CliFixture {
 protected:
  std::size_t stored_files() const {
    std::size_t count = 0;
    if (!fs::exists(dir_ / "storage")) return 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ / "storage")) {
      if (entry.is_regular_file()) ++count;
    }
    return count;
  }
};

TEST_F(CliTest, PutListShowDetachPurgeSweep) {
  const Result put = stowage({"put", "note.txt", "--record", "Card:42", "--name", "image"});
  ASSERT_EQ(put.exit_code, 0) << put.output;
  const std::string blob_id = field(put.output, "blob");
  const std::string attachment_id = field(put.output, "attachment");
  EXPECT_EQ(field(put.output, "filename"), "note.txt");
  EXPECT_EQ(field(put.output, "attachments_count"), "1");
  EXPECT_EQ(field(put.output, "record"), "Card:42");
  EXPECT_EQ(stored_files(), 1u);

  const Result ls = stowage({"ls", "Card:42"});
  ASSERT_EQ(ls.exit_code, 0) << ls.output;
  EXPECT_THAT(ls.output, StartsWith("id "));
  EXPECT_THAT(ls.output, HasSubstr("content type"));
  EXPECT_THAT(ls.output, HasSubstr(attachment_id + "  image  note.txt  text/plain"));
  EXPECT_THAT(stowage({"ls", "Card:42", "--name", "doc"}).output,
              HasSubstr("no attachments on Card:42 named doc"));

  const Result show = stowage({"blob", "show", blob_id});
  ASSERT_EQ(show.exit_code, 0) << show.output;
  EXPECT_EQ(field(show.output, "byte_size"), "15");
  EXPECT_EQ(field(show.output, "content_type"), "text/plain");
  EXPECT_EQ(field(show.output, "service_name"), "local");
  EXPECT_EQ(field(show.output, "attached_once"), "true");
  EXPECT_THAT(show.output, HasSubstr("checksum"));
  EXPECT_THAT(show.output, HasSubstr("metadata"));

  const Result detach = stowage({"detach", "Card:42", "--name", "image", "--id", attachment_id});
  ASSERT_EQ(detach.exit_code, 0) << detach.output;
  EXPECT_THAT(stowage({"ls", "Card:42"}).output, HasSubstr("no attachments on Card:42"));
  EXPECT_EQ(field(stowage({"blob", "show", blob_id}).output, "attachments_count"), "0");
  EXPECT_EQ(stored_files(), 1u);

  // Purged: the default definition purges later, and the command runs the
  // job before it exits.
  const Result second = stowage({"put", "note.txt", "--record", "Card:42", "--name", "image"});
  const std::string second_blob = field(second.output, "blob");
  const Result purge = stowage({"purge", "Card:42", "--name", "image"});
  ASSERT_EQ(purge.exit_code, 0) << purge.output;
  const Result gone = stowage({"blob", "show", second_blob});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_THAT(gone.output, HasSubstr("RecordNotFound"));
  EXPECT_EQ(stored_files(), 1u);

  // Bytes no blob references, an hour old, are swept once past the grace.
  const fs::path orphan = dir_ / "storage" / "zz" / "zz" / "zzzzorphan";
  fs::create_directories(orphan.parent_path());
  std::ofstream(orphan) << "orphan";
  fs::last_write_time(orphan, fs::last_write_time(orphan) - std::chrono::hours(1));
  const Result kept = stowage({"sweep", "--grace", "2h"});
  ASSERT_EQ(kept.exit_code, 0) << kept.output;
  EXPECT_THAT(kept.output, HasSubstr("swept 0 unreferenced objects"));
  const Result swept = stowage({"sweep", "--grace", "30m"});
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_THAT(swept.output, HasSubstr("deleted bytes zzzzorphan from local"));
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_EQ(field(stowage({"blob", "show", blob_id}).output, "blob"), blob_id);
}

TEST_F(CliTest, ReadsStowageTomlFromTheWorkingDirectory) {
  std::ofstream(dir_ / "stowage.toml")
      << "secret = \"0123456789abcdef0123456789abcdef-cli\"\n"
         "[engine]\npath = \"meta.db\"\n[table]\nmanage_table = true\n"
         "[services.archive]\nservice = \"Disk\"\nroot = \"archive\"\n";
  const Result put = stowage({"put", "note.txt", "--record", "Card:1", "--name", "file"});
  ASSERT_EQ(put.exit_code, 0) << put.output;
  EXPECT_EQ(field(put.output, "service_name"), "archive");
  EXPECT_TRUE(fs::exists(dir_ / "meta.db"));
  EXPECT_TRUE(fs::exists(dir_ / "archive"));
  EXPECT_FALSE(fs::exists(dir_ / "storage"));
}

TEST_F(CliTest, BadInputIsOneClearLine) {
  struct Case {
    std::vector<std::string> arguments;
    int exit_code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"put", "note.txt", "--record", "Card42", "--name", "image"}, 2,
       "a record is TYPE:ID, e.g. Card:42; got \"Card42\""},
      {{"put", "note.txt", "--record", "Ca#rd:42", "--name", "image"}, 1,
       "contains the key separator \"#\""},
      {{"put", "missing.txt", "--record", "Card:42", "--name", "image"}, 2,
       "File does not exist: missing.txt"},
      {{"put", "note.txt", "--record", "Card:42"}, 2, "--name is required"},
      {{"ls", ":42"}, 2, "a record is TYPE:ID"},
      {{"blob", "show", "no-such-blob"}, 1, "blob no-such-blob does not exist"},
      {{"sweep", "--grace", "5x"}, 2, "--grace"},
      {{"sweep", "--grace", "-1h"}, 2, "the grace period cannot be negative"},
      {{"--config", "absent.toml", "ls", "Card:1"}, 2, "absent.toml"},
  };
  for (const Case& c : cases) {
    const Result run = stowage(c.arguments);
    EXPECT_EQ(run.exit_code, c.exit_code) << run.output;
    EXPECT_THAT(run.output, StartsWith("stowage: "));
    EXPECT_THAT(run.output, HasSubstr(c.message));
    EXPECT_EQ(std::count(run.output.begin(), run.output.end(), '\n'), 1) << run.output;
  }
}

TEST_F(CliTest, ABadConfigurationNamesTheFileAndSetting) {
  std::ofstream(dir_ / "bad.toml") << "[services.local]\nservice = \"Disk\"\nroot = \"s\"\n"
                                      "[engine]\nengin = \"sqlite\"\n";
  const Result run = stowage({"--config", "bad.toml", "ls", "Card:1"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.output, HasSubstr("bad.toml line 5: unknown setting engine.engin"));

  std::ofstream(dir_ / "no-secret.toml") << "[services.local]\nservice = \"Disk\"\nroot = \"s\"\n";
  const Result no_secret = stowage({"--config", "no-secret.toml", "ls", "Card:1"});
  EXPECT_EQ(no_secret.exit_code, 2);
  EXPECT_THAT(no_secret.output, HasSubstr("STOWAGE_SECRET"));
}

TEST_F(CliTest, EveryCommandHasHelp) {
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"put"}, {"ls"}, {"detach"}, {"purge"},
                                              {"blob", "show"}, {"sweep"}, {"table"}}) {
    std::vector<std::string> arguments = command;
    arguments.push_back("--help");
    std::string usage = "Usage: stowage";
    for (const std::string& word : command) usage += " " + word;
    const Result run = stowage(arguments);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_THAT(run.output, HasSubstr(usage));
  }
  const Result top = stowage({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.output, HasSubstr("--config"));
  EXPECT_THAT(top.output, Not(HasSubstr("Error")));
}

}  // namespace
