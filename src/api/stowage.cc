#include "stowage/stowage.h"

#include <algorithm>
#include <utility>

#include "jobs/job_handlers.h"
#include "jobs/job_queue.h"
#include "jobs/model_jobs.h"
#include "jobs/worker_pool.h"
#include "ledger/quota.h"
#include "model/attachments.h"
#include "model/blob_store.h"
#include "model/owner_contexts.h"
#include "schema/table_schema.h"
#include "service/service_config.h"
#include "stowage/error.h"
#include "table/engine_config.h"

namespace stowage {
namespace {

// Checked before anything opens, so that a configuration without a secret
// creates no table and no service directory.
Config with_secret(Config config) {
  if (config.secret.empty()) {
    throw Error::configuration(
        "no secret for signed blob ids: set secret = \"…\" (32 bytes or more) in the "
        "configuration, or STOWAGE_SECRET in the environment");
  }
  return config;
}

model::ServiceMap build_services(const Config& config) {
  model::ServiceMap services;
  for (const std::string& name : config.service_names) {
    services.emplace(name, service::configure_service(name, config.text));
  }
  return services;
}

jobs::JobHandlers model_handlers(model::BlobStore& blobs, table::Engine& engine,
                                 const schema::TableSchema& schema) {
  jobs::JobHandlers handlers;
  jobs::add_model_handlers(handlers, blobs);
  jobs::add_materialize_handler(handlers, engine, schema);
  return handlers;
}

jobs::WorkerPoolOptions worker_pool_options(const Config& config) {
  jobs::WorkerPoolOptions options;
  // drain_jobs() needs a thread even when no worker runs in the background.
  options.threads = std::max<std::size_t>(config.workers, 1);
  return options;
}

}  // namespace

// Members are built in this order and refer to the ones above them.
struct Stowage::Impl {
  explicit Impl(Config config_in)
      : config(with_secret(std::move(config_in))),
        engine(table::open_engine(config.engine)),
        schema(schema::TableSchema::open(*engine, config.table)),
        services(build_services(config)),
        blobs(*engine, schema,
              model::BlobStoreOptions{services, config.default_service, config.secret}),
        attachments(*engine, schema, config.definitions, blobs),
        contexts(*engine, schema),
        totals(*engine, schema),
        queue(*engine, schema),
        handlers(model_handlers(blobs, *engine, schema)),
        pool(queue, handlers, worker_pool_options(config)) {}

