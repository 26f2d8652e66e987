#include "service/service_config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "service/disk_service.h"
#include "service/mirror_service.h"
#include "stowage/error.h"

namespace stowage::service {
namespace {

namespace fs = std::filesystem;

class ServiceConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "stowage-config-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string configuration() const {
    return "[services.local]\n"
           "service = \"Disk\"\n"
           "root = \"" + (dir_ / "local").string() + "\"\n"
           "url_secret = \"s3cret\"\n"
           "[services.offsite]\n"
           "service = \"Disk\"\n"
           "root = \"" + (dir_ / "offsite").string() + "\"\n"
           "[services.both]\n"
           "service = \"Mirror\"\n"
           "primary = \"local\"\n"
           "mirrors = [\"offsite\"]\n"
           "[services.loop]\n"
           "service = \"Mirror\"\n"
           "primary = \"loop\"\n"
           "mirrors = []\n"
           "[services.odd]\n"
           "service = \"Floppy\"\n";
  }

  ErrorCode failure(std::string_view name, std::string_view text) {
    try {
      configure_service(name, text);
    } catch (const Error& error) {
      message_ = error.message();
      return error.code();
    }
    ADD_FAILURE() << "expected an Error";
    return ErrorCode::IoError;
  }

  fs::path dir_;
  std::string message_;
};

TEST_F(ServiceConfigTest, BuildsADiskService) {
  const auto service = configure_service("local", configuration());
  const auto* disk = dynamic_cast<DiskService*>(service.get());
  ASSERT_NE(disk, nullptr);
  EXPECT_EQ(disk->root(), dir_ / "local");
  EXPECT_TRUE(fs::is_directory(dir_ / "local"));
  EXPECT_NO_THROW(service->url("somekey", std::chrono::minutes(1), "a.txt",
                               "text/plain", Disposition::Inline));
}

TEST_F(ServiceConfigTest, BuildsAMirrorFromNamedServices) {
  const auto service = configure_service("both", configuration());
  ASSERT_NE(dynamic_cast<MirrorService*>(service.get()), nullptr);
  StringSource source("copied");
  service->upload("configkey", source, {});
  EXPECT_TRUE(fs::exists(dir_ / "local" / "co" / "nf" / "configkey"));
  EXPECT_TRUE(fs::exists(dir_ / "offsite" / "co" / "nf" / "configkey"));
}

TEST_F(ServiceConfigTest, RejectsBadConfigurations) {
  EXPECT_EQ(failure("missing", configuration()), ErrorCode::ConfigurationError);
  EXPECT_NE(message_.find("[services.missing]"), std::string::npos);
  EXPECT_EQ(failure("odd", configuration()), ErrorCode::ConfigurationError);
  EXPECT_NE(message_.find("Floppy"), std::string::npos);
  EXPECT_EQ(failure("loop", configuration()), ErrorCode::ConfigurationError);
  EXPECT_EQ(failure("x", "[services.x]\nservice = \"Disk\"\n"),
            ErrorCode::ConfigurationError);
  EXPECT_NE(message_.find("root"), std::string::npos);
  EXPECT_EQ(failure("x", "[services.x\n"), ErrorCode::ConfigurationError);
  EXPECT_EQ(failure("x", "[services.x]\nservice = \"Mirror\"\nprimary = \"x\"\n"),
            ErrorCode::ConfigurationError);
}

}  // namespace
}  // namespace stowage::service
