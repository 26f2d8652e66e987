#include "model/signed_id.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "stowage/error.h"

namespace stowage::model {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

constexpr char kBlobId[] = "3f2c1a9e-7b4d-4e1f-9a2b-0c5d6e7f8a9b";

const MessageVerifier& verifier() {
  static const MessageVerifier instance("0123456789abcdef0123456789abcdef");
  return instance;
}

TEST(MessageVerifierTest, RoundTripsWithAndWithoutExpiry) {
  const auto now = system_clock::now();
  EXPECT_EQ(verifier().verify(verifier().generate(kBlobId, "blob_id", std::nullopt),
                              "blob_id", now),
            kBlobId);
  EXPECT_EQ(verifier().verify(verifier().generate(kBlobId, "blob_id", now + seconds(60)),
                              "blob_id", now),
            kBlobId);
}

TEST(MessageVerifierTest, IdsAreUrlSafe) {
  const std::string id = verifier().generate(kBlobId, "blob_id", system_clock::now());
  EXPECT_EQ(id.find_first_not_of(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos)
      << id;
}

TEST(MessageVerifierTest, ExpiredIdIsRejectedAtItsExpiry) {
  const auto expires = system_clock::now() + seconds(10);
  const std::string id = verifier().generate(kBlobId, "blob_id", expires);
  EXPECT_TRUE(verifier().verify(id, "blob_id", expires - seconds(1)));
  EXPECT_FALSE(verifier().verify(id, "blob_id", expires));
  EXPECT_FALSE(verifier().verify(id, "blob_id", expires + seconds(1)));
}

TEST(MessageVerifierTest, WrongPurposeIsRejected) {
  const std::string id = verifier().generate(kBlobId, "blob_id", std::nullopt);
  const auto now = system_clock::now();
  EXPECT_FALSE(verifier().verify(id, "download", now));
  EXPECT_FALSE(verifier().verify(id, "", now));
  EXPECT_FALSE(verifier().verify(id, "blob_id ", now));
}

TEST(MessageVerifierTest, EveryTamperedCharacterIsRejected) {
  const std::string id = verifier().generate(kBlobId, "blob_id", std::nullopt);
  const auto now = system_clock::now();
  for (std::size_t i = 0; i < id.size(); ++i) {
    std::string tampered = id;
    tampered[i] = tampered[i] == 'x' ? 'y' : 'x';
    EXPECT_FALSE(verifier().verify(tampered, "blob_id", now)) << "position " << i;
  }
  EXPECT_FALSE(verifier().verify(id.substr(0, id.size() - 1), "blob_id", now));
  EXPECT_FALSE(verifier().verify(id + "A", "blob_id", now));
  EXPECT_FALSE(verifier().verify("", "blob_id", now));
  EXPECT_FALSE(verifier().verify("--", "blob_id", now));
}

TEST(MessageVerifierTest, AnotherSecretDoesNotVerify) {
  const MessageVerifier other("fedcba9876543210fedcba9876543210");
  EXPECT_FALSE(other.verify(verifier().generate(kBlobId, "blob_id", std::nullopt),
                            "blob_id", system_clock::now()));
}

TEST(MessageVerifierTest, ShortSecretIsAConfigurationError) {
  try {
    MessageVerifier("short");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ConfigurationError);
  }
}

}  // namespace
}  // namespace stowage::model
