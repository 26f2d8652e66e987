// reconcile: checks one ledger (an account or a board) against the
// attachments it accounts for, and optionally repairs it (DESIGN §5.4).
//
// Three figures:
//   real_bytes    Σ as_byte_size over the tracked attachment items of every
//                 owner in the ledger's owners index whose context still
//                 names this ledger
//   ledger_bytes  Σ delta over every entry, permanent and pending
//   exact_bytes   the Total's snapshot + Σ pending (bytes_used_exact)
// drift = real - exact (what users are charged wrongly); total_drift =
// ledger - exact (a Total that disagrees with its own entries).
//
// Correct while writers run: the figures come from one cut. The root
// partition is read before and after the scan of owners, attachments and
// entries; every tracked change of this ledger's owners and every transfer
// of bytes in or out puts a pending entry there, and every materialization
// or repair bumps the Total's version, so when both reads agree no bytes of
// this ledger moved during the scan. Each owner's attachments are read
// between two reads of its context that agree on its version (so an owner
// with no bytes that moves away and then gains some is counted as it was).
// A scan that sees a change is retried (up to max_attempts, which also
// bounds the reads of one owner); if none is quiet the report says
// settled = false, its figures are those of the last scan (which may have
// stopped part way), and nothing is repaired.
//
// Repair writes one pending `reconcile` entry of delta = drift, in one
// transaction with an ADD of the Total's version conditioned on the version
// the scan saw, so two repairs of one drift cannot both apply (the loser
// re-scans and finds none). Drift is not changed by correct writers (each
// changes real and ledger bytes together), so a repair racing them is
// still right. Mode B: attachment and index listings read the GSI, so a
// report is only as fresh as the index; repair there only when writers are
// quiet. While the index lists pending entries of the ledger, a repair is
// refused (repair_refused says why): the index may still list an entry
// that a materialization has already added to the Total (the Total is read
// on the base table), which would make a drift that is not there.
//
// Thread safety: safe for concurrent use as the engine is.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ledger/ledger_keys.h"
#include "schema/table_schema.h"
#include "table/engine.h"

namespace stowage::ledger {

struct ReconcileOptions {
  bool repair = false;
  std::size_t max_attempts = 20;
  std::optional<std::string> actor_id;
  std::optional<std::string> request_id;
  // Called after each owner of a scan, with the owners done and the owners
  // in the ledger's index, so a front end can show progress; a retried
  // scan starts again from 1.
  std::function<void(std::size_t done, std::size_t owners)> on_owner;
};

struct ReconcileReport {
  std::int64_t real_bytes = 0;
  std::int64_t ledger_bytes = 0;
  std::int64_t exact_bytes = 0;
  std::size_t owners = 0;
  std::size_t attachments = 0;
  bool settled = false;
  bool repaired = false;  // a reconcile entry was written
  std::string repair_refused;  // why a repair asked for was not written

  std::int64_t drift() const { return real_bytes - exact_bytes; }
  std::int64_t total_drift() const { return ledger_bytes - exact_bytes; }
};

ReconcileReport reconcile(table::Engine& engine, const schema::TableSchema& schema,
                          const Ledger& ledger, const ReconcileOptions& options = {});

}  // namespace stowage::ledger
