// The global options that choose the engine and table, shared by every
// command. Defaults come from the environment (STOWAGE_ENGINE, STOWAGE_DB,
// STOWAGE_TABLE, …) so that a flag only overrides them.
#pragma once

#include <CLI/CLI.hpp>

#include "table/engine_config.h"

namespace stowage::cli {

// Binds --engine, --db, --table, --endpoint and --region to `config`, whose
// current values are shown as the defaults. `config` must outlive `app`'s
// parsing.
void add_engine_options(CLI::App& app, table::EngineConfig& config);

// A short name for messages: "sqlite (stowage.db)", "dynamodb", "memory".
std::string engine_label(const table::EngineConfig& config);

}  // namespace stowage::cli
