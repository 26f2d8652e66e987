#include "jobs/model_jobs.h"

#include <string>
#include <string_view>

#include "ledger/totals.h"
#include "model/storage_tracking.h"
#include "stowage/error.h"

namespace stowage::jobs {

namespace {

// A job whose args lack what its type needs was written wrongly; it is
// retried and in the end dead-lettered, where an operator can see it.
const std::string& string_arg(const model::Job& job, std::string_view name) {
  const auto it = job.args.find(name);
  if (it == job.args.end() || it->second.type() != table::Type::S) {
    throw Error(ErrorCode::IntegrityError,
                "job " + job.id + " (" + job.type + ") has no string argument \"" +
                    std::string(name) + "\"");
  }
  return it->second.as_string();
}

void purge_blob(model::BlobStore& blobs, const model::Job& job) {
  try {
    blobs.purge(string_arg(job, "blob_id"));
  } catch (const Error& error) {
    if (error.code() != ErrorCode::ForeignKeyViolation) throw;
  }
}

void delete_bytes(model::BlobStore& blobs, const model::Job& job) {
  const std::string& service_name = string_arg(job, "service_name");
  const std::string& key = string_arg(job, "key");
  service::Service* service = nullptr;
  try {
    service = &blobs.service(service_name);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::ConfigurationError) throw;
    throw Error::not_found("cannot delete bytes " + key + ": " + error.message());
  }
  service->remove(key);
}

// BlobStore::analyze's errors already say what the job's fate is: a gone
// blob is RecordNotFound (discarded), missing bytes are retryable.
void analyze_blob(model::BlobStore& blobs, const model::Job& job) {
  blobs.analyze(string_arg(job, "blob_id"));
}

}  // namespace

void add_model_handlers(JobHandlers& handlers, model::BlobStore& blobs) {
  handlers.add(model::kPurgeBlobJob,
               [&blobs](const model::Job& job) { purge_blob(blobs, job); });
  handlers.add(model::kDeleteBytesJob,
               [&blobs](const model::Job& job) { delete_bytes(blobs, job); });
  handlers.add(model::kAnalyzeBlobJob,
               [&blobs](const model::Job& job) { analyze_blob(blobs, job); });
}

void add_materialize_handler(JobHandlers& handlers, table::Engine& engine,
                             const schema::TableSchema& schema) {
  handlers.add(model::kMaterializeJob, [&engine, &schema](const model::Job& job) {
    // A failure on one ledger retries the job for all: materialize is safe
    // to repeat.
    const ledger::Totals totals(engine, schema);
    for (const ledger::Ledger& ledger : model::materialize_targets(job)) {
      totals.materialize(ledger);
    }
  });
}

}  // namespace stowage::jobs
