// The credential chain and region resolution, with the environment and the
// shared files under the test's control.
#include "aws/credentials.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "stowage/error.h"

namespace stowage::aws {
namespace {

namespace fs = std::filesystem;

constexpr const char* kVariables[] = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
    "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_PROFILE",
    "AWS_REGION", "AWS_DEFAULT_REGION", "HOME"};

// Clears every variable the chain reads and points HOME at an empty
// temporary directory; restores all of them afterwards.
class CredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kVariables) {
      const char* value = std::getenv(name);
      if (value != nullptr) saved_.emplace_back(name, value);
      ::unsetenv(name);
    }
    dir_ = fs::temp_directory_path() /
           ("stowage-credentials-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::setenv("HOME", dir_.c_str(), 1);
  }

  void TearDown() override {
    for (const char* name : kVariables) ::unsetenv(name);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
    fs::remove_all(dir_);
  }

  std::string write(const std::string& relative, const std::string& text) {
    fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }

  static ErrorCode failure_code(std::string* message = nullptr) {
    try {
      resolve_credentials();
    } catch (const Error& e) {
      if (message != nullptr) *message = e.message();
      return e.code();
    }
    ADD_FAILURE() << "credentials resolved unexpectedly";
    return ErrorCode::IoError;
  }

  fs::path dir_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(CredentialsTest, EnvironmentComesFirst) {
  write(".aws/credentials", "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n");
  ::setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "ENVSECRET", 1);
  ::setenv("AWS_SESSION_TOKEN", "ENVTOKEN", 1);
  Credentials credentials = resolve_credentials();
  EXPECT_EQ(credentials.access_key_id, "ENVKEY");
  EXPECT_EQ(credentials.secret_access_key, "ENVSECRET");
  EXPECT_EQ(credentials.session_token, "ENVTOKEN");
}

TEST_F(CredentialsTest, HalfSetEnvironmentIsAnError) {
  ::setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  std::string message;
  EXPECT_EQ(failure_code(&message), ErrorCode::AccessDenied);
  EXPECT_NE(message.find("AWS_SECRET_ACCESS_KEY"), std::string::npos) << message;
}

TEST_F(CredentialsTest, SharedCredentialsFileInHome) {
  write(".aws/credentials",
        "# comment\n[other]\naws_access_key_id=OTHER\naws_secret_access_key=OTHERSECRET\n"
        "\n[default]\n  aws_access_key_id = DEFKEY  \r\naws_secret_access_key=DEF/SECRET+=\n"
        "; another comment\naws_session_token = TOKEN==\n");
  Credentials credentials = resolve_credentials();
  EXPECT_EQ(credentials.access_key_id, "DEFKEY");
  EXPECT_EQ(credentials.secret_access_key, "DEF/SECRET+=");
  EXPECT_EQ(credentials.session_token, "TOKEN==");
}

TEST_F(CredentialsTest, ProfileSelectsTheSection) {
  std::string path = write("elsewhere/creds",
                           "[default]\naws_access_key_id=DEF\naws_secret_access_key=DEFS\n"
                           "[work]\naws_access_key_id=WORK\naws_secret_access_key=WORKS\n");
  ::setenv("AWS_SHARED_CREDENTIALS_FILE", path.c_str(), 1);
  ::setenv("AWS_PROFILE", "work", 1);
  Credentials credentials = resolve_credentials();
  EXPECT_EQ(credentials.access_key_id, "WORK");
  EXPECT_EQ(credentials.secret_access_key, "WORKS");
  EXPECT_EQ(credentials.session_token, "");
}

TEST_F(CredentialsTest, ConfigFileIsTheFallback) {
  write(".aws/credentials", "[default]\naws_access_key_id=DEF\naws_secret_access_key=DEFS\n");
  write(".aws/config",
        "[default]\nregion=eu-west-1\n"
        "[profile ci]\naws_access_key_id=CIKEY\naws_secret_access_key=CISECRET\n");
  ::setenv("AWS_PROFILE", "ci", 1);
  Credentials credentials = resolve_credentials();
  EXPECT_EQ(credentials.access_key_id, "CIKEY");
  EXPECT_EQ(credentials.secret_access_key, "CISECRET");
}

TEST_F(CredentialsTest, ConfigFileDefaultProfileIsPlainDefaultSection) {
  std::string path = write("cfg", "[default]\naws_access_key_id=K\naws_secret_access_key=S\n");
  ::setenv("AWS_CONFIG_FILE", path.c_str(), 1);
  EXPECT_EQ(resolve_credentials().access_key_id, "K");
}

TEST_F(CredentialsTest, NothingFoundNamesEveryPlaceLooked) {
  std::string path = write("creds", "[default]\naws_access_key_id=DEF\naws_secret_access_key=S\n");
  ::setenv("AWS_SHARED_CREDENTIALS_FILE", path.c_str(), 1);
  ::setenv("AWS_PROFILE", "missing", 1);
  std::string message;
  EXPECT_EQ(failure_code(&message), ErrorCode::AccessDenied);
  EXPECT_NE(message.find("AWS_ACCESS_KEY_ID"), std::string::npos) << message;
  EXPECT_NE(message.find(path + " [missing]"), std::string::npos) << message;
  EXPECT_NE(message.find((dir_ / ".aws/config").string() + " [profile missing]"),
            std::string::npos)
      << message;
}

TEST_F(CredentialsTest, SectionWithOnlyAKeyIdIsAnError) {
  write(".aws/credentials", "[default]\naws_access_key_id=ONLY\n");
  std::string message;
  EXPECT_EQ(failure_code(&message), ErrorCode::AccessDenied);
  EXPECT_NE(message.find("aws_secret_access_key"), std::string::npos) << message;
}

TEST_F(CredentialsTest, RegionOrder) {
  EXPECT_EQ(resolve_region(), "us-east-1");

  write(".aws/config", "[default]\nregion = ap-south-1\n[profile eu]\nregion=eu-central-1\n");
  EXPECT_EQ(resolve_region(), "ap-south-1");
  ::setenv("AWS_PROFILE", "eu", 1);
  EXPECT_EQ(resolve_region(), "eu-central-1");

  ::setenv("AWS_DEFAULT_REGION", "us-west-1", 1);
  EXPECT_EQ(resolve_region(), "us-west-1");
  ::setenv("AWS_REGION", "us-west-2", 1);
  EXPECT_EQ(resolve_region(), "us-west-2");
}

}  // namespace
}  // namespace stowage::aws
