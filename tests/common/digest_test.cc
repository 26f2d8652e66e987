// Digests and encodings against RFC test vectors; uuid format.
#include "common/digest.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/uuid.h"

namespace stowage {
namespace {

TEST(Digest, Sha256) {
  EXPECT_EQ(to_hex(sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(to_hex(sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Digest, HmacSha256Rfc4231) {
  // RFC 4231 test cases 1 and 2.
  EXPECT_EQ(to_hex(hmac_sha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Digest, Md5Rfc1321) {
  EXPECT_EQ(to_hex(md5("")), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(to_hex(md5("message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
}

TEST(Digest, Md5StreamMatchesOneShot) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data.push_back(static_cast<char>(i * 31));
  Md5Stream stream;
  for (std::size_t offset = 0; offset < data.size(); offset += 7777) {
    stream.update(std::string_view(data).substr(offset, 7777));
  }
  EXPECT_EQ(stream.finish(), md5(data));

  Md5Stream empty;
  Md5Stream moved = std::move(empty);
  EXPECT_EQ(to_hex(moved.finish()), "d41d8cd98f00b204e9800998ecf8427e");
}

TEST(Digest, Base64Rfc4648) {
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},          {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64_encode(plain), encoded);
    EXPECT_EQ(base64_decode(encoded), plain) << encoded;
  }
  std::string binary("\x00\xff\xfe\x80", 4);
  EXPECT_EQ(base64_decode(base64_encode(binary)), binary);
  // S3's Content-MD5 form of md5("").
  EXPECT_EQ(base64_encode(md5("")), "1B2M2Y8AsgTpgAmY7PhCfg==");
}

TEST(Digest, Base64DecodeRejectsNonCanonicalInput) {
  for (const char* bad : {"Zg=", "Zg", "Z===", "Zm9v\n", " Zm9v", "Zm=v", "Zm9v!A==", "Zg==Zg==",
                          // "f" with the unused low bits of the last character set
                          "Zh==", "Zm9=" }) {
    EXPECT_EQ(base64_decode(bad), std::nullopt) << bad;
  }
}

TEST(Digest, RandomBytes) {
  EXPECT_EQ(random_bytes(0), "");
  std::string a = random_bytes(32);
  std::string b = random_bytes(32);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
}

TEST(Uuid, CanonicalVersion4) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string id = uuid_v4();
    ASSERT_EQ(id.size(), 36u);
    for (std::size_t j = 0; j < id.size(); ++j) {
      if (j == 8 || j == 13 || j == 18 || j == 23) {
        ASSERT_EQ(id[j], '-') << id;
      } else {
        ASSERT_TRUE((id[j] >= '0' && id[j] <= '9') || (id[j] >= 'a' && id[j] <= 'f')) << id;
      }
    }
    EXPECT_EQ(id[14], '4') << id;
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace stowage
