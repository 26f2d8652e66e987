// ledger_bench: what the storage ledger costs on the embedded engine
// (sqlite, WAL), each figure against its target:
//
//   bytes_used            one point read of the Total, for a ledger with 100
//                         and one with 100,000 permanent entries in one table.
//                         Target: latency @100,000 / @100 <= 1.5.
//   bytes_used_exact      one query of the root partition, with 0, 100 and
//                         10,000 pending entries (no target: it grows with
//                         what is pending, which materialization bounds).
//   materialize           pending entries rolled into the Total, entries/s,
//                         4,900 pending per round (100 transactions of 49).
//                         Target: >= 50,000/s with synchronous=FULL. The same
//                         with synchronous=NORMAL is printed beside it, in
//                         its own database file: the difference is the fsync
//                         per commit.
//   attach tracked/not    attach of an existing blob to a has_many (1
//                         transaction), with track_storage on (an owner with an
//                         account and a board: + its context read, the quota
//                         reads, 3 ledger actions, 1 materialize job) and
//                         off. Target: ops/s on / off >= 0.7. The two kinds
//                         alternate attach by attach (which goes first
//                         alternating too), so a WAL checkpoint or a slow
//                         fsync falls on either alike; no job worker runs, so
//                         the figure is the attach's own cost (its jobs are
//                         written, never run; materialize is measured above).
//                         Measured twice: attaching an existing blob (the
//                         cheapest attach, 2 items written untracked, so the
//                         worst case for the ratio), and uploading and
//                         attaching a new 10 KB file (Active Storage's usual
//                         attach: blob item, bytes with their fsyncs, row).
//   raw SQLite floor      the peer of the cheapest attach: the rows each kind
//                         writes (the attachment, the blob's count; tracked:
//                         + the owner context, 2 pending entries, the
//                         materialize job), as large as the items the
//                         attaches stored, written by plain SQLite statements
//                         into a database of as many rows, one transaction per
//                         attach, alternating like the attaches. Its on / off
//                         ratio is what SQLite allows for the ledger's writes
//                         on this machine, before any code of ours runs. It
//                         makes none of the reads the engine does (condition
//                         checks, the context update's read), so it errs fast.
//
// The 100,000 permanent entries are built during setup with
// synchronous=OFF (written pending 100 to a transaction, then materialized);
// the database is then reopened with synchronous=FULL for every measurement.
// Measurements run interleaved in rounds (the order rotates) and each figure
// is the median over the rounds. Exits 1 when a target is missed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/uuid.h"
#include "ledger/ledger_entry.h"
#include "ledger/totals.h"
#include "ledger/tracked_change.h"
#include "ledger/transfer.h"
#include "model/attachments.h"
#include "model/blob_store.h"
#include "model/definitions.h"
#include "schema/table_schema.h"
#include "service/disk_service.h"
#include "stowage/error.h"
#include "plain_sqlite.h"
#include "table/default_table.h"
#include "table/item_codec.h"
#include "table/sqlite_engine.h"

