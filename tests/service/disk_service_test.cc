#include "service/disk_service.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/digest.h"
#include "stowage/error.h"

namespace stowage::service {
namespace {

namespace fs = std::filesystem;
using std::chrono::system_clock;

fs::path make_temp_root() {
  std::string pattern =
      (fs::temp_directory_path() / "stowage-disk-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

// Every regular file under `root`, so tests can prove nothing was left.
std::vector<fs::path> files_under(const fs::path& root) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  return files;
}

std::string download_all(Service& service, std::string_view key) {
  StringSink sink;
  service.download(key, sink);
  return sink.data();
}

ErrorCode code_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.code();
  }
  ADD_FAILURE() << "expected an Error";
  return ErrorCode::IoError;
}

class DiskServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { root_ = make_temp_root() / "blobs"; }
  void TearDown() override { fs::remove_all(root_.parent_path()); }

  DiskService make(std::shared_ptr<DiskIo> io = nullptr) {
    DiskServiceOptions options;
    options.root = root_;
    options.url_secret = "test secret";
    options.io = std::move(io);
    return DiskService(std::move(options));
  }

  UploadResult upload(DiskService& service, std::string_view key,
                      std::string_view data, std::string checksum = {}) {
    StringSource source(data);
    UploadOptions options;
    options.checksum = std::move(checksum);
    return service.upload(key, source, options);
  }

  fs::path root_;
};

TEST_F(DiskServiceTest, RoundTripsLargeStreamedObject) {
  DiskService service = make();
  const std::string data = random_bytes(3 * 1024 * 1024 + 17);
  const UploadResult result = upload(service, "roundtripkey", data);
  EXPECT_EQ(result.byte_size, data.size());
  EXPECT_TRUE(service.exists("roundtripkey"));
  EXPECT_EQ(download_all(service, "roundtripkey"), data);
}

TEST_F(DiskServiceTest, ChecksumIsBase64Md5OfTheBytes) {
  DiskService service = make();
  // Known answer: md5("hello world") = 5eb63bbbe01eeed093cb22bb8f5acdc3.
  EXPECT_EQ(upload(service, "hellokey", "hello world").checksum,
            "XrY7u+Ae7tCTyyK7j1rNww==");
  const std::string data = random_bytes(2 * 1024 * 1024 + 5);
  EXPECT_EQ(upload(service, "randomkey", data).checksum,
            base64_encode(md5(data)));
}

TEST_F(DiskServiceTest, UploadsFromAFile) {
  DiskService service = make();
  const fs::path file = root_.parent_path() / "input.bin";
  const std::string data = random_bytes(100000);
  std::ofstream(file, std::ios::binary) << data;
  FileSource source(file.string());
  const UploadResult result = service.upload("fromfilekey", source, {});
  EXPECT_EQ(result.byte_size, data.size());
  EXPECT_EQ(download_all(service, "fromfilekey"), data);
  EXPECT_EQ(code_of([&] { FileSource missing((root_ / "nope").string()); }),
            ErrorCode::IoError);
}

TEST_F(DiskServiceTest, MatchingExpectedChecksumIsAccepted) {
  DiskService service = make();
  EXPECT_NO_THROW(upload(service, "checkedkey", "hello world",
                         "XrY7u+Ae7tCTyyK7j1rNww=="));
  EXPECT_EQ(download_all(service, "checkedkey"), "hello world");
}

TEST_F(DiskServiceTest, ChecksumMismatchLeavesNothing) {
  DiskService service = make();
  EXPECT_EQ(code_of([&] {
              upload(service, "mismatchkey", "hello world",
                     base64_encode(md5("something else")));
            }),
            ErrorCode::IntegrityError);
  EXPECT_FALSE(service.exists("mismatchkey"));
  EXPECT_TRUE(service.list_objects("").empty());
  EXPECT_TRUE(files_under(root_).empty());
}

TEST_F(DiskServiceTest, MismatchedUploadKeepsThePreviousObject) {
  DiskService service = make();
  upload(service, "keptkey1", "original");
  EXPECT_THROW(upload(service, "keptkey1", "replacement",
                      base64_encode(md5("other"))),
               Error);
  EXPECT_EQ(download_all(service, "keptkey1"), "original");
  upload(service, "keptkey1", "replacement");
  EXPECT_EQ(download_all(service, "keptkey1"), "replacement");
}

