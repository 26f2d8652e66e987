// stowage: the command line tool. Each command group lives in its own file;
// this one parses, dispatches and turns every failure into one line on
// stderr and a non-zero exit code.
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/engine_options.h"
#include "cli/table_commands.h"
#include "stowage/error.h"
#include "table/engine_config.h"

namespace {

// 2: the command line or the configuration is wrong; 1: the operation failed.
constexpr int kOperationFailed = 1;
constexpr int kUsageError = 2;

int fail(const std::string& message, int exit_code) {
  std::cerr << "stowage: " << message << "\n";
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    CLI::App app{"Stowage: attachment storage with exact storage accounting"};
    app.name("stowage");
    // Global options are accepted after a subcommand too
    // (`stowage table describe --db other.db`).
    app.fallthrough();
    app.require_subcommand(1);

    auto config = stowage::table::engine_config_from_environment();
    stowage::cli::add_engine_options(app, config);
    stowage::cli::add_table_commands(app, config);

    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
      return app.exit(help);
    } catch (const CLI::CallForAllHelp& help) {
      return app.exit(help);
    } catch (const CLI::ParseError& error) {
      return fail(std::string(error.what()) + " (see `stowage --help`)", kUsageError);
    }
    return 0;
  } catch (const stowage::Error& error) {
    return fail(error.what(), error.code() == stowage::ErrorCode::ConfigurationError
                                  ? kUsageError
                                  : kOperationFailed);
  } catch (const std::exception& error) {
    return fail(error.what(), kOperationFailed);
  }
}