namespace {

using namespace stowage;
using Clock = std::chrono::steady_clock;
using ledger::Ledger;

constexpr int kRounds = 7;
constexpr std::size_t kLargeTrail = 100'000;
constexpr std::size_t kSmallTrail = 100;
constexpr std::size_t kManyPending = 10'000;
constexpr std::size_t kFewPending = 100;
constexpr std::size_t kMaterializedPerRound = 100 * ledger::kMaterializeBatch;
constexpr int kPointReadsPerRound = 2000;
constexpr int kAttachesPerRound = 100;  // of each kind
constexpr double kTrailRatioTarget = 1.5;
constexpr double kMaterializeTarget = 50'000;
constexpr double kTrackingRatioTarget = 0.7;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Database {
  Database(const std::filesystem::path& path, const std::string& synchronous)
      : engine(table::make_sqlite_engine({path.string(), synchronous})),
        schema(schema::TableSchema::open(*engine, managed())) {}

  static schema::SchemaConfig managed() {
    schema::SchemaConfig config;
    config.manage_table = true;
    return config;
  }

  std::unique_ptr<table::Engine> engine;
  const schema::TableSchema schema;
};

// `count` pending attach entries of 10 bytes each in `ledger`, 100 Puts a
// transaction (the most one may hold).
void write_pending(Database& db, const Ledger& ledger, std::size_t count) {
  for (std::size_t done = 0; done < count;) {
    table::TransactWriteRequest transaction;
    for (; done < count && transaction.actions.size() < 100; ++done) {
      const auto now = std::chrono::system_clock::now();
      ledger::LedgerEntry entry;
      entry.id = uuid_v7(now);
      entry.delta_bytes = 10;
      entry.account_id = ledger.owner_id;
      entry.owner = ledger::OwnerRecord{"Card", "bench"};
      entry.blob_ids = {uuid_v4()};
      entry.attachment_ids = {uuid_v7(now)};
      entry.created_at = iso8601_utc_micros(now);
      transaction.actions.emplace_back(ledger::pending_entry_put(db.schema, ledger, entry));
    }
    db.engine->transact_write(transaction);
  }
}

void check_materialized(const ledger::MaterializeResult& result, std::size_t expected) {
  if (result.entries != expected) {
    throw Error::io(fmt::format("materialize moved {} entries, not {}", result.entries, expected));
  }
}

// The permanent trails, built fast and not durably: nothing is timed here.
void build_trails(const std::filesystem::path& path, const Ledger& small, const Ledger& large) {
  Database db(path, "OFF");
  const ledger::Totals totals(*db.engine, db.schema);
  for (const auto& [ledger, count] : {std::pair{small, kSmallTrail}, {large, kLargeTrail}}) {
    write_pending(db, ledger, count);
    check_materialized(totals.materialize(ledger), count);
  }
}

// The stored size of one item of each kind (as_kind) in the table: the
// largest, so that the floor writes no less than the attaches did.
std::map<std::string, std::size_t> stored_sizes(Database& db) {
  std::map<std::string, std::size_t> sizes;
  table::ScanRequest scan{db.schema.table_name(), std::nullopt, std::nullopt, true};
  for (;;) {
    table::QueryResult page = db.engine->scan(scan);
    for (const table::Item& item : page.items) {
      const auto kind = item.find("as_kind");
      if (kind == item.end() || kind->second.type() != table::Type::S) continue;
      std::size_t& size = sizes[kind->second.as_string()];
      size = std::max(size, table::encode_item(item).size());
    }
    if (!page.last_evaluated_key) return sizes;
    scan.exclusive_start_key = std::move(page.last_evaluated_key);
  }
}

// An item keyed (partition, sort) whose encoding is about `size` bytes.
table::Item sized_item(const std::string& partition, const std::string& sort,
                       std::size_t size) {
  table::Item item{{std::string(table::kDefaultHashAttribute), table::Value::string(partition)},
                   {std::string(table::kDefaultRangeAttribute), table::Value::string(sort)},
                   {"as_padding", table::Value::string("")}};
  const std::size_t bare = table::encode_item(item).size();
  if (size > bare) item["as_padding"] = table::Value::string(std::string(size - bare, 'p'));
  return item;
}

// The raw SQLite peer of the attach comparison, with `filler_rows` rows of
// 500 bytes around the hot partitions (the "pNNNN" names interleave), as the
// 100,000 entries and the rest sit around them in the table.
class RawRows {
 public:
  RawRows(const std::filesystem::path& path, std::size_t filler_rows)
      : db_(path.string(), "floor") {
    db_.begin();
    for (std::size_t i = 0; i < filler_rows; ++i) {
      db_.write(sized_item(fmt::format("p{:04}", i % 1000), uuid_v4(), 500));
    }
    db_.commit();
  }

  void begin() { db_.begin(); }
  void commit() { db_.commit(); }
  // A new row (a fresh, time-ordered sort key) or a rewritten one.
  void insert(const std::string& partition, std::size_t size) {
    db_.write(sized_item(partition, uuid_v7(std::chrono::system_clock::now()), size));
  }
  void rewrite(const std::string& partition, std::size_t size) {
    db_.write(sized_item(partition, "one", size));
  }