TEST_F(DiskServiceTest, ReadsByteRanges) {
  DiskService service = make();
  upload(service, "rangekey", "0123456789");
  EXPECT_EQ(service.download_range("rangekey", 0, 4), "0123");
  EXPECT_EQ(service.download_range("rangekey", 3, 4), "3456");
  EXPECT_EQ(service.download_range("rangekey", 7, 100), "789");
  EXPECT_EQ(service.download_range("rangekey", 10, 5), "");
  EXPECT_EQ(service.download_range("rangekey", 1000, 5), "");
  EXPECT_EQ(service.download_range("rangekey", 2, 0), "");
}

TEST_F(DiskServiceTest, MissingObjectsAreRecordNotFound) {
  DiskService service = make();
  EXPECT_FALSE(service.exists("missingkey"));
  EXPECT_EQ(code_of([&] { download_all(service, "missingkey"); }),
            ErrorCode::RecordNotFound);
  EXPECT_EQ(code_of([&] { service.download_range("missingkey", 0, 1); }),
            ErrorCode::RecordNotFound);
  EXPECT_NO_THROW(service.remove("missingkey"));
}

TEST_F(DiskServiceTest, RemovesOneObjectOrAPrefix) {
  DiskService service = make();
  for (const char* key : {"abcdef-1", "abcdef-2", "abcxyz-1", "zzzz-1"}) {
    upload(service, key, key);
  }
  service.remove("zzzz-1");
  EXPECT_FALSE(service.exists("zzzz-1"));
  service.remove_prefixed("abcdef");
  EXPECT_FALSE(service.exists("abcdef-1"));
  EXPECT_FALSE(service.exists("abcdef-2"));
  EXPECT_TRUE(service.exists("abcxyz-1"));
  EXPECT_EQ(code_of([&] { service.remove_prefixed(""); }),
            ErrorCode::InvalidKey);
  EXPECT_NO_THROW(service.remove_prefixed("nothing"));
}

TEST_F(DiskServiceTest, RejectsKeysThatCouldEscapeTheRoot) {
  DiskService service = make();
  const std::vector<std::string> bad_keys = {
      "",
      "abc",
      "../../etc/passwd",
      "ab/cd/efgh",
      "/etc/passwd",
      "abcd..",
      "..abcd",
      ".abcd.tmp-1",
      std::string("abcd\0efgh", 9),
      "ABCD1234",
      "abcd efgh",
      "abcd\\efgh",
      std::string(201, 'a'),
  };
  for (const std::string& key : bad_keys) {
    SCOPED_TRACE(key);
    EXPECT_EQ(code_of([&] { upload(service, key, "x"); }), ErrorCode::InvalidKey);
    EXPECT_EQ(code_of([&] { download_all(service, key); }), ErrorCode::InvalidKey);
    EXPECT_EQ(code_of([&] { service.exists(key); }), ErrorCode::InvalidKey);
    EXPECT_EQ(code_of([&] { service.remove(key); }), ErrorCode::InvalidKey);
  }
  EXPECT_EQ(code_of([&] { service.list_objects("../"); }), ErrorCode::InvalidKey);
  EXPECT_EQ(code_of([&] { service.remove_prefixed("ab/"); }),
            ErrorCode::InvalidKey);
  EXPECT_TRUE(files_under(root_.parent_path()).empty());
  EXPECT_NO_THROW(upload(service, "a1b2-c3_d4.e5", "x"));
}

TEST_F(DiskServiceTest, UsesActiveStoragePathLayout) {
  DiskService service = make();
  const std::string key = "xk2tqpz0b4v8m1n6s3r5y7w9a0cd";
  EXPECT_EQ(service.path_for(key), root_ / "xk" / "2t" / key);
  upload(service, key, "laid out");
  std::ifstream file(root_ / "xk" / "2t" / key, std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(file)), {});
  EXPECT_EQ(contents, "laid out");
  EXPECT_EQ(files_under(root_), std::vector<fs::path>{root_ / "xk" / "2t" / key});
}

