// The storage ledger's commands, through the Stowage facade:
//   stowage context set RECORD --account A [--board B]
//   stowage usage account|board ID [--exact]
//   stowage materialize account|board ID     or  stowage materialize --all
//   stowage reconcile account|board ID [--repair]
//   stowage ledger entries account|board ID [--since T] [--until T]
// Times are ISO-8601 in UTC (2026-06-02T10:11:12Z, fractions allowed, or a
// bare date for its midnight).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/config_options.h"

namespace stowage::cli {

// Adds the commands to `app`. `options` are read when a command runs (after
// parsing), so they must outlive `app`'s parsing.
void add_ledger_commands(CLI::App& app, const ConfigOptions& options);

}  // namespace stowage::cli
