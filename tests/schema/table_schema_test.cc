#include "schema/table_schema.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stowage/error.h"
#include "table/counting_engine.h"
#include "table/memory_engine.h"

namespace stowage::schema {
namespace {

using table::GlobalSecondaryIndex;
using table::Item;
using table::KeyAttribute;
using table::KeyLayout;
using table::KeySchema;
using table::KeyType;
using table::TableDescription;
using table::Value;

constexpr char kTable[] = "media";

class TableSchemaTest : public ::testing::Test {
 protected:
  TableSchemaTest()
      : engine_(std::make_shared<table::CountingEngine>(
            std::shared_ptr<table::Engine>(table::make_memory_engine()))) {
    config_.table = kTable;
  }

  void create(KeyAttribute hash, std::optional<KeyAttribute> range,
              std::vector<GlobalSecondaryIndex> indexes = {}) {
    engine_->create_table(TableDescription{kTable, KeySchema{hash, range}, indexes});
    engine_->reset();
  }

  static GlobalSecondaryIndex index(std::string name, KeyAttribute hash,
                                    std::optional<KeyAttribute> range) {
    return GlobalSecondaryIndex{std::move(name), KeySchema{hash, range}};
  }

  static GlobalSecondaryIndex default_index() {
    return index("stowage_index", {"as_index_pk", KeyType::S},
                 KeyAttribute{"as_index_sk", KeyType::S});
  }

  TableSchema open() { return TableSchema::open(*engine_, config_); }

  std::string configuration_message() {
    try {
      open();
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::ConfigurationError) << error.what();
      return error.message();
    }
    ADD_FAILURE() << "no ConfigurationError";
    return "";
  }

  void put(const TableSchema& schema, const LogicalKey& key, std::string label) {
    Item item{{"as_label", Value::string(std::move(label))}};
    schema.stamp(item, key);
    engine_->put(table::PutRequest{kTable, item});
  }

  // The labels of every item a listing returns, following its pages.
  std::vector<std::string> list(const TableSchema& schema, const std::string& h,
                                const std::string& prefix) {
    table::QueryRequest request = schema.listing_query(h, prefix);
    request.limit = 2;
    std::vector<std::string> labels;
    while (true) {
      table::QueryResult page = engine_->query(request);
      for (const Item& item : page.items) labels.push_back(item.at("as_label").as_string());
      if (!page.last_evaluated_key) return labels;
      request.exclusive_start_key = page.last_evaluated_key;
    }
  }

