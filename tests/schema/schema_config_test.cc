#include "schema/schema_config.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "stowage/error.h"

namespace stowage::schema {
namespace {

SchemaConfig read(std::string_view text) {
  return read_schema_config(toml::parse(text));
}

std::string configuration_message(std::string_view text) {
  try {
    read(text);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ConfigurationError) << error.what();
    return error.message();
  }
  ADD_FAILURE() << "no ConfigurationError for:\n" << text;
  return "";
}

TEST(SchemaConfig, DefaultsWithoutATableSection) {
  const SchemaConfig config = read("[service]\nkind = \"disk\"\n");
  EXPECT_EQ(config.table, "stowage");
  EXPECT_EQ(config.key_namespace, "Stowage");
  EXPECT_EQ(config.separator, "#");
  EXPECT_FALSE(config.partition_key);
  EXPECT_FALSE(config.sort_key);
  EXPECT_EQ(config.index_name, "stowage_index");
  EXPECT_FALSE(config.index_partition_key);
  EXPECT_FALSE(config.index_sort_key);
  EXPECT_FALSE(config.mode);
  EXPECT_FALSE(config.manage_table);
}

TEST(SchemaConfig, ReadsEverySetting) {
  const SchemaConfig config = read(R"(
[table]
table = "media"
namespace = "App"
separator = "|"
partition_key = "hash_key"
sort_key = "range_key"
index_name = "gsi1"
index_partition_key = "gsi1pk"
index_sort_key = "gsi1sk"
mode = "B"
manage_table = true
)");
  EXPECT_EQ(config.table, "media");
  EXPECT_EQ(config.key_namespace, "App");
  EXPECT_EQ(config.separator, "|");
  EXPECT_EQ(config.partition_key, "hash_key");
  EXPECT_EQ(config.sort_key, "range_key");
  EXPECT_EQ(config.index_name, "gsi1");
  EXPECT_EQ(config.index_partition_key, "gsi1pk");
  EXPECT_EQ(config.index_sort_key, "gsi1sk");
  EXPECT_EQ(config.mode, table::KeyLayout::ModeB);
  EXPECT_TRUE(config.manage_table);
}

TEST(SchemaConfig, ReadsModeA) {
  EXPECT_EQ(read("[table]\nmode = \"A\"\n").mode, table::KeyLayout::ModeA);
}

TEST(SchemaConfig, NamesEveryUnknownSettingAndListsTheKnownOnes) {
  const std::string message =
      configuration_message("[table]\ntable = \"t\"\nseperator = \"|\"\nindex = \"x\"\n");
  EXPECT_NE(message.find("\"seperator\" (line 3)"), std::string::npos) << message;
  EXPECT_NE(message.find("\"index\" (line 4)"), std::string::npos) << message;
  EXPECT_NE(message.find("table, namespace, separator, partition_key, sort_key, index_name, "
                         "index_partition_key, index_sort_key, mode, manage_table"),
            std::string::npos)
      << message;
}

TEST(SchemaConfig, RejectsAWrongType) {
  std::string message = configuration_message("[table]\n\nseparator = 3\n");
  EXPECT_NE(message.find("[table] separator must be a string, found integer (line 3)"),
            std::string::npos)
      << message;
  message = configuration_message("[table]\nmanage_table = \"yes\"\n");
  EXPECT_NE(message.find("[table] manage_table must be true or false"), std::string::npos)
      << message;
  message = configuration_message("table = \"stowage\"\n");
  EXPECT_NE(message.find("table must be a [table] section"), std::string::npos) << message;
}

TEST(SchemaConfig, RejectsBlankValuesAndAnUnknownMode) {
  std::string message = configuration_message("[table]\nnamespace = \" \"\n");
  EXPECT_NE(message.find("[table] namespace is blank (line 2)"), std::string::npos) << message;
  message = configuration_message("[table]\npartition_key = \"\"\n");
  EXPECT_NE(message.find("[table] partition_key is blank"), std::string::npos) << message;
  message = configuration_message("[table]\nmode = \"C\"\n");
  EXPECT_NE(message.find("[table] mode is \"C\" (line 2); use \"A\""), std::string::npos)
      << message;
}

}  // namespace
}  // namespace stowage::schema
