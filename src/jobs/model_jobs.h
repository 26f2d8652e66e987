// The handlers of the jobs the model enqueues in its transactions
// (model/outbox.h):
//   purge_blob    BlobStore::purge of the blob. Purging a blob that is gone
//                 is a no-op; a blob that was attached again meanwhile
//                 (ForeignKeyViolation) is left alone and the job completes,
//                 since its next last detach enqueues a new purge.
//   delete_bytes  removes the key from the named service (removing missing
//                 bytes is not an error). A service this process does not
//                 know is "target gone": the job is discarded with a log
//                 line, since no retry here can change that.
//   materialize   ledger::Totals::materialize of each ledger the job names
//                 (the account and/or board of a tracked change's owner):
//                 rolls their pending entries into their totals. Safe twice
//                 and concurrently (each batch is conditioned on the total's
//                 version); its coalesce_key keeps one per set of ledgers
//                 running in a pool. Registered apart, by
//                 add_materialize_handler, as it needs the table rather
//                 than the blob store.
//   analyze_blob  BlobStore::analyze of the blob a direct upload created,
//                 enqueued by its attach. A purged blob (RecordNotFound)
//                 discards the job; bytes not on the service yet are
//                 retried with the queue's backoff, as the upload may still
//                 be in flight, and dead-lettered if they never arrive.
//
// Thread safety: the handlers are safe to run on many threads at once; the
// blob store, engine and schema must outlive them.
#pragma once

#include "jobs/job_handlers.h"
#include "model/blob_store.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::jobs {

void add_model_handlers(JobHandlers& handlers, model::BlobStore& blobs);
void add_materialize_handler(JobHandlers& handlers, table::Engine& engine,
                             const schema::TableSchema& schema);

}  // namespace stowage::jobs
