#include "model/definitions.h"

#include <gtest/gtest.h>

#include <string>

#include "stowage/error.h"

namespace stowage::model {
namespace {

constexpr const char* kConfig = R"(
[table]
table = "stowage"

[[attachments]]
record_type = "Card"
name = "image"
cardinality = "one"
dependent = "purge"
track_storage = false
service = "local"
max_bytes = 10485760
content_types = ["image/*", "application/pdf"]
[attachments.variants.small]
resize_to_limit = [800, 600]
process = "immediately"

[[attachments]]
record_type = "Card"
name = "files"
)";

// The message of the Error that `fn` throws, checked for `code`.
template <typename Fn>
std::string error_of(ErrorCode code, Fn fn) {
  try {
    fn();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code) << error.what();
    return error.message();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

TEST(DefinitionsTest, ReadsEverySetting) {
  const Definitions definitions = Definitions::parse(kConfig);
  ASSERT_EQ(definitions.all().size(), 2u);
  EXPECT_FALSE(definitions.strict());
  const AttachmentDefinition& image = definitions.find("Card", "image");
  EXPECT_EQ(image.record_type, "Card");
  EXPECT_EQ(image.name, "image");
  EXPECT_EQ(image.cardinality, Cardinality::One);
  EXPECT_EQ(image.dependent, Dependent::Purge);
  EXPECT_FALSE(image.track_storage);
  EXPECT_EQ(image.service_name, "local");
  EXPECT_EQ(image.max_bytes, 10485760u);
  EXPECT_EQ(image.content_types,
            (std::vector<std::string>{"image/*", "application/pdf"}));
  ASSERT_EQ(image.variants.count("small"), 1u);
  const toml::table& small = image.variants.find("small")->second;
  EXPECT_EQ(small["process"].value<std::string>(), "immediately");
  EXPECT_EQ(small["resize_to_limit"][0].value<std::int64_t>(), 800);
  EXPECT_EQ(small["resize_to_limit"][1].value<std::int64_t>(), 600);
}

TEST(DefinitionsTest, OmittedSettingsTakeTheDefaults) {
  const AttachmentDefinition& files = Definitions::parse(kConfig).find("Card", "files");
  EXPECT_EQ(files.cardinality, Cardinality::Many);
  EXPECT_EQ(files.dependent, Dependent::PurgeLater);
  EXPECT_TRUE(files.track_storage);
  EXPECT_FALSE(files.service_name);
  EXPECT_FALSE(files.max_bytes);
  EXPECT_TRUE(files.content_types.empty());
  EXPECT_TRUE(files.variants.empty());
}

TEST(DefinitionsTest, AnUndefinedNameGetsTheDefaultDefinition) {
  const Definitions definitions = Definitions::parse(kConfig);
  const AttachmentDefinition& other = definitions.find("Board", "image");
  EXPECT_EQ(other.cardinality, Cardinality::Many);
  EXPECT_EQ(other.dependent, Dependent::PurgeLater);
  EXPECT_TRUE(other.track_storage);
  EXPECT_TRUE(other.record_type.empty());
  // Same record type, other name: also the default.
  EXPECT_EQ(&definitions.find("Card", "avatar"), &other);
}

TEST(DefinitionsTest, StrictDefinitionsRejectAnUndefinedName) {
  const Definitions definitions =
      Definitions::parse(std::string("strict_definitions = true\n") + kConfig);
  EXPECT_TRUE(definitions.strict());
  EXPECT_EQ(definitions.find("Card", "image").cardinality, Cardinality::One);
  const std::string message =
      error_of(ErrorCode::ValidationError, [&] { definitions.find("Card", "avatar"); });
  EXPECT_NE(message.find("\"avatar\""), std::string::npos) << message;
  EXPECT_NE(message.find("\"Card\""), std::string::npos) << message;
  EXPECT_NE(message.find("strict_definitions"), std::string::npos) << message;
}

TEST(DefinitionsTest, NoAttachmentsTableMeansOnlyTheDefault) {
  const Definitions definitions = Definitions::parse("[table]\ntable = \"x\"\n");
  EXPECT_TRUE(definitions.all().empty());
  EXPECT_EQ(definitions.find("Card", "image").cardinality, Cardinality::Many);
}

TEST(DefinitionsTest, AnUnknownSettingIsNamedWithItsLine) {
  const std::string message = error_of(ErrorCode::ConfigurationError, [] {
    Definitions::parse(
        "[[attachments]]\nrecord_type = \"Card\"\nname = \"image\"\nmax_size = 10\n");
  });
  EXPECT_NE(message.find("\"max_size\""), std::string::npos) << message;
  EXPECT_NE(message.find("line 4"), std::string::npos) << message;
  EXPECT_NE(message.find("max_bytes"), std::string::npos) << message;  // the known ones
}

TEST(DefinitionsTest, BadValuesAreConfigurationErrors) {
  const auto rejects = [](const std::string& body, const std::string& needle) {
    const std::string message = error_of(ErrorCode::ConfigurationError, [&] {
      Definitions::parse("[[attachments]]\nrecord_type = \"Card\"\nname = \"image\"\n" + body);
    });
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  };
  rejects("cardinality = \"several\"\n", "\"one\"");
  rejects("dependent = \"delete\"\n", "purge_later");
  rejects("track_storage = \"yes\"\n", "true or false");
  rejects("max_bytes = 0\n", "positive");
  rejects("max_bytes = \"10MB\"\n", "integer");
  rejects("content_types = [\"image\"]\n", "\"image\"");
  rejects("content_types = [\"*/png\"]\n", "\"*/png\"");
  rejects("content_types = \"image/*\"\n", "array");
  rejects("variants = 3\n", "variants");
  rejects("[attachments.variants]\nsmall = 1\n", "variants.small");
}

TEST(DefinitionsTest, RecordTypeAndNameAreRequired) {
  std::string message = error_of(ErrorCode::ConfigurationError, [] {
    Definitions::parse("[[attachments]]\nname = \"image\"\n");
  });
  EXPECT_NE(message.find("record_type"), std::string::npos) << message;
  message = error_of(ErrorCode::ConfigurationError, [] {
    Definitions::parse("[[attachments]]\nrecord_type = \"Card\"\nname = \" \"\n");
  });
  EXPECT_NE(message.find("blank"), std::string::npos) << message;
}

TEST(DefinitionsTest, ADefinitionGivenTwiceIsRejected) {
  const std::string message = error_of(ErrorCode::ConfigurationError, [] {
    Definitions::parse(
        "[[attachments]]\nrecord_type = \"Card\"\nname = \"image\"\n"
        "[[attachments]]\nrecord_type = \"Card\"\nname = \"image\"\n");
  });
  EXPECT_NE(message.find("twice"), std::string::npos) << message;
}

TEST(DefinitionsTest, StrictDefinitionsMustBeABoolean) {
  error_of(ErrorCode::ConfigurationError,
           [] { Definitions::parse("strict_definitions = 1\n"); });
}

TEST(DefinitionsTest, InvalidTomlNamesItsLine) {
  const std::string message = error_of(ErrorCode::ConfigurationError, [] {
    Definitions::parse("[[attachments]]\nrecord_type = \n");
  });
  EXPECT_NE(message.find("line 2"), std::string::npos) << message;
}

TEST(ContentTypeTest, PatternsMatchAsMimeTypesDo) {
  EXPECT_TRUE(content_type_matches("image/*", "image/png"));
  EXPECT_TRUE(content_type_matches("image/*", "IMAGE/JPEG"));
  EXPECT_FALSE(content_type_matches("image/*", "image/"));
  EXPECT_FALSE(content_type_matches("image/*", "application/pdf"));
  EXPECT_FALSE(content_type_matches("image/*", "imagex/png"));
  EXPECT_TRUE(content_type_matches("application/pdf", "application/pdf; charset=binary"));
  EXPECT_FALSE(content_type_matches("application/pdf", "application/pdfx"));
  EXPECT_TRUE(content_type_matches("*/*", "text/plain"));
}

TEST(ValidateBlobTest, MaxBytesAndContentTypesNameTheLimit) {
  const Definitions definitions = Definitions::parse(kConfig);
  const AttachmentDefinition& image = definitions.find("Card", "image");
  Blob blob;
  blob.id = "b1";
  blob.content_type = "image/png";
  blob.byte_size = 10485760;
  validate_blob(image, blob);  // exactly the limit passes

  blob.byte_size = 10485761;
  std::string message = error_of(ErrorCode::ValidationError, [&] { validate_blob(image, blob); });
  EXPECT_NE(message.find("10485760"), std::string::npos) << message;
  EXPECT_NE(message.find("max_bytes"), std::string::npos) << message;

  blob.byte_size = 10;
  blob.content_type = "text/plain";
  message = error_of(ErrorCode::ValidationError, [&] { validate_blob(image, blob); });
  EXPECT_NE(message.find("text/plain"), std::string::npos) << message;
  EXPECT_NE(message.find("image/*"), std::string::npos) << message;

  blob.content_type = "application/pdf";
  validate_blob(image, blob);
  // The default definition has no limits.
  blob.byte_size = 1ull << 40;
  blob.content_type = "text/plain";
  validate_blob(definitions.find("Board", "files"), blob);
}

}  // namespace
}  // namespace stowage::model
