// The Stowage facade end to end: an SQLite file and a disk service in a
// fresh temporary directory, opened from TOML as an application would.
#include "stowage/stowage.h"

#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "common/uuid.h"
#include "stowage/error.h"

namespace stowage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

constexpr char kSecret[] = "0123456789abcdef0123456789abcdef-api-test";

class StowageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stowage-api-" + uuid_v4());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // An SQLite file and one disk service under dir_, then `extra` settings.
  std::string config_text(const std::string& extra = "") const {
    return "secret = \"" + std::string(kSecret) + "\"\n" + extra +
           "\n[engine]\nengine = \"sqlite\"\npath = \"" + (dir_ / "stowage.db").string() +
           "\"\n[table]\nmanage_table = true\n[services.local]\nservice = \"Disk\"\nroot = \"" +
           storage().string() + "\"\n";
  }

  Stowage open(const std::string& extra = "") const {
    return Stowage::from_toml(config_text(extra));
  }

  fs::path storage() const { return dir_ / "storage"; }

  fs::path write_file(const std::string& name, const std::string& bytes) const {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  std::size_t stored_files() const {
    std::size_t count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(storage())) {
      if (entry.is_regular_file()) ++count;
    }
    return count;
  }

  static std::string download(const Stowage& stowage, const Blob& blob) {
    StringSink sink;
    stowage.download(blob, sink);
    return sink.data();
  }

  static ErrorCode code_of(const std::function<void()>& operation) {
    try {
      operation();
    } catch (const Error& error) {
      return error.code();
    }
    ADD_FAILURE() << "no Error was thrown";
    return ErrorCode::IoError;
  }

  fs::path dir_;
};

const OwnerRef kCard{"Card", "42"};

TEST_F(StowageTest, PutsListsDownloadsDetachesAndPurges) {
  Stowage stowage = open();
  const Blob blob = stowage.create_and_upload(write_file("notes.txt", "hello, stowage\n"));
  EXPECT_EQ(blob.filename, "notes.txt");
  EXPECT_EQ(blob.content_type, "text/plain");
  EXPECT_EQ(blob.byte_size, 15u);
  EXPECT_EQ(blob.service_name, "local");

  const Attachment attachment = stowage.attach(kCard, "image", blob);
  EXPECT_EQ(attachment.blob_id, blob.id);
  EXPECT_EQ(stowage.find_blob(blob.id).attachments_count, 1);
  const AttachmentPage page = stowage.list(kCard);
  ASSERT_EQ(page.attachments.size(), 1u);
  EXPECT_EQ(page.attachments[0].id, attachment.id);
  EXPECT_EQ(page.attachments[0].filename, "notes.txt");
  EXPECT_EQ(download(stowage, blob), "hello, stowage\n");
  EXPECT_EQ(stowage.download_range(blob, 7, 7), "stowage");

  stowage.detach(kCard, "image");
  EXPECT_TRUE(stowage.list(kCard).attachments.empty());
  EXPECT_EQ(stowage.find_blob(blob.id).attachments_count, 0);
  EXPECT_EQ(download(stowage, blob), "hello, stowage\n");

  // Attached again by id, then purged: the default definition purges later,
  // so the blob goes when the jobs are drained.
  const Attachment again = stowage.attach(kCard, "image", std::string_view(blob.id));
  stowage.purge(kCard, "image", again.id);
  EXPECT_TRUE(stowage.list(kCard).attachments.empty());
  EXPECT_TRUE(stowage.drain_jobs());
  EXPECT_EQ(code_of([&] { stowage.find_blob(blob.id); }), ErrorCode::RecordNotFound);
  EXPECT_EQ(stored_files(), 0u);
}

TEST_F(StowageTest, UploadsFromAByteSourceAndAttachesMany) {
  Stowage stowage = open();
  StringSource first_bytes("first");
  const Blob first = stowage.create_and_upload(first_bytes, BlobInput{"a.bin", "", {}, ""});
  StringSource second_bytes("second");
  const Blob second = stowage.create_and_upload(second_bytes, BlobInput{"b.bin", "", {}, ""});

  const std::vector<Attachment> attached =
      stowage.attach_many(kCard, "files", {first.id, second.id});
  ASSERT_EQ(attached.size(), 2u);
  std::vector<std::string> listed;
  for (const Attachment& a : stowage.list(kCard, "files").attachments) listed.push_back(a.blob_id);
  EXPECT_THAT(listed, ElementsAre(first.id, second.id));

  const std::vector<Attachment> replaced = stowage.replace(kCard, "files", {second.id});
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_EQ(stowage.find_blob(second.id).attachments_count, 1);
  EXPECT_TRUE(stowage.drain_jobs());
  EXPECT_EQ(code_of([&] { stowage.find_blob(first.id); }), ErrorCode::RecordNotFound);

  stowage.destroy_owner(kCard);
  EXPECT_TRUE(stowage.list(kCard).attachments.empty());
  EXPECT_TRUE(stowage.drain_jobs());
  EXPECT_EQ(stored_files(), 0u);
}