 private:
  bench::PlainSqlite db_;
};

struct Line {
  std::vector<double> figures;  // one per round
  double median_figure() const { return median(figures); }
};

int run() {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("stowage-ledger-bench-" + uuid_v4());
  std::filesystem::create_directories(root);
  struct Cleanup {
    std::filesystem::path root;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(root, ignored);
    }
  } cleanup{root};

  const Ledger small = Ledger::account("trail-100");
  const Ledger large = Ledger::account("trail-100000");
  const auto setup_start = Clock::now();
  build_trails(root / "stowage.db", small, large);
  const double setup_seconds = seconds_since(setup_start);

  Database db(root / "stowage.db", "FULL");
  Database normal(root / "normal.db", "NORMAL");
  const ledger::Totals totals(*db.engine, db.schema);
  const ledger::Totals normal_totals(*normal.engine, normal.schema);

  const Ledger no_pending = Ledger::account("pending-0");
  const Ledger few_pending = Ledger::account("pending-100");
  const Ledger many_pending = Ledger::account("pending-10000");
  write_pending(db, few_pending, kFewPending);
  write_pending(db, many_pending, kManyPending);
  if (totals.bytes_used(large) != static_cast<std::int64_t>(10 * kLargeTrail) ||
      totals.bytes_used_exact(many_pending) != static_cast<std::int64_t>(10 * kManyPending)) {
    throw Error::io("the setup's ledgers do not hold what was written");
  }

  // The attach comparison: one owner per side, the tracked one with an
  // account and a board; the blob is attached again and again (a has_many).
  const model::ServiceMap services = {
      {"local", std::make_shared<service::DiskService>(
                    service::DiskServiceOptions{root / "files", "/disk", "", nullptr})}};
  model::BlobStore blobs(*db.engine, db.schema,
                         model::BlobStoreOptions{services, "local", std::string(40, 's')});
  const model::Definitions definitions = model::Definitions::parse(R"(
[[attachments]]
record_type = "Card"
name = "tracked"
track_storage = true
[[attachments]]
record_type = "Card"
name = "untracked"
track_storage = false
)");
  model::Attachments attachments(*db.engine, db.schema, definitions, blobs);
  service::StringSource payload(std::string(10 * 1024, 'b'));
  const model::Blob blob =
      blobs.create_and_upload(payload, model::BlobInput{"bench.txt", "", {}, ""});
  const model::OwnerRef tracked_owner{"Card", "tracked"};
  const model::OwnerRef untracked_owner{"Card", "untracked"};
  ledger::assign_owner(*db.engine, db.schema, {"Card", "tracked"},
                       {std::string("attach-account"), std::string("attach-board"), {}, {}});
  // One attach of each kind before the rounds, so that every item kind the
  // floor copies the size of is in the table.
  attachments.attach(tracked_owner, "tracked", blob);
  attachments.attach(untracked_owner, "untracked", blob);
  const std::map<std::string, std::size_t> sizes = stored_sizes(db);
  const std::size_t table_rows = kLargeTrail + kSmallTrail + kFewPending + kManyPending;
  RawRows raw(root / "floor.db", table_rows);
  auto size_of = [&sizes](const std::string& kind) {
    const auto it = sizes.find(kind);
    if (it == sizes.end()) throw Error::io("no " + kind + " item in the table to copy the size of");
    return it->second;
  };
  const std::size_t attachment_size = size_of("Attachment"), blob_size = size_of("Blob"),
                    context_size = size_of("OwnerContext"), entry_size = size_of("LedgerEntry"),
                    job_size = size_of("Job");

  Line used_small, used_large, exact_none, exact_few, exact_many, materialize_full,
      materialize_normal, attach_tracked, attach_untracked, upload_tracked, upload_untracked,
      floor_tracked, floor_untracked;

