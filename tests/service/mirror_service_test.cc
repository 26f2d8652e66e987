#include "service/mirror_service.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <filesystem>

#include "common/digest.h"
#include "service/disk_service.h"
#include "stowage/error.h"

namespace stowage::service {
namespace {

namespace fs = std::filesystem;

// A disk whose writes fail with ENOSPC while `full` is set.
class FillableIo : public DiskIo {
 public:
  ssize_t write(int fd, const char* data, std::size_t size) override {
    if (full) {
      errno = ENOSPC;
      return -1;
    }
    return DiskIo::write(fd, data, size);
  }
  bool full = false;
};

std::string download_all(Service& service, std::string_view key) {
  StringSink sink;
  service.download(key, sink);
  return sink.data();
}

class MirrorServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "stowage-mirror-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    primary_ = disk("primary", nullptr);
    first_mirror_ = disk("first", nullptr);
    second_io_ = std::make_shared<FillableIo>();
    second_mirror_ = disk("second", second_io_);
    mirror_ = std::make_unique<MirrorService>(
        primary_, std::vector<std::shared_ptr<Service>>{first_mirror_,
                                                        second_mirror_});
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::shared_ptr<DiskService> disk(const char* name,
                                    std::shared_ptr<DiskIo> io) {
    DiskServiceOptions options;
    options.root = dir_ / name;
    options.url_secret = "secret";
    options.io = std::move(io);
    return std::make_shared<DiskService>(std::move(options));
  }

  UploadResult upload(std::string_view key, std::string_view data,
                      std::string checksum = {}) {
    StringSource source(data);
    UploadOptions options;
    options.checksum = std::move(checksum);
    return mirror_->upload(key, source, options);
  }

  fs::path dir_;
  std::shared_ptr<DiskService> primary_, first_mirror_, second_mirror_;
  std::shared_ptr<FillableIo> second_io_;
  std::unique_ptr<MirrorService> mirror_;
};

TEST_F(MirrorServiceTest, UploadWritesEveryCopy) {
  // Larger than one copy range, so a mirror is fed from several.
  const std::string data = random_bytes(9 * 1024 * 1024 + 3);
  const UploadResult result = upload("mirroredkey", data);
  EXPECT_EQ(result.byte_size, data.size());
  EXPECT_EQ(result.checksum, base64_encode(md5(data)));
  for (Service* service : {static_cast<Service*>(primary_.get()),
                           static_cast<Service*>(first_mirror_.get()),
                           static_cast<Service*>(second_mirror_.get())}) {
    EXPECT_EQ(download_all(*service, "mirroredkey"), data);
  }
}

TEST_F(MirrorServiceTest, ReadsComeFromThePrimary) {
  StringSource source("only on the mirror");
  first_mirror_->upload("strayskey", source, {});
  EXPECT_FALSE(mirror_->exists("strayskey"));
  EXPECT_TRUE(mirror_->list_objects("").empty());
  EXPECT_THROW(download_all(*mirror_, "strayskey"), Error);

  upload("primarykey", "0123456789");
  EXPECT_TRUE(mirror_->exists("primarykey"));
  EXPECT_EQ(download_all(*mirror_, "primarykey"), "0123456789");
  EXPECT_EQ(mirror_->download_range("primarykey", 2, 3), "234");
  ASSERT_EQ(mirror_->list_objects("prim").size(), 1u);
  EXPECT_EQ(mirror_->url("primarykey", std::chrono::minutes(1), "f.txt",
                         "text/plain", Disposition::Inline)
                .substr(0, 17),
            "/disk/primarykey/");
}

TEST_F(MirrorServiceTest, FailedMirrorUndoesEveryCopy) {
  second_io_->full = true;
  try {
    upload("failedkey", "bytes");
    FAIL() << "expected the second mirror's failure";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::IoError);
    EXPECT_NE(error.message().find("disk full"), std::string::npos);
  }
  EXPECT_FALSE(primary_->exists("failedkey"));
  EXPECT_FALSE(first_mirror_->exists("failedkey"));
  EXPECT_FALSE(second_mirror_->exists("failedkey"));
}

TEST_F(MirrorServiceTest, ChecksumMismatchStoresNothingAnywhere) {
  EXPECT_THROW(upload("badsumkey", "bytes", base64_encode(md5("other"))),
               Error);
  EXPECT_TRUE(primary_->list_objects("").empty());
  EXPECT_TRUE(first_mirror_->list_objects("").empty());
  EXPECT_TRUE(second_mirror_->list_objects("").empty());
}

TEST_F(MirrorServiceTest, RemovesEverywhere) {
  upload("gonekey1", "a");
  upload("gonekey2", "b");
  upload("keptkey3", "c");
  mirror_->remove("gonekey1");
  mirror_->remove_prefixed("gonekey");
  for (Service* service : {static_cast<Service*>(primary_.get()),
                           static_cast<Service*>(first_mirror_.get()),
                           static_cast<Service*>(second_mirror_.get())}) {
    ASSERT_EQ(service->list_objects("").size(), 1u);
    EXPECT_EQ(service->list_objects("")[0].key, "keptkey3");
  }
  EXPECT_NO_THROW(mirror_->remove("gonekey1"));
}

TEST_F(MirrorServiceTest, MirrorCopiesToMirrorsThatLackTheObject) {
  const std::string data = random_bytes(5 * 1024 * 1024);
  StringSource source(data);
  const UploadResult result = primary_->upload("latekey1", source, {});
  mirror_->mirror("latekey1", result.checksum);
  EXPECT_EQ(download_all(*first_mirror_, "latekey1"), data);
  EXPECT_EQ(download_all(*second_mirror_, "latekey1"), data);

  StringSource other("other");
  primary_->upload("latekey2", other, {});
  try {
    mirror_->mirror("latekey2", base64_encode(md5("not these bytes")));
    FAIL() << "expected IntegrityError";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::IntegrityError);
  }
  EXPECT_FALSE(first_mirror_->exists("latekey2"));

  try {
    mirror_->mirror("absentkey", result.checksum);
    FAIL() << "expected RecordNotFound";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RecordNotFound);
  }
}

}  // namespace
}  // namespace stowage::service
