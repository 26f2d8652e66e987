// SigV4 against published vectors: the AWS Signature Version 4 test suite
// (credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1, service
// "service") and the S3 documentation's signing examples.
#include "aws/sigv4.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "stowage/error.h"

namespace stowage::aws {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

const Credentials kSuiteCredentials{"AKIDEXAMPLE",
                                    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
const SigningScope kSuiteScope{"us-east-1", "service"};
const system_clock::time_point kSuiteTime{seconds(1440938160)};  // 20150830T123600Z

const Credentials kS3Credentials{"AKIAIOSFODNN7EXAMPLE",
                                 "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const SigningScope kS3Scope{"us-east-1", "s3"};
const system_clock::time_point kS3Time{seconds(1369353600)};  // 20130524T000000Z

constexpr char kSuiteCredential[] =
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ";

std::string header(const HttpRequest& request, const std::string& name) {
  std::string found;
  int count = 0;
  for (const auto& [key, value] : request.headers) {
    if (key == name) {
      found = value;
      ++count;
    }
  }
  EXPECT_LE(count, 1) << "header " << name << " appears more than once";
  return found;
}

std::string signed_authorization(HttpRequest request,
                                 const Credentials& credentials = kSuiteCredentials) {
  sign_request(request, credentials, kSuiteScope, kSuiteTime);
  return header(request, "Authorization");
}

TEST(SigV4, GetVanilla) {
  HttpRequest request{"GET", "https://example.amazonaws.com/", {}, ""};
  sign_request(request, kSuiteCredentials, kSuiteScope, kSuiteTime);
  EXPECT_EQ(header(request, "Host"), "example.amazonaws.com");
  EXPECT_EQ(header(request, "X-Amz-Date"), "20150830T123600Z");
  EXPECT_EQ(header(request, "Authorization"),
            std::string(kSuiteCredential) +
                "SignedHeaders=host;x-amz-date, "
                "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4, GetVanillaQueryOrderKeyCase) {
  EXPECT_EQ(signed_authorization(
                {"GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1", {}, ""}),
            std::string(kSuiteCredential) +
                "SignedHeaders=host;x-amz-date, "
                "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST(SigV4, PostVanilla) {
  EXPECT_EQ(signed_authorization({"POST", "https://example.amazonaws.com/", {}, ""}),
            std::string(kSuiteCredential) +
                "SignedHeaders=host;x-amz-date, "
                "Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

TEST(SigV4, PostXWwwFormUrlencoded) {
  HttpRequest request{"POST",
                      "https://example.amazonaws.com/",
                      {{"Content-Type", "application/x-www-form-urlencoded"}},
                      "Param1=value1"};
  EXPECT_EQ(signed_authorization(request),
            std::string(kSuiteCredential) +
                "SignedHeaders=content-type;host;x-amz-date, "
                "Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
}

TEST(SigV4, GetHeaderValueTrim) {
  HttpRequest request{"GET",
                      "https://example.amazonaws.com/",
                      {{"My-Header1", " value1"}, {"My-Header2", "\"a   b   c\""}},
                      ""};
  EXPECT_EQ(signed_authorization(request),
            std::string(kSuiteCredential) +
                "SignedHeaders=host;my-header1;my-header2;x-amz-date, "
                "Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");
}

TEST(SigV4, PostStsHeaderBeforeSignsTheSessionToken) {
  Credentials temporary = kSuiteCredentials;
  temporary.session_token =
      "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwA"
      "eMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8p"
      "hUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT"
      "38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabI"
      "Qwj2ICCR/oLxBA==";
  HttpRequest request{"POST", "https://example.amazonaws.com/", {}, ""};
  sign_request(request, temporary, kSuiteScope, kSuiteTime);
  EXPECT_EQ(header(request, "X-Amz-Security-Token"), temporary.session_token);
  EXPECT_EQ(header(request, "Authorization"),
            std::string(kSuiteCredential) +
                "SignedHeaders=host;x-amz-date;x-amz-security-token, "
                "Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead");
}

TEST(SigV4, SigningTwiceReplacesThePreviousSignature) {
  HttpRequest request{"GET", "https://example.amazonaws.com/", {}, ""};
  sign_request(request, kSuiteCredentials, kSuiteScope, kSuiteTime - seconds(60));
  sign_request(request, kSuiteCredentials, kSuiteScope, kSuiteTime);
  EXPECT_EQ(request.headers.size(), 3u);  // Host, X-Amz-Date, Authorization
  EXPECT_EQ(header(request, "Authorization"),
            std::string(kSuiteCredential) +
                "SignedHeaders=host;x-amz-date, "
                "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4, EquivalentQuerySpellingsSignAlike) {
  // %7E and ~ are the same character; SigV4 encodes it as ~.
  EXPECT_EQ(signed_authorization({"GET", "https://example.amazonaws.com/?a=%7Eb", {}, ""}),
            signed_authorization({"GET", "https://example.amazonaws.com/?a=~b", {}, ""}));
  EXPECT_NE(signed_authorization({"GET", "https://example.amazonaws.com/?a=b", {}, ""}),
            signed_authorization({"GET", "https://example.amazonaws.com/?a=c", {}, ""}));
}

TEST(SigV4, PortIsPartOfTheHostHeader) {
  HttpRequest request{"POST", "http://127.0.0.1:5000/", {}, "{}"};
  sign_request(request, kSuiteCredentials, {"us-east-1", "dynamodb"}, kSuiteTime);
  EXPECT_EQ(header(request, "Host"), "127.0.0.1:5000");
}

// S3 documentation, "Signature Calculations for the Authorization Header:
// Transferring Payload in a Single Chunk", example GET Object.
TEST(SigV4, S3GetObjectExample) {
  HttpRequest request{"GET",
                      "https://examplebucket.s3.amazonaws.com/test.txt",
                      {{"Range", "bytes=0-9"}},
                      ""};
  sign_request(request, kS3Credentials, kS3Scope, kS3Time, /*sign_payload_header=*/true);
  EXPECT_EQ(header(request, "X-Amz-Content-Sha256"),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(header(request, "Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
            "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, CallerSetPayloadHashIsSignedAsGiven) {
  HttpRequest request{"PUT",
                      "https://examplebucket.s3.amazonaws.com/big.bin",
                      {{"X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD"}},
                      "streamed"};
  sign_request(request, kS3Credentials, kS3Scope, kS3Time, true);
  EXPECT_EQ(header(request, "X-Amz-Content-Sha256"), "UNSIGNED-PAYLOAD");
}

// S3 documentation, "Authenticating Requests: Using Query Parameters",
// example presigned GET of examplebucket/test.txt.
TEST(SigV4, PresignUrlS3Example) {
  EXPECT_EQ(presign_url("GET", "https://examplebucket.s3.amazonaws.com/test.txt",
                        kS3Credentials, kS3Scope, kS3Time, seconds(86400)),
            "https://examplebucket.s3.amazonaws.com/test.txt"
            "?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
            "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
            "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
}

TEST(SigV4, PresignUrlEncodesTheKeyOnceAndKeepsQueryParameters) {
  std::string url = presign_url(
      "GET", "http://127.0.0.1:9000/bucket/a%20b/c+d.txt?response-content-type=text%2Fplain",
      kS3Credentials, kS3Scope, kS3Time, seconds(60));
  EXPECT_EQ(url.rfind("http://127.0.0.1:9000/bucket/a%20b/c%2Bd.txt?", 0), 0u) << url;
  EXPECT_NE(url.find("&response-content-type=text%2Fplain"), std::string::npos) << url;
  EXPECT_NE(url.find("X-Amz-Expires=60&"), std::string::npos) << url;
}

TEST(SigV4, PresignUrlCarriesTheSessionToken) {
  Credentials temporary = kS3Credentials;
  temporary.session_token = "token/with+chars=";
  std::string url = presign_url("PUT", "https://examplebucket.s3.amazonaws.com/test.txt",
                                temporary, kS3Scope, kS3Time, seconds(60));
  EXPECT_NE(url.find("X-Amz-Security-Token=token%2Fwith%2Bchars%3D"), std::string::npos)
      << url;
}

TEST(SigV4, PresignUrlRejectsExpiryOutsideOneSecondToSevenDays) {
  auto presign = [](seconds expires) {
    return presign_url("GET", "https://examplebucket.s3.amazonaws.com/test.txt",
                       kS3Credentials, kS3Scope, kS3Time, expires);
  };
  EXPECT_NO_THROW(presign(seconds(1)));
  EXPECT_NO_THROW(presign(seconds(604800)));
  for (seconds bad : {seconds(0), seconds(604801)}) {
    try {
      presign(bad);
      ADD_FAILURE() << "expiry " << bad.count() << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::ValidationError);
    }
  }
}

TEST(SigV4, MalformedUrlIsRejected) {
  HttpRequest request{"GET", "not a url", {}, ""};
  try {
    sign_request(request, kSuiteCredentials, kSuiteScope, kSuiteTime);
    FAIL() << "malformed URL signed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ValidationError);
  }
  HttpRequest bad_escape{"GET", "https://example.amazonaws.com/a%zz", {}, ""};
  EXPECT_THROW(sign_request(bad_escape, kSuiteCredentials, kSuiteScope, kSuiteTime), Error);
}

}  // namespace
}  // namespace stowage::aws