  auto point_reads = [&](const Ledger& ledger, Line& line) {
    const auto start = Clock::now();
    for (int i = 0; i < kPointReadsPerRound; ++i) totals.bytes_used(ledger);
    line.figures.push_back(1e6 * seconds_since(start) / kPointReadsPerRound);
  };
  auto exact_reads = [&](const Ledger& ledger, int reads, Line& line) {
    const auto start = Clock::now();
    for (int i = 0; i < reads; ++i) totals.bytes_used_exact(ledger);
    line.figures.push_back(1e6 * seconds_since(start) / reads);
  };
  int materialize_round = 0;
  auto materialize = [&](Database& target, const ledger::Totals& target_totals, Line& line) {
    const Ledger ledger = Ledger::account(fmt::format("materialize-{}", materialize_round++));
    write_pending(target, ledger, kMaterializedPerRound);
    const auto start = Clock::now();
    check_materialized(target_totals.materialize(ledger), kMaterializedPerRound);
    line.figures.push_back(kMaterializedPerRound / seconds_since(start));
  };
  // Tracked and untracked attaches alternate one by one (which goes first
  // alternating too), so a WAL checkpoint or a slow fsync falls on either.
  auto attach_both = [&](const std::function<void(const model::OwnerRef&, const std::string&)>&
                             attach,
                         Line& tracked_line, Line& untracked_line) {
    double tracked_seconds = 0;
    double untracked_seconds = 0;
    auto timed = [&](const model::OwnerRef& owner, const std::string& name, double& seconds) {
      const auto start = Clock::now();
      attach(owner, name);
      seconds += seconds_since(start);
    };
    for (int i = 0; i < kAttachesPerRound; ++i) {
      if (i % 2 == 0) timed(tracked_owner, "tracked", tracked_seconds);
      timed(untracked_owner, "untracked", untracked_seconds);
      if (i % 2 == 1) timed(tracked_owner, "tracked", tracked_seconds);
    }
    tracked_line.figures.push_back(kAttachesPerRound / tracked_seconds);
    untracked_line.figures.push_back(kAttachesPerRound / untracked_seconds);
  };
  auto attach_existing = [&](const model::OwnerRef& owner, const std::string& name) {
    attachments.attach(owner, name, blob);
  };
  auto upload_and_attach = [&](const model::OwnerRef& owner, const std::string& name) {
    service::StringSource file(std::string(10 * 1024, 'u'));
    attachments.attach(owner, name,
                       blobs.create_and_upload(file, model::BlobInput{"new.txt", "", {}, ""}));
  };

  // The rows of the cheapest attach, each in a partition of its own as in
  // the table; the untracked owner's too.
  auto raw_attach = [&](const model::OwnerRef&, const std::string& name) {
    raw.begin();
    if (name == "tracked") {
      raw.insert("p0100-owner", attachment_size);
      raw.rewrite("p0100-owner", context_size);
      raw.insert("p0300-account-pending", entry_size);
      raw.insert("p0500-board-pending", entry_size);
      raw.insert("p0700-jobs", job_size);
    } else {
      raw.insert("p0200-owner", attachment_size);
    }
    raw.rewrite("p0900-blob", blob_size);
    raw.commit();
  };

