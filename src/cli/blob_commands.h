// `stowage blob show` and `stowage sweep`: inspect a blob, and delete what
// no metadata references, through the Stowage facade.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/config_options.h"

namespace stowage::cli {

// Adds the commands to `app`. `options` are read when a command runs (after
// parsing), so they must outlive `app`'s parsing.
void add_blob_commands(CLI::App& app, const ConfigOptions& options);

}  // namespace stowage::cli
