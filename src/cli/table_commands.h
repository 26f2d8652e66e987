// `stowage table …`: create, describe, delete and roundtrip the table that
// holds Stowage's metadata, on the engine the global options choose.
#pragma once

#include <CLI/CLI.hpp>

#include "table/engine_config.h"

namespace stowage::cli {

// Adds the `table` command group to `app`. `config` is read when a command
// runs (after parsing), so it must outlive `app`'s parsing.
void add_table_commands(CLI::App& app, const table::EngineConfig& config);

}  // namespace stowage::cli
