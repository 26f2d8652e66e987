#include "model/variant_records.h"

#include <chrono>
#include <string>

#include "common/clock.h"
#include "model/blob_store.h"
#include "model/item_conversion.h"
#include "stowage/error.h"

namespace stowage::model {

namespace {

bool is_conditional_failure(const Error& error, std::size_t action) {
  const auto& reasons = error.cancellation_reasons();
  return action < reasons.size() && reasons[action].code == "ConditionalCheckFailed";
}

}  // namespace

VariantRecords::VariantRecords(table::Engine& engine,
                               const schema::TableSchema& schema,
                               const BlobStore& blobs)
    : engine_(engine), schema_(schema), blobs_(blobs) {}

VariantRecord VariantRecords::create_or_find(std::string_view blob_id,
                                             std::string_view variation_digest,
                                             std::string_view image_blob_id) {
  VariantRecord record{std::string(blob_id), std::string(variation_digest),
                       std::string(image_blob_id),
                       iso8601_utc_micros(std::chrono::system_clock::now())};
  table::PutRequest put;
  put.table = schema_.table_name();
  put.item = variant_record_to_item(schema_, record);
  put.condition = table::cond::not_exists(schema_.partition_key().name);
  table::TransactWriteRequest transaction;
  transaction.actions = {std::move(put), blobs_.blob_exists_check(blob_id)};
  // A record found taken but then gone was removed by a purge of the blob;
  // the second attempt's blob check reports that.
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      engine_.transact_write(transaction);
      return record;
    } catch (const Error& error) {
      if (error.code() != ErrorCode::TransactionCanceled) throw;
      if (is_conditional_failure(error, 1)) {
        throw Error::not_found("blob " + std::string(blob_id) +
                               " does not exist in table " + schema_.table_name() +
                               "; no variant record was created for it");
      }
      if (!is_conditional_failure(error, 0)) throw;
    }
    if (std::optional<VariantRecord> existing = find(blob_id, variation_digest)) {
      return *existing;
    }
  }
  throw Error::not_found("blob " + std::string(blob_id) +
                         " is being purged; no variant record was created for it");
}

std::optional<VariantRecord> VariantRecords::find(
    std::string_view blob_id, std::string_view variation_digest) const {
  table::GetRequest get;
  get.table = schema_.table_name();
  get.key = schema_.physical_key(
      schema_.keys().variant_record(blob_id, variation_digest));
  get.consistent_read = true;
  const std::optional<table::Item> item = engine_.get(get);
  if (!item) return std::nullopt;
  return variant_record_from_item(*item);
}

std::vector<VariantRecord> VariantRecords::list(std::string_view blob_id) const {
  table::QueryRequest query = schema_.listing_query(
      schema_.keys().blob(blob_id).h, schema_.keys().variant_records_prefix());
  std::vector<VariantRecord> records;
  for (;;) {
    table::QueryResult page = engine_.query(query);
    for (const table::Item& item : page.items) {
      records.push_back(variant_record_from_item(item));
    }
    if (!page.last_evaluated_key) return records;
    query.exclusive_start_key = std::move(page.last_evaluated_key);
  }
}

void VariantRecords::remove(std::string_view blob_id,
                            std::string_view variation_digest) {
  table::DeleteRequest remove;
  remove.table = schema_.table_name();
  remove.key = schema_.physical_key(
      schema_.keys().variant_record(blob_id, variation_digest));
  engine_.remove(remove);
}

}  // namespace stowage::model