TEST_F(StowageTest, FollowsTheAttachmentDefinitions) {
  Stowage stowage = open(
      "strict_definitions = true\n"
      "[[attachments]]\nrecord_type = \"Card\"\nname = \"avatar\"\n"
      "cardinality = \"one\"\ndependent = \"purge\"\n");
  const Blob first = stowage.create_and_upload(write_file("one.txt", "one"));
  const Blob second = stowage.create_and_upload(write_file("two.txt", "two"));
  stowage.attach(kCard, "avatar", first);
  stowage.attach(kCard, "avatar", second);

  const AttachmentPage page = stowage.list(kCard, "avatar");
  ASSERT_EQ(page.attachments.size(), 1u);
  EXPECT_EQ(page.attachments[0].blob_id, second.id);
  // dependent = "purge": the replaced blob went inline, no job needed.
  EXPECT_EQ(code_of([&] { stowage.find_blob(first.id); }), ErrorCode::RecordNotFound);
  EXPECT_EQ(code_of([&] { stowage.attach(kCard, "undeclared", second); }),
            ErrorCode::ValidationError);
}

TEST_F(StowageTest, SweepsOrphanBytesAndBlobsNeverAttached) {
  Stowage stowage = open();
  const Blob kept = stowage.create_and_upload(write_file("kept.txt", "kept"));
  stowage.attach(kCard, "files", kept);
  const Blob abandoned = stowage.create_and_upload(write_file("abandoned.txt", "abandoned"));
  // Bytes whose blob never committed, written an hour ago.
  const fs::path orphan = storage() / "zz" / "zz" / "zzzzorphan";
  fs::create_directories(orphan.parent_path());
  std::ofstream(orphan) << "orphan";
  fs::last_write_time(orphan, fs::last_write_time(orphan) - std::chrono::hours(1));

  EXPECT_TRUE(stowage.sweep(std::chrono::hours(2)).deleted_objects.empty());

  const SweepReport report = stowage.sweep(std::chrono::seconds(0));
  ASSERT_EQ(report.deleted_objects.size(), 1u);
  EXPECT_EQ(report.deleted_objects[0].key, "zzzzorphan");
  EXPECT_EQ(report.deleted_objects[0].service_name, "local");
  EXPECT_THAT(report.purged_blob_ids, ElementsAre(abandoned.id));
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_EQ(download(stowage, stowage.find_blob(kept.id)), "kept");
  EXPECT_EQ(stored_files(), 1u);
}

TEST_F(StowageTest, PurgesABlobOnlyWhenNothingReferencesIt) {
  Stowage stowage = open();
  const Blob blob = stowage.create_and_upload(write_file("a.txt", "a"));
  stowage.attach(kCard, "files", blob);
  EXPECT_EQ(code_of([&] { stowage.purge_blob(blob.id); }), ErrorCode::ForeignKeyViolation);
  stowage.detach(kCard, "files");
  stowage.purge_blob(blob.id);
  EXPECT_EQ(code_of([&] { stowage.find_blob(blob.id); }), ErrorCode::RecordNotFound);
  EXPECT_EQ(stored_files(), 0u);
}

TEST_F(StowageTest, AQuotaBindsTheVeryNextAttach) {
  Stowage stowage = open();
  stowage.set_context(kCard, "A", "B");
  const Blob blob = stowage.create_and_upload(write_file("five.txt", "12345"));
  // This attach reads "no limit" for the account and the board, which the
  // attaches then trust for 1 s unless set_quota goes through their cache.
  stowage.attach(kCard, "files", blob);

  stowage.set_quota(Ledger::board("B"), 9);
  EXPECT_EQ(code_of([&] { stowage.attach(kCard, "files", blob); }), ErrorCode::QuotaExceeded);
  EXPECT_EQ(stowage.list(kCard).attachments.size(), 1u);
  EXPECT_EQ(stowage.bytes_used_exact(Ledger::board("B")), 5);

  // Raised, it lets the next attach through as soon.
  stowage.set_quota(Ledger::board("B"), 10);
  stowage.attach(kCard, "files", blob);
  EXPECT_EQ(stowage.bytes_used_exact(Ledger::board("B")), 10);
  EXPECT_EQ(stowage.quota(Ledger::board("B")), 10);
}

TEST_F(StowageTest, SignsBlobIdsForOnePurpose) {
  Stowage stowage = open();
  const Blob blob = stowage.create_and_upload(write_file("a.txt", "a"));
  const std::string signed_id = stowage.signed_id(blob.id, "download");
  ASSERT_TRUE(stowage.find_signed(signed_id, "download").has_value());
  EXPECT_EQ(stowage.find_signed(signed_id, "download")->id, blob.id);
  EXPECT_FALSE(stowage.find_signed(signed_id, "upload").has_value());
  EXPECT_FALSE(stowage.find_signed(signed_id + "x", "download").has_value());
}

