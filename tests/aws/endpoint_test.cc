#include "aws/endpoint.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "stowage/error.h"

namespace stowage::aws {
namespace {

class EndpointTest : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name :
         {"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3"}) {
      ::unsetenv(name);
    }
  }
};

ErrorCode failure_code(const std::string& configured) {
  try {
    resolve_endpoint("dynamodb", "us-east-1", configured);
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "'" << configured << "' accepted";
  return ErrorCode::IoError;
}

TEST_F(EndpointTest, PublicEndpointFromRegion) {
  EXPECT_EQ(resolve_endpoint("dynamodb", "eu-west-1"), "https://dynamodb.eu-west-1.amazonaws.com");
  EXPECT_EQ(resolve_endpoint("s3", "us-east-1"), "https://s3.us-east-1.amazonaws.com");
}

TEST_F(EndpointTest, EnvironmentOrder) {
  ::setenv("AWS_ENDPOINT_URL", "http://localhost:4566", 1);
  EXPECT_EQ(resolve_endpoint("dynamodb", "us-east-1"), "http://localhost:4566");
  EXPECT_EQ(resolve_endpoint("s3", "us-east-1"), "http://localhost:4566");

  ::setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:5000/", 1);
  EXPECT_EQ(resolve_endpoint("dynamodb", "us-east-1"), "http://127.0.0.1:5000");
  EXPECT_EQ(resolve_endpoint("s3", "us-east-1"), "http://localhost:4566");

  EXPECT_EQ(resolve_endpoint("dynamodb", "us-east-1", "https://ddb.example.com"),
            "https://ddb.example.com");
}

TEST_F(EndpointTest, AcceptedForms) {
  EXPECT_EQ(resolve_endpoint("dynamodb", "", "http://[::1]:8000"), "http://[::1]:8000");
  EXPECT_EQ(resolve_endpoint("dynamodb", "", "https://host-1.example.com:65535/"),
            "https://host-1.example.com:65535");
}

TEST_F(EndpointTest, MalformedUrlsAreConfigurationErrors) {
  for (const char* bad :
       {"localhost:8000", "ftp://host", "http://", "http://host:", "http://host:0",
        "http://host:70000", "http://host:80a", "http://host/path", "http://host:80/path",
        "http://ho st", "http://[::1", "http://[zz]:1"}) {
    EXPECT_EQ(failure_code(bad), ErrorCode::ConfigurationError) << bad;
  }
  ::setenv("AWS_ENDPOINT_URL_S3", "s3.local", 1);
  try {
    resolve_endpoint("s3", "us-east-1");
    FAIL() << "bad environment endpoint accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ConfigurationError);
    EXPECT_NE(e.message().find("AWS_ENDPOINT_URL_S3"), std::string::npos) << e.message();
  }
}

TEST_F(EndpointTest, RegionMustBeUsable) {
  EXPECT_THROW(resolve_endpoint("dynamodb", ""), Error);
  EXPECT_THROW(resolve_endpoint("dynamodb", "us-east-1.evil.com/"), Error);
}

}  // namespace
}  // namespace stowage::aws