  std::shared_ptr<table::CountingEngine> engine_;
  SchemaConfig config_;
};

TEST_F(TableSchemaTest, DiscoversAStringRangeTableWithItsOwnNamesAsModeA) {
  create({"hash_key", KeyType::S}, KeyAttribute{"range_key", KeyType::S});
  const TableSchema schema = open();
  EXPECT_EQ(engine_->counts().describe, 1u);
  EXPECT_EQ(engine_->counts().total(), 1u);
  EXPECT_EQ(schema.mode(), KeyLayout::ModeA);
  EXPECT_EQ(schema.partition_key(), (KeyAttribute{"hash_key", KeyType::S}));
  EXPECT_EQ(schema.sort_key(), (KeyAttribute{"range_key", KeyType::S}));
  EXPECT_EQ(schema.index_name(), "");

  const LogicalKey key = schema.keys().attachment("Post", "1", "avatar", "a1");
  EXPECT_EQ(schema.physical_key(key),
            (Item{{"hash_key", Value::string("Stowage#Owner#Post#1")},
                  {"range_key", Value::string("Stowage#Attachment#avatar#a1")}}));

  const table::QueryRequest query =
      schema.listing_query(key.h, schema.keys().attachment_name_prefix("avatar"));
  EXPECT_EQ(query.table, kTable);
  EXPECT_EQ(query.index_name, "");
  EXPECT_TRUE(query.consistent_read);
  EXPECT_EQ(query.hash_value, Value::string("Stowage#Owner#Post#1"));
  ASSERT_TRUE(query.range_condition);
  EXPECT_EQ(query.range_condition->op, table::KeyOperator::BeginsWith);
  EXPECT_EQ(query.range_condition->operand, Value::string("Stowage#Attachment#avatar#"));

  put(schema, key, "avatar");
  const std::optional<Item> stored =
      engine_->get(table::GetRequest{kTable, schema.physical_key(key)});
  ASSERT_TRUE(stored);
  EXPECT_EQ(schema.logical_key_of(*stored), key);
}

TEST_F(TableSchemaTest, DiscoversANumericRangeTableAsModeBRoutingListingsToTheIndex) {
  create({"id", KeyType::S}, KeyAttribute{"version", KeyType::N}, {default_index()});
  const TableSchema schema = open();
  EXPECT_EQ(schema.mode(), KeyLayout::ModeB);
  EXPECT_EQ(schema.index_name(), "stowage_index");
  EXPECT_EQ(schema.index_partition_key(), "as_index_pk");
  EXPECT_EQ(schema.index_sort_key(), "as_index_sk");

  const LogicalKey key = schema.keys().variant_record("b1", "d1");
  EXPECT_EQ(schema.physical_key(key),
            (Item{{"id", Value::string("Stowage#Blob#b1#VariantRecord#d1")},
                  {"version", Value::number(0)}}));
  Item item;
  schema.stamp(item, key);
  EXPECT_EQ(item, (Item{{"id", Value::string("Stowage#Blob#b1#VariantRecord#d1")},
                        {"version", Value::number(0)},
                        {"as_index_pk", Value::string("Stowage#Blob#b1")},
                        {"as_index_sk", Value::string("Stowage#VariantRecord#d1")}}));

  const table::QueryRequest query =
      schema.listing_query(key.h, schema.keys().variant_records_prefix());
  EXPECT_EQ(query.index_name, "stowage_index");
  EXPECT_FALSE(query.consistent_read);
  EXPECT_EQ(query.hash_value, Value::string("Stowage#Blob#b1"));

  put(schema, key, "d1");
  put(schema, schema.keys().variant_record("b1", "d2"), "d2");
  put(schema, schema.keys().blob("b1"), "blob");
  EXPECT_EQ(list(schema, key.h, schema.keys().variant_records_prefix()),
            (std::vector<std::string>{"d1", "d2"}));
  const std::optional<Item> stored =
      engine_->get(table::GetRequest{kTable, schema.physical_key(key)});
  ASSERT_TRUE(stored);
  EXPECT_EQ(schema.logical_key_of(*stored), key);
}

TEST_F(TableSchemaTest, FindsAnIndexWithItsOwnKeyNames) {
  create({"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N},
         {index("gsi1", {"gsi1pk", KeyType::S}, KeyAttribute{"gsi1sk", KeyType::S})});
  config_.index_name = "gsi1";
  const TableSchema schema = open();
  EXPECT_EQ(schema.index_partition_key(), "gsi1pk");
  EXPECT_EQ(schema.index_sort_key(), "gsi1sk");
}

TEST_F(TableSchemaTest, RejectsANumericPartitionKey) {
  create({"id", KeyType::N}, KeyAttribute{"sk", KeyType::S});
  const std::string message = configuration_message();
  EXPECT_NE(message.find("table \"media\" has a numeric partition key \"id\" (N)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("partition key is of type S"), std::string::npos) << message;
}

TEST_F(TableSchemaTest, RejectsATableWithoutASortKey) {
  create({"pk", KeyType::S}, std::nullopt);
  const std::string message = configuration_message();
  EXPECT_NE(message.find("table \"media\" has no sort key"), std::string::npos) << message;
  EXPECT_NE(message.find("string (S) sort key (Mode A)"), std::string::npos) << message;
}

TEST_F(TableSchemaTest, RejectsModeBWithoutTheIndexGivingItsFullSpec) {
  create({"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N},
         {index("other", {"x", KeyType::S}, KeyAttribute{"y", KeyType::S})});
  const std::string message = configuration_message();
  EXPECT_NE(message.find("no global secondary index \"stowage_index\""), std::string::npos)
      << message;
  EXPECT_NE(message.find("partition key \"as_index_pk\" (S), sort key \"as_index_sk\" (S) "
                         "and projection ALL"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--table-name media --attribute-definitions "
                         "AttributeName=as_index_pk,AttributeType=S "
                         "AttributeName=as_index_sk,AttributeType=S"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(R"({"Create":{"IndexName":"stowage_index","KeySchema":[)"
                         R"({"AttributeName":"as_index_pk","KeyType":"HASH"},)"
                         R"({"AttributeName":"as_index_sk","KeyType":"RANGE"}],)"
                         R"("Projection":{"ProjectionType":"ALL"}}})"),
            std::string::npos)
      << message;
}

TEST_F(TableSchemaTest, TheMissingIndexSpecUsesTheConfiguredNames) {
  create({"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N});
  config_.index_name = "gsi1";
  config_.index_partition_key = "gsi1pk";
  config_.index_sort_key = "gsi1sk";
  config_.manage_table = true;
  const std::string message = configuration_message();
  EXPECT_NE(message.find("\"gsi1\" with partition key \"gsi1pk\" (S), sort key \"gsi1sk\""),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("manage_table creates the index only with a new table"),
            std::string::npos)
      << message;
  EXPECT_EQ(engine_->counts().create_table, 0u);
}

TEST_F(TableSchemaTest, RejectsAnIndexThatIsNotStringKeyed) {
  create({"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N},
         {index("stowage_index", {"as_index_pk", KeyType::S},
                KeyAttribute{"as_index_sk", KeyType::N})});
  std::string message = configuration_message();
  EXPECT_NE(message.find("global secondary index \"stowage_index\" of table \"media\" has "
                         "partition key \"as_index_pk\" (S), sort key \"as_index_sk\" (N)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("Mode B needs a global secondary index"), std::string::npos) << message;
}

TEST_F(TableSchemaTest, RejectsAnIndexWithoutASortKey) {
  create({"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N},
         {index("stowage_index", {"as_index_pk", KeyType::S}, std::nullopt)});
  const std::string message = configuration_message();
  EXPECT_NE(message.find("partition key \"as_index_pk\" (S), no sort key"), std::string::npos)
      << message;
}

TEST_F(TableSchemaTest, RejectsAnIndexKeyedOnTheTablesOwnKey) {
  create({"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N},
         {index("stowage_index", {"pk", KeyType::S}, KeyAttribute{"as_index_sk", KeyType::S})});
  const std::string message = configuration_message();
  EXPECT_NE(message.find("is keyed on \"pk\", a key attribute of the table itself"),
            std::string::npos)
      << message;
}

TEST_F(TableSchemaTest, RejectsKeyAttributesNamedWithStowagesPrefix) {
  create({"as_pk", KeyType::S}, KeyAttribute{"sk", KeyType::S});
  const std::string message = configuration_message();
  EXPECT_NE(message.find("table \"media\" has partition key \"as_pk\", which starts with "
                         "\"as_\""),
            std::string::npos)
      << message;
}

TEST_F(TableSchemaTest, RejectsASortKeyNamedWithStowagesPrefix) {
  create({"pk", KeyType::S}, KeyAttribute{"as_blob_id", KeyType::S});
  const std::string message = configuration_message();
  EXPECT_NE(message.find("sort key \"as_blob_id\""), std::string::npos) << message;
}

TEST_F(TableSchemaTest, RejectsOverridesTheTableDisagreesWith) {
  create({"hash_key", KeyType::S}, KeyAttribute{"range_key", KeyType::S});
  config_.partition_key = "hash_key";
  config_.sort_key = "sk";
  std::string message = configuration_message();
  EXPECT_NE(message.find("[table] sort_key is \"sk\" but table \"media\" calls that key "
                         "\"range_key\"; set sort_key = \"range_key\" or remove the setting"),
            std::string::npos)
      << message;

  config_.sort_key = std::nullopt;
  config_.mode = KeyLayout::ModeB;
  message = configuration_message();
  EXPECT_NE(message.find("[table] mode is \"B\" but table \"media\" has sort key "
                         "\"range_key\" (S), which is Mode A"),
            std::string::npos)
      << message;
}

TEST_F(TableSchemaTest, AMissingTableIsAnErrorUnlessManaged) {
  const std::string message = configuration_message();
  EXPECT_NE(message.find("table \"media\" does not exist; create it with partition key "
                         "\"pk\" (S), sort key \"sk\" (S), or set [table] manage_table = true"),
            std::string::npos)
      << message;
  EXPECT_EQ(engine_->counts().create_table, 0u);
}

TEST_F(TableSchemaTest, ManageTableCreatesAModeATableWithTheDefaults) {
  config_.manage_table = true;
  const TableSchema schema = open();
  EXPECT_EQ(engine_->counts().create_table, 1u);
  EXPECT_EQ(engine_->describe(kTable), table::default_table_description(kTable, KeyLayout::ModeA));
  EXPECT_EQ(schema.mode(), KeyLayout::ModeA);

  // A second start finds the table and leaves it alone.
  engine_->reset();
  EXPECT_EQ(open().mode(), KeyLayout::ModeA);
  EXPECT_EQ(engine_->counts().create_table, 0u);
}

TEST_F(TableSchemaTest, ManageTableCreatesAModeBTableWithItsIndex) {
  config_.manage_table = true;
  config_.mode = KeyLayout::ModeB;
  const TableSchema schema = open();
  EXPECT_EQ(engine_->describe(kTable), table::default_table_description(kTable, KeyLayout::ModeB));
  EXPECT_EQ(schema.mode(), KeyLayout::ModeB);
  EXPECT_EQ(schema.index_name(), "stowage_index");
}

TEST_F(TableSchemaTest, ManageTableCreatesWithTheConfiguredNames) {
  config_.manage_table = true;
  config_.partition_key = "hash_key";
  config_.sort_key = "range_key";
  config_.mode = KeyLayout::ModeB;
  config_.index_name = "gsi1";
  config_.index_partition_key = "gsi1pk";
  config_.index_sort_key = "gsi1sk";
  open();
  EXPECT_EQ(engine_->describe(kTable),
            (TableDescription{kTable,
                              KeySchema{{"hash_key", KeyType::S},
                                        KeyAttribute{"range_key", KeyType::N}},
                              {index("gsi1", {"gsi1pk", KeyType::S},
                                     KeyAttribute{"gsi1sk", KeyType::S})}}));
}

TEST_F(TableSchemaTest, ManageTableDoesNotCreateATableItWouldReject) {
  config_.manage_table = true;
  config_.partition_key = "as_pk";
  const std::string message = configuration_message();
  EXPECT_NE(message.find("partition key \"as_pk\""), std::string::npos) << message;
  EXPECT_EQ(engine_->counts().create_table, 0u);
}

TEST_F(TableSchemaTest, ABadNamespaceFailsBeforeAnyRequest) {
  config_.key_namespace = "A#B";
  const std::string message = configuration_message();
  EXPECT_NE(message.find("contains the key separator"), std::string::npos) << message;
  EXPECT_EQ(engine_->counts().total(), 0u);
}

TEST_F(TableSchemaTest, ASeparatorInsideARecordTypeFailsBeforeAnyRequest) {
  create({"pk", KeyType::S}, KeyAttribute{"sk", KeyType::S});
  const TableSchema schema = open();
  engine_->reset();
  try {
    put(schema, schema.keys().attachment("Post#Admin", "1", "avatar", "a1"), "evil");
    ADD_FAILURE() << "no InvalidKey";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidKey) << error.what();
    EXPECT_NE(error.message().find("record_type \"Post#Admin\""), std::string::npos);
  }
  EXPECT_EQ(engine_->counts().total(), 0u);
}

TEST_F(TableSchemaTest, LogicalKeyOfAnItemWithoutOneIsAnIntegrityError) {
  create({"pk", KeyType::S}, KeyAttribute{"sk", KeyType::N}, {default_index()});
  const TableSchema schema = open();
  try {
    schema.logical_key_of(Item{{"pk", Value::string("x")}, {"sk", Value::number(0)}});
    ADD_FAILURE() << "no IntegrityError";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::IntegrityError) << error.what();
    EXPECT_NE(error.message().find("\"as_index_pk\" and \"as_index_sk\""), std::string::npos)
        << error.message();
  }
}

// Every entity kind in one table, with ids chosen to collide if the kinds
// were not part of the keys.
class CoexistenceTest : public TableSchemaTest,
                        public ::testing::WithParamInterface<KeyLayout> {};

TEST_P(CoexistenceTest, AllEntityTypesShareOneTableWithoutCollision) {
  config_.manage_table = true;
  config_.mode = GetParam();
  const TableSchema schema = open();
  const KeyScheme& keys = schema.keys();

  const std::vector<std::pair<LogicalKey, std::string>> items = {
      {keys.blob("x"), "blob x"},
      {keys.blob("y"), "blob y"},
      {keys.variant_record("x", "x"), "variant x/x"},
      {keys.variant_record("x", "y"), "variant x/y"},
      {keys.variant_record("y", "x"), "variant y/x"},
      {keys.attachment("Blob", "x", "avatar", "x"), "Blob x avatar x"},
      {keys.attachment("Post", "x", "avatar", "x"), "Post x avatar x"},
      {keys.attachment("Post", "x", "avatars", "x"), "Post x avatars x"},
      {keys.attachment("Post", "y", "avatar", "x"), "Post y avatar x"},
      {keys.owner_context("Post", "x"), "Post x context"},
      {keys.owner_context("Blob", "x"), "Blob x context"},
  };
  std::set<std::string> physical;
  for (const auto& [key, label] : items) {
    physical.insert(table::describe(schema.physical_key(key)));
    put(schema, key, label);
  }
  EXPECT_EQ(physical.size(), items.size());
  EXPECT_EQ(engine_->scan(table::ScanRequest{kTable}).items.size(), items.size());

  for (const auto& [key, label] : items) {
    const std::optional<Item> stored =
        engine_->get(table::GetRequest{kTable, schema.physical_key(key)});
    ASSERT_TRUE(stored) << label;
    EXPECT_EQ(stored->at("as_label").as_string(), label);
    EXPECT_EQ(schema.logical_key_of(*stored), key) << label;
  }

  EXPECT_EQ(list(schema, keys.blob("x").h, keys.variant_records_prefix()),
            (std::vector<std::string>{"variant x/x", "variant x/y"}));
  EXPECT_EQ(list(schema, keys.blob("x").h, ""),
            (std::vector<std::string>{"blob x", "variant x/x", "variant x/y"}));
  const std::string post_x = keys.owner_partition("Post", "x");
  EXPECT_EQ(list(schema, post_x, keys.attachment_name_prefix("avatar")),
            (std::vector<std::string>{"Post x avatar x"}));
  EXPECT_EQ(list(schema, post_x, keys.attachments_prefix()),
            (std::vector<std::string>{"Post x avatar x", "Post x avatars x"}));
  EXPECT_EQ(list(schema, post_x, ""),
            (std::vector<std::string>{"Post x avatar x", "Post x avatars x", "Post x context"}));
}

INSTANTIATE_TEST_SUITE_P(BothModes, CoexistenceTest,
                         ::testing::Values(KeyLayout::ModeA, KeyLayout::ModeB),
                         [](const ::testing::TestParamInfo<KeyLayout>& info) {
                           return std::string(info.param == KeyLayout::ModeA ? "ModeA"
                                                                             : "ModeB");
                         });

}  // namespace
}  // namespace stowage::schema