TEST_F(StowageTest, BackgroundWorkersRunThePurgeJobs) {
  Stowage stowage = open("[jobs]\nworkers = 1\n");
  const Blob blob = stowage.create_and_upload(write_file("a.txt", "a"));
  stowage.attach(kCard, "files", blob);
  stowage.start_workers();
  EXPECT_EQ(code_of([&] { stowage.drain_jobs(); }), ErrorCode::ValidationError);
  stowage.purge(kCard, "files");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (stored_files() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stowage.stop_workers();
  EXPECT_EQ(stored_files(), 0u);
  EXPECT_EQ(code_of([&] { stowage.find_blob(blob.id); }), ErrorCode::RecordNotFound);
}

TEST_F(StowageTest, OpensFromAFileAndReadsEverySection) {
  const fs::path path = write_file(
      "stowage.toml", config_text("default_service = \"local\"\n[jobs]\nworkers = 3\n"));
  const Config config = load_config(path);
  EXPECT_EQ(config.engine.engine, "sqlite");
  EXPECT_EQ(config.engine.sqlite_path, (dir_ / "stowage.db").string());
  EXPECT_TRUE(config.table.manage_table);
  EXPECT_EQ(config.table.table, "stowage");
  EXPECT_THAT(config.service_names, ElementsAre("local"));
  EXPECT_EQ(config.default_service, "local");
  EXPECT_EQ(config.secret, kSecret);
  EXPECT_EQ(config.workers, 3u);

  Stowage stowage = Stowage::open(path);
  EXPECT_EQ(stowage.create_and_upload(write_file("a.txt", "a")).service_name, "local");
}

// The message of the ConfigurationError that `operation` throws.
std::string configuration_error(const std::function<void()>& operation) {
  try {
    operation();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ConfigurationError) << error.what();
    return error.message();
  }
  ADD_FAILURE() << "no Error was thrown";
  return "";
}

TEST_F(StowageTest, AMissingSecretNamesTheSettingAndTheVariable) {
  ::unsetenv("STOWAGE_SECRET");
  const std::string text = config_text();
  const std::string without_secret = text.substr(text.find('\n') + 1);
  const std::string message = configuration_error([&] { Stowage::from_toml(without_secret); });
  EXPECT_THAT(message, HasSubstr("secret = "));
  EXPECT_THAT(message, HasSubstr("STOWAGE_SECRET"));
  // Nothing was opened: the table's file and the service's root are absent.
  EXPECT_FALSE(fs::exists(dir_ / "stowage.db"));
  EXPECT_FALSE(fs::exists(storage()));

  ::setenv("STOWAGE_SECRET", kSecret, 1);
  EXPECT_EQ(parse_config(without_secret).secret, kSecret);
  ::unsetenv("STOWAGE_SECRET");
}

TEST(Config, NamesWhatIsWrong) {
  const std::string service = "[services.local]\nservice = \"Disk\"\nroot = \"s\"\n";
  EXPECT_THAT(configuration_error([&] { parse_config("secrets = \"x\"\n" + service); }),
              HasSubstr("unknown setting secrets"));
  EXPECT_THAT(configuration_error([&] { parse_config(service + "[engine]\npth = \"x\"\n"); }),
              HasSubstr("line 5: unknown setting engine.pth"));
  EXPECT_THAT(configuration_error([&] { parse_config(service + "[engine]\npath = 1\n"); }),
              HasSubstr("engine.path must be a string"));
  EXPECT_THAT(configuration_error([&] { parse_config("secret = \"x\"\n"); }),
              HasSubstr("no byte service is configured"));
  EXPECT_THAT(configuration_error([&] { parse_config(service + "[services.other]\n"); }),
              HasSubstr("default_service = \"NAME\" is needed"));
  EXPECT_THAT(configuration_error([&] { parse_config("default_service = \"s3\"\n" + service); }),
              HasSubstr("names no [services.s3] table"));
  EXPECT_THAT(configuration_error([&] { parse_config(service + "[jobs]\nworkers = -1\n"); }),
              HasSubstr("jobs.workers must be a whole number"));
  EXPECT_THAT(configuration_error([&] { parse_config(service + "[table]\nmode = \"C\"\n"); }),
              HasSubstr("mode"));
  EXPECT_THAT(configuration_error([&] { parse_config("[services\n", "app.toml"); }),
              HasSubstr("app.toml line 1: not valid TOML"));
  EXPECT_THAT(configuration_error([&] { load_config("/nonexistent/stowage.toml"); }),
              HasSubstr("/nonexistent/stowage.toml"));
}

TEST(Config, TheTableNameComesFromTheTableSection) {
  const std::string service = "[services.local]\nservice = \"Disk\"\nroot = \"s\"\n";
  ::setenv("STOWAGE_TABLE", "from_environment", 1);
  EXPECT_EQ(parse_config(service).table.table, "from_environment");
  EXPECT_EQ(parse_config(service + "[table]\ntable = \"from_file\"\n").table.table, "from_file");
  ::unsetenv("STOWAGE_TABLE");
  EXPECT_EQ(parse_config(service).table.table, "stowage");
}

}  // namespace
}  // namespace stowage
