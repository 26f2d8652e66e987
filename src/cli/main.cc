// stowage: the command line tool. Each command group lives in its own file;
// this one parses, dispatches and turns every failure into one line on
// stderr and a non-zero exit code.
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/attachment_commands.h"
#include "cli/blob_commands.h"
#include "cli/config_options.h"
#include "cli/ledger_commands.h"
#include "cli/table_commands.h"
#include "stowage/error.h"

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

    stowage::cli::ConfigOptions options;
    stowage::cli::add_config_options(app, options);
    stowage::cli::add_attachment_commands(app, options);
    stowage::cli::add_blob_commands(app, options);
  stowage::cli::add_ledger_commands(app, options);
    stowage::cli::add_table_commands(app, options);

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
