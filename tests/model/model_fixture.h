// The fixture the model suites share: a BlobStore on one engine ("memory",
// "sqlite", "dynamodb") and one key layout (Mode A or B), over a disk
// service in a fresh temporary directory. A case whose engine cannot start
// (dynamodb without moto) fails, saying why: CI must never pass by skipping.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <vips/vips8>

#include "common/uuid.h"
#include "model/blob_store.h"
#include "schema/table_schema.h"
#include "service/disk_service.h"
#include "stowage/error.h"
#include "support/engines.h"
#include "table/default_table.h"

namespace stowage::model {

using ModelParam = std::tuple<std::string, table::KeyLayout>;

inline constexpr char kServiceName[] = "local";
inline constexpr char kSecret[] = "0123456789abcdef0123456789abcdef-test";

inline std::vector<ModelParam> model_params() {
  std::vector<ModelParam> params;
  for (const std::string& engine : testing::engine_names()) {
    params.emplace_back(engine, table::KeyLayout::ModeA);
    params.emplace_back(engine, table::KeyLayout::ModeB);
  }
  return params;
}

inline std::string model_param_name(const ::testing::TestParamInfo<ModelParam>& info) {
  return std::get<0>(info.param) +
         (std::get<1>(info.param) == table::KeyLayout::ModeA ? "_ModeA" : "_ModeB");
}

// A width × height black image in the format of `suffix` (".png", ".jpg").
inline std::string encoded_image(int width, int height, const char* suffix) {
  static const bool initialised = VIPS_INIT("model_test") == 0;
  EXPECT_TRUE(initialised);
  vips::VImage image = vips::VImage::black(width, height);
  void* data = nullptr;
  std::size_t size = 0;
  image.write_to_buffer(suffix, &data, &size);
  std::string bytes(static_cast<const char*>(data), size);
  g_free(data);
  return bytes;
}

class ModelTest : public ::testing::TestWithParam<ModelParam> {
 protected:
  void SetUp() override {
    try {
      engine_ = testing::make_engine(std::get<0>(GetParam()));
    } catch (const Error& error) {
      FAIL() << "engine unavailable: " << error.what();
    }
    schema::SchemaConfig config;
    config.table = testing::unique_table_name("model");
    config.mode = std::get<1>(GetParam());
    config.manage_table = true;
    schema_.emplace(schema::TableSchema::open(*engine_, config));
    root_ = std::filesystem::temp_directory_path() / ("stowage-model-" + uuid_v4());
    disk_ = std::make_shared<service::DiskService>(service::DiskServiceOptions{root_});
    store_.emplace(*engine_, *schema_,
                   BlobStoreOptions{{{kServiceName, disk_}}, kServiceName, kSecret});
  }

  void TearDown() override {
    if (schema_) engine_->delete_table(schema_->table_name());
    if (!root_.empty()) std::filesystem::remove_all(root_);
  }

  Blob upload(const std::string& bytes, std::string filename = "file.bin") {
    service::StringSource source(bytes);
    return store_->create_and_upload(source, BlobInput{std::move(filename), "", {}, ""});
  }

  std::optional<table::Item> raw_blob_item(const std::string& blob_id) {
    return engine_->get(table::GetRequest{
        schema_->table_name(), schema_->physical_key(schema_->keys().blob(blob_id)), true});
  }

  // Every item in the table, in no particular order.
  std::vector<table::Item> all_items() {
    std::vector<table::Item> items;
    table::ScanRequest scan{schema_->table_name(), std::nullopt, std::nullopt, true};
    for (;;) {
      table::QueryResult page = engine_->scan(scan);
      items.insert(items.end(), page.items.begin(), page.items.end());
      if (!page.last_evaluated_key) return items;
      scan.exclusive_start_key = page.last_evaluated_key;
    }
  }

  void set_attachments_count(const std::string& blob_id, std::int64_t delta) {
    engine_->transact_write({{store_->refcount_action(blob_id, delta)}, ""});
  }

  std::shared_ptr<table::Engine> engine_;
  std::optional<schema::TableSchema> schema_;
  std::filesystem::path root_;
  std::shared_ptr<service::DiskService> disk_;
  std::optional<BlobStore> store_;
};

}  // namespace stowage::model
