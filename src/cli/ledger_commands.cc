#include "cli/ledger_commands.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/progress_bar.h"
#include "cli/record_format.h"
#include "common/clock.h"
#include "stowage/error.h"

namespace stowage::cli {
namespace {

using Time = std::chrono::system_clock::time_point;

// What the commands' options are parsed into; shared so that it lives as
// long as the callbacks that read it.
struct Arguments {
  std::string record;
  std::string account;
  std::string board;
  std::string kind;
  std::string id;
  bool exact = false;
  bool all = false;
  bool repair = false;
  std::string since;
  std::string until;
};

// 2026-06-02, 2026-06-02T10:11:12Z, 2026-06-02T10:11:12.123456Z.
const std::regex& time_pattern() {
  static const std::regex pattern(
      R"((\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z)?)");
  return pattern;
}

// nullopt for text that is not such a time, or a time the clock cannot
// hold (system_clock counts nanoseconds: about 1678 to 2262).
std::optional<Time> parse_time(const std::string& text) {
  using namespace std::chrono;
  std::smatch match;
  if (!std::regex_match(text, match, time_pattern())) return std::nullopt;
  auto number = [&match](std::size_t i) { return match[i].matched ? std::stoi(match[i]) : 0; };
  const year_month_day date{year(number(1)), month(number(2)), day(number(3))};
  if (!date.ok() || number(4) > 23 || number(5) > 59 || number(6) > 59) return std::nullopt;
  std::string fraction = match[7].matched ? match[7].str() : "";
  fraction.resize(6, '0');
  const sys_time<microseconds> time = sys_days(date) + hours(number(4)) + minutes(number(5)) +
                                      seconds(number(6)) + microseconds(std::stoi(fraction));
  if (time < time_point_cast<microseconds>(Time::min()) ||
      time > time_point_cast<microseconds>(Time::max())) {
    return std::nullopt;
  }
  return time_point_cast<Time::duration>(time);
}

CLI::Validator time_validator() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        if (parse_time(text)) return "";
        return "a time is ISO-8601 in UTC between 1678 and 2262, e.g. 2026-06-02T10:11:12Z "
               "or 2026-06-02; got \"" +
               text + "\"";
      },
      "TIME");
}

std::optional<Time> optional_time(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return parse_time(text);
}

std::optional<std::string> optional_text(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

// REQUIRES: kind passed the KIND check.
Ledger ledger_of(const Arguments& arguments) {
  return arguments.kind == "account" ? Ledger::account(arguments.id)
                                     : Ledger::board(arguments.id);
}

std::string count_of(std::size_t count, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

using Field = std::pair<std::string_view, std::string>;

void print_fields(const std::vector<Field>& fields) {
  std::size_t width = 0;
  for (const auto& [name, value] : fields) width = std::max(width, name.size());
  for (const auto& [name, value] : fields) {
    std::cout << fmt::format("{:<{}}  {}\n", name, width, value);
  }
}

void set_context(const ConfigOptions& options, const Arguments& arguments) {
  Stowage stowage = open_stowage(options);
  const OwnerRef owner = parse_record(arguments.record);
  const OwnerContext context =
      stowage.set_context(owner, arguments.account, optional_text(arguments.board));
  print_fields({{"record", format_record(owner)},
                {"account", context.account_id.value_or("-")},
                {"board", context.board_id.value_or("-")},
                {"tracked_bytes", std::to_string(context.tracked_bytes)}});
}

void usage(const ConfigOptions& options, const Arguments& arguments) {
  const Stowage stowage = open_stowage(options);
  const Ledger ledger = ledger_of(arguments);
  const std::int64_t bytes =
      arguments.exact ? stowage.bytes_used_exact(ledger) : stowage.bytes_used(ledger);
  print_fields({{"ledger", ledger.describe()},
                {"bytes", std::to_string(bytes)},
                {"read", arguments.exact ? "exact (total + pending entries)"
                                         : "fast (the materialized total)"}});
}

void materialize(const ConfigOptions& options, const Arguments& arguments) {
  if (!arguments.all && arguments.id.empty()) {
    throw CLI::ValidationError("materialize", "name a ledger (account ID or board ID) or --all");
  }
  Stowage stowage = open_stowage(options);
  const std::vector<Ledger> ledgers =
      arguments.all ? stowage.ledgers() : std::vector<Ledger>{ledger_of(arguments)};
  std::size_t entries = 0;
  std::size_t transactions = 0;
  {
    ProgressBar progress("ledgers");
    for (std::size_t i = 0; i < ledgers.size(); ++i) {
      const MaterializeResult result = stowage.materialize(ledgers[i]);
      entries += result.entries;
      transactions += result.transactions;
      progress.update(i + 1, ledgers.size());
    }
  }
  std::cout << "materialized " << count_of(entries, "entry", "entries") << " ("
            << count_of(transactions, "transaction", "transactions") << ") over "
            << (arguments.all ? count_of(ledgers.size(), "ledger", "ledgers") : ledgers[0].describe())
            << "\n";
}

void reconcile(const ConfigOptions& options, const Arguments& arguments) {
  Stowage stowage = open_stowage(options);
  const Ledger ledger = ledger_of(arguments);
  ReconcileReport report;
  {
    ProgressBar progress("owners");
    ReconcileOptions reconcile_options;
    reconcile_options.repair = arguments.repair;
    reconcile_options.on_owner = [&progress](std::size_t done, std::size_t owners) {
      progress.update(done, owners);
    };
    report = stowage.reconcile(ledger, reconcile_options);
  }
  if (!report.settled) {
    throw Error::io("writers kept changing " + ledger.describe() +
                    " during every scan; nothing was repaired, try again when it is quieter");
  }
  print_fields({{"ledger", ledger.describe()},
                {"owners", std::to_string(report.owners)},
                {"attachments", std::to_string(report.attachments)},
                {"real_bytes", std::to_string(report.real_bytes)},
                {"ledger_bytes", std::to_string(report.ledger_bytes)},
                {"total_bytes", std::to_string(report.exact_bytes)},
                {"drift", std::to_string(report.drift())},
                {"total_drift", std::to_string(report.total_drift())},
                {"settled", report.settled ? "true" : "false"},
                {"repaired", report.repaired ? "true" : "false"}});
  if (!report.repair_refused.empty()) {
    throw Error::io("nothing was repaired: " + report.repair_refused);
  }
  if (report.drift() != 0 && !arguments.repair) {
    std::cerr << "stowage: " << ledger.describe()
              << " drifts; --repair writes a reconcile entry for the difference\n";
  }
}

std::string joined(const std::vector<std::string>& parts) {
  if (parts.empty()) return "-";
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ",") + part;
  return text;
}

void print_entry_table(const std::vector<ListedEntry>& entries) {
  using Row = std::array<std::string, 10>;
  std::vector<Row> rows = {{"time", "operation", "delta", "account", "board", "owner", "blob",
                            "attachment", "actor", "state"}};
  for (const ListedEntry& listed : entries) {
    const ledger::LedgerEntry& e = listed.entry;
    rows.push_back({e.created_at, std::string(ledger::to_string(e.operation)),
                    fmt::format("{:+}", e.delta_bytes), e.account_id.value_or("-"),
                    e.board_id.value_or("-"),
                    e.owner ? e.owner->record_type + ":" + e.owner->record_id : "-",
                    joined(e.blob_ids), joined(e.attachment_ids), e.actor_id.value_or("-"),
                    listed.pending ? "pending" : "materialized"});
  }
  std::array<std::size_t, 10> widths{};
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += i + 1 == row.size() ? row[i] : fmt::format("{:<{}}  ", row[i], widths[i]);
    }
    std::cout << line << "\n";
  }
}