  const std::vector<std::function<void()>> measurements = {
      [&] { point_reads(small, used_small); },
      [&] { point_reads(large, used_large); },
      [&] { exact_reads(no_pending, kPointReadsPerRound, exact_none); },
      [&] { exact_reads(few_pending, 200, exact_few); },
      [&] { exact_reads(many_pending, 10, exact_many); },
      [&] { materialize(db, totals, materialize_full); },
      [&] { materialize(normal, normal_totals, materialize_normal); },
      [&] { attach_both(attach_existing, attach_tracked, attach_untracked); },
      [&] { attach_both(upload_and_attach, upload_tracked, upload_untracked); },
      [&] { attach_both(raw_attach, floor_tracked, floor_untracked); },
  };
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t i = 0; i < measurements.size(); ++i) {
      measurements[(i + round) % measurements.size()]();
    }
  }
  if (totals.bytes_used_exact(Ledger::account("attach-account")) !=
      static_cast<std::int64_t>((2 * kRounds * kAttachesPerRound + 1) * blob.byte_size)) {
    throw Error::io("the tracked attaches were not all counted");
  }

  const double trail_ratio = used_large.median_figure() / used_small.median_figure();
  const double materialize_rate = materialize_full.median_figure();
  const double tracking_ratio =
      attach_tracked.median_figure() / attach_untracked.median_figure();
  const double floor_ratio = floor_tracked.median_figure() / floor_untracked.median_figure();
  const double upload_tracking_ratio =
      upload_tracked.median_figure() / upload_untracked.median_figure();
  const bool trail_pass = trail_ratio <= kTrailRatioTarget;
  const bool materialize_pass = materialize_rate >= kMaterializeTarget;
  const bool tracking_pass = tracking_ratio >= kTrackingRatioTarget;
  const bool upload_tracking_pass = upload_tracking_ratio >= kTrackingRatioTarget;
  auto verdict = [](bool pass) { return pass ? "PASS" : "MISS"; };

  fmt::print("ledger_bench: sqlite (WAL), one table; median of {} interleaved rounds\n", kRounds);
  fmt::print("setup: {} + {} permanent entries written with synchronous=OFF ({:.1f} s), then "
             "the database reopened with synchronous=FULL for every figure below;\n"
             "       {} and {} pending entries; materialize: {} pending per round "
             "({} a transaction); attach: a 10 KB blob to a has_many, existing or new\n\n",
             kSmallTrail, kLargeTrail, setup_seconds, kFewPending, kManyPending,
             kMaterializedPerRound, ledger::kMaterializeBatch);
  fmt::print("{:<46} {:>12}   {}\n", "measurement", "figure", "target");
  fmt::print("{:<46} {:>9.1f} us\n", "bytes_used @100 permanent", used_small.median_figure());
  fmt::print("{:<46} {:>9.1f} us   @100000 / @100 = {:.2f} (<= {:.1f}) {}\n",
             "bytes_used @100000 permanent", used_large.median_figure(), trail_ratio,
             kTrailRatioTarget, verdict(trail_pass));
  fmt::print("{:<46} {:>9.1f} us\n", "bytes_used_exact @0 pending", exact_none.median_figure());
  fmt::print("{:<46} {:>9.1f} us\n", "bytes_used_exact @100 pending", exact_few.median_figure());
  fmt::print("{:<46} {:>9.1f} us\n", "bytes_used_exact @10000 pending",
             exact_many.median_figure());
  fmt::print("{:<46} {:>7.0f} /s   (>= {:.0f}/s) {}\n",
             "materialize, synchronous=FULL (entries)", materialize_rate, kMaterializeTarget,
             verdict(materialize_pass));
  fmt::print("{:<46} {:>7.0f} /s\n", "  the same, synchronous=NORMAL",
             materialize_normal.median_figure());
  fmt::print("{:<46} {:>7.1f} /s\n", "attach, track_storage off",
             attach_untracked.median_figure());
  fmt::print("{:<46} {:>7.1f} /s   on / off = {:.2f} (>= {:.1f}) {}\n",
             "attach, track_storage on", attach_tracked.median_figure(), tracking_ratio,
             kTrackingRatioTarget, verdict(tracking_pass));
  fmt::print("{:<46} {:>7.1f} /s\n", "  raw SQLite floor: the untracked attach's rows",
             floor_untracked.median_figure());
  fmt::print("{:<46} {:>7.1f} /s   on / off = {:.2f}; the attach reaches {:.0f}% of it\n",
             "  raw SQLite floor: the tracked attach's rows", floor_tracked.median_figure(),
             floor_ratio, 100 * tracking_ratio / floor_ratio);
  fmt::print("{:<46} {:>7.1f} /s\n", "upload + attach a new file, track_storage off",
             upload_untracked.median_figure());
  fmt::print("{:<46} {:>7.1f} /s   on / off = {:.2f} (>= {:.1f}) {}\n",
             "upload + attach a new file, track_storage on", upload_tracked.median_figure(),
             upload_tracking_ratio, kTrackingRatioTarget, verdict(upload_tracking_pass));
  return trail_pass && materialize_pass && tracking_pass && upload_tracking_pass ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ledger_bench: %s\n", error.what());
    return 2;
  }
}
