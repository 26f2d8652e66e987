#include "cli/blob_commands.h"

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "cli/record_format.h"

namespace stowage::cli {
namespace {

void show_blob(const ConfigOptions& options, const std::string& blob_id) {
  print_blob(std::cout, open_stowage(options).find_blob(blob_id));
}

void sweep(const ConfigOptions& options, std::int64_t grace_seconds) {
  Stowage stowage = open_stowage(options);
  const SweepReport report = stowage.sweep(std::chrono::seconds(grace_seconds));
  run_due_jobs(stowage);
  for (const SweptObject& object : report.deleted_objects) {
    std::cout << "deleted bytes " << object.key << " from " << object.service_name
              << " (no blob references them)\n";
  }
  for (const std::string& blob_id : report.purged_blob_ids) {
    std::cout << "purged blob " << blob_id << " (never attached)\n";
  }
  std::cout << "swept " << report.deleted_objects.size() << " unreferenced objects and "
            << report.purged_blob_ids.size() << " unattached blobs\n";
}

}  // namespace

void add_blob_commands(CLI::App& app, const ConfigOptions& options) {
  auto* group = app.add_subcommand("blob", "Inspect blobs");
  group->require_subcommand(1);

  auto blob_id = std::make_shared<std::string>();
  auto* show = group->add_subcommand("show", "Print every field of a blob");
  show->add_option("ID", *blob_id, "The blob id (as `stowage ls` and `put` print it)")
      ->required();
  show->callback([&options, blob_id] { show_blob(options, *blob_id); });

  auto grace_seconds = std::make_shared<std::int64_t>(3600);
  auto* sweep_command = app.add_subcommand(
      "sweep", "Delete bytes no blob references and blobs never attached, once older "
               "than the grace period");
  sweep_command
      ->add_option("--grace", *grace_seconds,
                   "Leave what is younger than this alone, e.g. 90s, 30m, 1h, 2d "
                   "(default 1h): uploads in flight have bytes before their blob")
      ->transform(CLI::AsNumberWithUnit(
          std::map<std::string, std::int64_t>{{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}}))
      ->check(CLI::Validator(
          [](const std::string& seconds) -> std::string {
            return seconds.starts_with('-') ? "the grace period cannot be negative" : "";
          },
          "DURATION"));
  sweep_command->callback([&options, grace_seconds] { sweep(options, *grace_seconds); });
}

}  // namespace stowage::cli