void entries(const ConfigOptions& options, const Arguments& arguments) {
  const Stowage stowage = open_stowage(options);
  const Ledger ledger = ledger_of(arguments);
  const std::vector<ListedEntry> listed = stowage.ledger_entries(
      ledger, optional_time(arguments.since), optional_time(arguments.until));
  if (listed.empty()) {
    std::cout << "no entries in " << ledger.describe() << "\n";
    return;
  }
  print_entry_table(listed);
}

// KIND ID: whose ledger a command reads.
CLI::Option* add_ledger_arguments(CLI::App& command, Arguments& arguments, bool required) {
  CLI::Option* kind = command.add_option("KIND", arguments.kind, "account or board")
                          ->check(CLI::IsMember({"account", "board"}));
  CLI::Option* id = command.add_option("ID", arguments.id, "The account's or board's id");
  if (required) {
    kind->required();
    id->required();
  }
  kind->needs(id);
  return kind;
}

}  // namespace

void add_ledger_commands(CLI::App& app, const ConfigOptions& options) {
  auto arguments = std::make_shared<Arguments>();

  auto* context_command =
      app.add_subcommand("context", "Which account and board a record's bytes count for");
  context_command->require_subcommand(1);
  auto* set_command = context_command->add_subcommand(
      "set", "Give a record an account and a board, moving its tracked bytes there");
  set_command->add_option("RECORD", arguments->record, "The owner record, TYPE:ID (e.g. Card:42)")
      ->required()
      ->check(record_validator());
  set_command->add_option("--account", arguments->account, "The account id")->required();
  set_command->add_option("--board", arguments->board, "The board id; default: none");
  set_command->callback([&options, arguments] { set_context(options, *arguments); });

  auto* usage_command = app.add_subcommand("usage", "Bytes an account or a board uses");
  add_ledger_arguments(*usage_command, *arguments, true);
  usage_command->add_flag("--exact", arguments->exact,
                          "Add the entries not materialized yet (one query more)");
  usage_command->callback([&options, arguments] { usage(options, *arguments); });

  auto* materialize_command = app.add_subcommand(
      "materialize", "Roll pending ledger entries into the usage totals");
  CLI::Option* kind = add_ledger_arguments(*materialize_command, *arguments, false);
  materialize_command
      ->add_flag("--all", arguments->all,
                 "Every account and board the ledger names (reads the whole table)")
      ->excludes(kind);
  materialize_command->callback([&options, arguments] { materialize(options, *arguments); });

  auto* reconcile_command = app.add_subcommand(
      "reconcile", "Compare a ledger with the bytes actually attached");
  add_ledger_arguments(*reconcile_command, *arguments, true);
  reconcile_command->add_flag("--repair", arguments->repair,
                              "Write a reconcile entry that corrects a drift");
  reconcile_command->callback([&options, arguments] { reconcile(options, *arguments); });

  auto* ledger_command = app.add_subcommand("ledger", "Read the storage ledger");
  ledger_command->require_subcommand(1);
  auto* entries_command =
      ledger_command->add_subcommand("entries", "An account's or a board's entries");
  add_ledger_arguments(*entries_command, *arguments, true);
  entries_command->add_option("--since", arguments->since, "Only entries from this time on")
      ->check(time_validator());
  entries_command->add_option("--until", arguments->until, "Only entries up to this time")
      ->check(time_validator());
  entries_command->callback([&options, arguments] { entries(options, *arguments); });
}

}  // namespace stowage::cli
