// `stowage table …`: create, describe, delete and roundtrip the table that
// holds Stowage's metadata, on the engine and table the configuration
// chooses.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/config_options.h"

namespace stowage::cli {

// Adds the `table` command group to `app`. `options` are read when a command
// runs (after parsing), so they must outlive `app`'s parsing.
void add_table_commands(CLI::App& app, const ConfigOptions& options);

}  // namespace stowage::cli