TEST_F(DiskServiceTest, ListsObjectsWithSizesAndModificationTimes) {
  DiskService service = make();
  const auto before = system_clock::now() - std::chrono::seconds(2);
  upload(service, "listb-2", "22");
  upload(service, "lista-1", "1");
  upload(service, "other-3", "333");
  const auto after = system_clock::now() + std::chrono::seconds(2);
  // Strays that are not objects: a leftover temporary file and a file
  // outside the layout.
  std::ofstream(root_ / "li" / "st" / ".listc-9.tmp-0011223344556677") << "x";
  std::ofstream(root_ / "li" / "listz-9") << "x";

  const std::vector<ObjectInfo> all = service.list_objects("");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].key, "lista-1");
  EXPECT_EQ(all[0].byte_size, 1u);
  EXPECT_EQ(all[1].key, "listb-2");
  EXPECT_EQ(all[2].key, "other-3");
  for (const ObjectInfo& object : all) {
    EXPECT_GT(object.modified_at, before);
    EXPECT_LT(object.modified_at, after);
  }

  const std::vector<ObjectInfo> listed = service.list_objects("list");
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].byte_size, 2u);
  ASSERT_EQ(service.list_objects("l").size(), 2u);
  ASSERT_EQ(service.list_objects("lista").size(), 1u);
  EXPECT_TRUE(service.list_objects("nothing").empty());

  // An old object reports its old time, which the orphan sweep relies on.
  const struct timespec old_time[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, service.path_for("other-3").c_str(),
                        old_time, 0),
            0);
  EXPECT_EQ(service.list_objects("other")[0].modified_at,
            system_clock::time_point(std::chrono::seconds(1000000000)));
}

TEST_F(DiskServiceTest, ConcurrentUploadsOfDistinctKeys) {
  DiskService service = make();
  constexpr int kThreads = 8;
  constexpr int kKeysPerThread = 25;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kKeysPerThread; ++i) {
        // Shared leading characters make threads race to create folders.
        const std::string key = "co" + std::to_string(i % 3) + "x-" +
                                std::to_string(t) + "-" + std::to_string(i);
        try {
          const UploadResult result = upload(service, key, key + "-data");
          if (result.checksum != base64_encode(md5(key + "-data"))) ++failures;
        } catch (const Error&) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(service.list_objects("co").size(), kThreads * kKeysPerThread);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kKeysPerThread; ++i) {
      const std::string key = "co" + std::to_string(i % 3) + "x-" +
                              std::to_string(t) + "-" + std::to_string(i);
      EXPECT_EQ(download_all(service, key), key + "-data");
    }
  }
}

// Records which files and directories were fsync'd, in order, and can fail
// writes or fsyncs on demand.
class RecordingIo : public DiskIo {
 public:
  ssize_t write(int fd, const char* data, std::size_t size) override {
    if (fail_writes_after >= 0 && written_ + size > static_cast<std::size_t>(fail_writes_after)) {
      errno = write_errno;
      return -1;
    }
    written_ += size;
    return DiskIo::write(fd, data, size);
  }
  int fsync(int fd) override {
    const fs::path path = fs::read_symlink("/proc/self/fd/" + std::to_string(fd));
    {
      std::lock_guard lock(mutex);
      synced.push_back(path);
    }
    if (fail_directory_fsync && fs::is_directory(path)) {
      errno = EIO;
      return -1;
    }
    return DiskIo::fsync(fd);
  }

  long fail_writes_after = -1;
  int write_errno = ENOSPC;
  bool fail_directory_fsync = false;
  std::mutex mutex;
  std::vector<fs::path> synced;

 private:
  std::size_t written_ = 0;
};

TEST_F(DiskServiceTest, FsyncsFileThenEveryDirectoryItChanged) {
  auto io = std::make_shared<RecordingIo>();
  DiskService service = make(io);
  const fs::path root = fs::canonical(root_);
  upload(service, "syncedkey", "durable");
  ASSERT_FALSE(io->synced.empty());
  // The new folders' entries, then the file's bytes, then its name.
  const std::vector<fs::path> directories(io->synced.begin(),
                                          io->synced.end() - 2);
  EXPECT_EQ(directories, (std::vector<fs::path>{root, root / "sy"}));
  EXPECT_EQ(io->synced[io->synced.size() - 2].parent_path(), root / "sy" / "nc");
  EXPECT_TRUE(io->synced[io->synced.size() - 2].filename().string().starts_with(
      ".syncedkey.tmp-"));
  EXPECT_EQ(io->synced.back(), root / "sy" / "nc");

  // Existing folders known durable are not fsync'd again.
  io->synced.clear();
  upload(service, "syncedkey2", "durable");
  EXPECT_EQ(io->synced.size(), 2u);
  EXPECT_EQ(io->synced.back(), root / "sy" / "nc");

  // Removal is made durable too, so purged bytes cannot come back.
  io->synced.clear();
  service.remove("syncedkey");
  EXPECT_EQ(io->synced, std::vector<fs::path>{root / "sy" / "nc"});
}

