#include "cli/table_commands.h"

#include <iostream>
#include <memory>
#include <string>

#include "cli/config_options.h"
#include "cli/table_format.h"
#include "cli/table_roundtrip.h"
#include "stowage/error.h"
#include "table/default_table.h"

namespace stowage::cli {
namespace {

// A shared_ptr so that the value outlives add_table_commands and lives as
// long as the callbacks that read it.
std::shared_ptr<std::string> add_mode_option(CLI::App& command, const std::string& purpose) {
  auto mode = std::make_shared<std::string>("A");
  command
      .add_option("--mode", *mode,
                  "Key layout " + purpose +
                      ": A (string range key) or B (numeric range key + GSI)")
      ->check(CLI::IsMember({"A", "B"}, CLI::ignore_case))
      ->capture_default_str();
  return mode;
}

// REQUIRES: `mode` passed add_mode_option's check, which also turns "a"
// and "b" into "A" and "B".
table::KeyLayout layout_of(const std::string& mode) {
  return mode == "A" ? table::KeyLayout::ModeA : table::KeyLayout::ModeB;
}

// A missing table is the likeliest reason describe fails, so the message
// says how to make one.
[[noreturn]] void rethrow_with_hint(const Error& error) {
  if (error.code() != ErrorCode::ResourceNotFound) throw error;
  throw Error(error.code(),
              error.message() + " (create it with `stowage table create`)");
}

void create_table(const Config& config, table::KeyLayout layout) {
  auto engine = table::open_engine(config.engine);
  auto description = table::default_table_description(config.table.table, layout);
  engine->create_table(description);
  std::cout << "created table \"" << config.table.table << "\" on " << engine_label(config.engine)
            << ": " << format_layout(layout) << ", "
            << format_key_schema(description.key_schema) << "\n";
}

void describe_table(const Config& config) {
  auto engine = table::open_engine(config.engine);
  table::TableDescription description;
  try {
    description = engine->describe(config.table.table);
  } catch (const Error& error) {
    rethrow_with_hint(error);
  }
  std::cout << "table    " << description.name << " on " << engine_label(config.engine) << "\n"
            << "keys     " << format_key_schema(description.key_schema) << "\n";
  auto layout = matching_default_layout(description);
  std::cout << "layout   "
            << (layout ? format_layout(*layout) : "custom (not a Stowage default layout)")
            << "\n";
  if (description.global_secondary_indexes.empty()) {
    std::cout << "indexes  none\n";
  }
  for (const auto& index : description.global_secondary_indexes) {
    std::cout << "index    " << index.name << ": "
              << format_key_schema(index.key_schema) << "\n";
  }
}

void delete_table(const Config& config) {
  auto engine = table::open_engine(config.engine);
  engine->delete_table(config.table.table);
  std::cout << "deleted table \"" << config.table.table << "\" on " << engine_label(config.engine)
            << "\n";
}

}  // namespace

void add_table_commands(CLI::App& app, const ConfigOptions& options) {
  auto* group = app.add_subcommand("table", "Create, inspect and exercise the metadata table");
  group->require_subcommand(1);

  auto* create = group->add_subcommand("create", "Create the table with a default key layout");
  auto create_mode = add_mode_option(*create, "of the new table");
  create->callback([&options, create_mode] {
    create_table(read_config(options), layout_of(*create_mode));
  });

  group->add_subcommand("describe", "Print the table's key schema and indexes")
      ->callback([&options] { describe_table(read_config(options)); });

  group->add_subcommand("delete", "Delete the table and everything in it")
      ->callback([&options] { delete_table(read_config(options)); });

  auto* roundtrip = group->add_subcommand(
      "roundtrip",
      "Create the table if missing, then put, conditionally update, query and "
      "remove a few items");
  auto roundtrip_mode = add_mode_option(*roundtrip, "if the table is created");
  roundtrip->callback([&options, roundtrip_mode] {
    const Config config = read_config(options);
    auto engine = table::open_engine(config.engine);
    run_table_roundtrip(*engine, config.table.table, layout_of(*roundtrip_mode),
                        engine_label(config.engine), std::cout);
  });
}

}  // namespace stowage::cli