  const Config config;
  std::shared_ptr<table::Engine> engine;
  const schema::TableSchema schema;
  const model::ServiceMap services;
  model::BlobStore blobs;
  model::Attachments attachments;
  const model::OwnerContexts contexts;
  const ledger::Totals totals;
  jobs::JobQueue queue;
  jobs::JobHandlers handlers;
  jobs::WorkerPool pool;
  bool workers_running = false;
};

Stowage::Stowage(Config config) : impl_(std::make_unique<Impl>(std::move(config))) {}

Stowage Stowage::open(const std::filesystem::path& config_path) {
  return Stowage(load_config(config_path));
}

Stowage Stowage::from_toml(std::string_view config_text) {
  return Stowage(parse_config(config_text));
}

// The pool, the last member, goes first and joins its workers.
Stowage::~Stowage() = default;

Stowage::Stowage(Stowage&&) noexcept = default;
Stowage& Stowage::operator=(Stowage&&) noexcept = default;

Blob Stowage::create_and_upload(ByteSource& source, BlobInput input) {
  return impl_->blobs.create_and_upload(source, std::move(input));
}

Blob Stowage::create_and_upload(const std::filesystem::path& file, BlobInput input) {
  FileSource source(file.string());
  if (input.filename.empty()) input.filename = file.filename().string();
  return create_and_upload(source, std::move(input));
}

Blob Stowage::find_blob(std::string_view blob_id) const { return impl_->blobs.find(blob_id); }

std::string Stowage::signed_id(
    std::string_view blob_id, std::string_view purpose,
    std::optional<std::chrono::system_clock::time_point> expires_at) const {
  return impl_->blobs.signed_id(blob_id, purpose, expires_at);
}

std::optional<Blob> Stowage::find_signed(std::string_view signed_id,
                                         std::string_view purpose) const {
  return impl_->blobs.find_signed(signed_id, purpose);
}

void Stowage::download(const Blob& blob, ByteSink& sink) const {
  impl_->blobs.service(blob.service_name).download(blob.key, sink);
}

std::string Stowage::download_range(const Blob& blob, std::uint64_t offset,
                                    std::uint64_t length) const {
  return impl_->blobs.service(blob.service_name).download_range(blob.key, offset, length);
}

std::string Stowage::url(const Blob& blob, std::chrono::seconds expires_in,
                         Disposition disposition) const {
  return impl_->blobs.service(blob.service_name)
      .url(blob.key, expires_in, blob.filename, blob.content_type, disposition);
}

void Stowage::purge_blob(std::string_view blob_id) { impl_->blobs.purge(blob_id); }

Attachment Stowage::attach(const OwnerRef& owner, std::string_view name, const Blob& blob) {
  return impl_->attachments.attach(owner, name, blob);
}

Attachment Stowage::attach(const OwnerRef& owner, std::string_view name,
                           std::string_view blob_id) {
  return impl_->attachments.attach(owner, name, blob_id);
}

std::vector<Attachment> Stowage::attach_many(const OwnerRef& owner, std::string_view name,
                                             const std::vector<std::string>& blob_ids) {
  return impl_->attachments.attach_many(owner, name, blob_ids);
}

std::vector<Attachment> Stowage::replace(const OwnerRef& owner, std::string_view name,
                                         const std::vector<std::string>& blob_ids) {
  return impl_->attachments.replace(owner, name, blob_ids);
}

void Stowage::detach(const OwnerRef& owner, std::string_view name,
                     std::optional<std::string_view> attachment_id) {
  impl_->attachments.detach(owner, name, attachment_id);
}

void Stowage::purge(const OwnerRef& owner, std::string_view name,
                    std::optional<std::string_view> attachment_id) {
  impl_->attachments.purge(owner, name, attachment_id);
}

void Stowage::destroy_owner(const OwnerRef& owner) { impl_->attachments.destroy_owner(owner); }

AttachmentPage Stowage::list(const OwnerRef& owner, std::optional<std::string_view> name,
                             std::optional<std::string_view> page_token,
                             std::size_t limit) const {
  return impl_->attachments.list(owner, name, page_token, limit);
}

OwnerContext Stowage::set_context(const OwnerRef& owner, std::optional<std::string> account_id,
                                  std::optional<std::string> board_id) {
  return impl_->contexts.set_context(owner, std::move(account_id), std::move(board_id));
}

OwnerContext Stowage::context(const OwnerRef& owner) const {
  return impl_->contexts.find(owner);
}

std::int64_t Stowage::bytes_used(const Ledger& ledger) const {
  return impl_->totals.bytes_used(ledger);
}

std::int64_t Stowage::bytes_used_exact(const Ledger& ledger) const {
  return impl_->totals.bytes_used_exact(ledger);
}

MaterializeResult Stowage::materialize(const Ledger& ledger) {
  return impl_->totals.materialize(ledger);
}

ReconcileReport Stowage::reconcile(const Ledger& ledger, const ReconcileOptions& options) {
  return ledger::reconcile(*impl_->engine, impl_->schema, ledger, options);
}

std::vector<Ledger> Stowage::ledgers() const {
  return ledger::find_ledgers(*impl_->engine, impl_->schema);
}

std::vector<ListedEntry> Stowage::ledger_entries(
    const Ledger& ledger, std::optional<std::chrono::system_clock::time_point> since,
    std::optional<std::chrono::system_clock::time_point> until) const {
  return ledger::list_entries(*impl_->engine, impl_->schema, ledger, since, until);
}

std::int64_t Stowage::usage_at(const Ledger& ledger,
                               std::chrono::system_clock::time_point time) const {
  return ledger::usage_at(*impl_->engine, impl_->schema, ledger, time);
}

std::vector<UsagePoint> Stowage::usage_series(const Ledger& ledger,
                                              std::chrono::system_clock::time_point from,
                                              std::chrono::system_clock::time_point to,
                                              std::chrono::microseconds step) const {
  return ledger::usage_series(*impl_->engine, impl_->schema, ledger, from, to, step);
}

// Through the attachments' own Quotas, so that its cache holds the new limit
// for their next change.
void Stowage::set_quota(const Ledger& ledger, std::optional<std::int64_t> limit_bytes) {
  impl_->attachments.quotas().set_limit(ledger, limit_bytes);
}

std::optional<std::int64_t> Stowage::quota(const Ledger& ledger) const {
  return impl_->attachments.quotas().limit(ledger);
}

SweepReport Stowage::sweep(std::chrono::seconds grace) {
  return model::sweep(*impl_->engine, impl_->schema, impl_->blobs, impl_->services, grace);
}

void Stowage::start_workers() {
  if (impl_->workers_running) throw Error::validation("the job workers already run");
  if (impl_->config.workers == 0) return;
  impl_->pool.start();
  impl_->workers_running = true;
}

void Stowage::stop_workers() {
  impl_->pool.stop();
  impl_->workers_running = false;
}

bool Stowage::drain_jobs(std::chrono::milliseconds timeout) {
  if (impl_->workers_running) {
    throw Error::validation("drain_jobs: the job workers run; stop_workers() first");
  }
  return impl_->pool.drain_until_idle(timeout);
}

}  // namespace stowage