TEST_F(DiskServiceTest, DiskFullIsIoErrorAndLeavesNothing) {
  auto io = std::make_shared<RecordingIo>();
  io->fail_writes_after = 1024 * 1024;  // the second chunk fails
  DiskService service = make(io);
  try {
    upload(service, "fullkey1", random_bytes(3 * 1024 * 1024));
    FAIL() << "expected IoError";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::IoError);
    EXPECT_NE(error.message().find("disk full"), std::string::npos)
        << error.message();
    EXPECT_NE(error.message().find(root_.string()), std::string::npos)
        << error.message();
  }
  EXPECT_FALSE(service.exists("fullkey1"));
  EXPECT_TRUE(files_under(root_).empty());
}

TEST_F(DiskServiceTest, FailedDirectoryFsyncLeavesNothing) {
  auto io = std::make_shared<RecordingIo>();
  DiskService service = make(io);
  upload(service, "dirsync-1", "first");  // creates the folders
  io->fail_directory_fsync = true;
  EXPECT_EQ(code_of([&] { upload(service, "dirsync-2", "second"); }),
            ErrorCode::IoError);
  io->fail_directory_fsync = false;
  EXPECT_FALSE(service.exists("dirsync-2"));
  EXPECT_EQ(files_under(root_), std::vector<fs::path>{service.path_for("dirsync-1")});
}

TEST_F(DiskServiceTest, FailingSourceLeavesNothing) {
  DiskService service = make();
  struct FailingSource : ByteSource {
    std::size_t read(char* buf, std::size_t n) override {
      if (calls++ > 0) throw Error::io("cannot read upstream: connection reset");
      std::fill_n(buf, n, 'x');
      return n;
    }
    int calls = 0;
  } source;
  EXPECT_EQ(code_of([&] { service.upload("brokenkey", source, {}); }),
            ErrorCode::IoError);
  EXPECT_TRUE(files_under(root_).empty());
}

TEST_F(DiskServiceTest, SignsUrlsTheHttpLayerCanVerify) {
  DiskService service = make();
  const std::string url = service.url("urlkey12", std::chrono::minutes(5),
                                      "my photo.jpg", "image/jpeg",
                                      Disposition::Attachment);
  const std::string expected_start =
      "/disk/urlkey12/my%20photo.jpg?content_type=image%2Fjpeg"
      "&disposition=attachment&expires=";
  ASSERT_EQ(url.substr(0, expected_start.size()), expected_start) << url;
  const std::size_t expires_at = expected_start.size();
  const std::size_t signature_at = url.find("&signature=");
  ASSERT_NE(signature_at, std::string::npos);

  DiskUrlFields fields{"urlkey12", "my photo.jpg", "image/jpeg",
                       Disposition::Attachment,
                       std::stoll(url.substr(expires_at, signature_at - expires_at)),
                       url.substr(signature_at + 11)};
  const auto now = system_clock::now();
  EXPECT_GT(system_clock::time_point(std::chrono::seconds(fields.expires_at)),
            now + std::chrono::minutes(4));
  EXPECT_TRUE(service.verify_url(fields, now));
  EXPECT_FALSE(service.verify_url(fields, now + std::chrono::minutes(6)));
  DiskUrlFields tampered = fields;
  tampered.content_type = "text/html";
  EXPECT_FALSE(service.verify_url(tampered, now));
  tampered = fields;
  tampered.disposition = Disposition::Inline;
  EXPECT_FALSE(service.verify_url(tampered, now));
  tampered = fields;
  tampered.expires_at += 3600;
  EXPECT_FALSE(service.verify_url(tampered, now));

  DiskServiceOptions unsigned_options;
  unsigned_options.root = root_;
  DiskService without_secret(unsigned_options);
  EXPECT_EQ(code_of([&] {
              without_secret.url("urlkey12", std::chrono::minutes(5), "a",
                                 "b", Disposition::Inline);
            }),
            ErrorCode::ConfigurationError);
}

TEST_F(DiskServiceTest, UnusableRootIsIoError) {
  const fs::path file = root_.parent_path() / "a-file";
  std::ofstream(file) << "x";
  DiskServiceOptions options;
  options.root = file / "blobs";
  EXPECT_EQ(code_of([&] { DiskService service(options); }), ErrorCode::IoError);
}

}  // namespace
}  // namespace stowage::service
