// The fixture the CLI suites share: a fresh working directory holding
// note.txt ("hello, stowage\n", 15 bytes), where `stowage` runs with the
// embedded default configuration, and a reader for the `name  value` lines it
// prints. STOWAGE_CLI, set by the build, is the command's path.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/uuid.h"

namespace stowage::cli {

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr, interleaved
};

class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("stowage-cli-" + uuid_v4());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "note.txt") << "hello, stowage\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `stowage <arguments>` in the test's directory, with none of the
  // STOWAGE_ variables that would point it elsewhere. Arguments hold no
  // single quotes.
  CliResult stowage(const std::vector<std::string>& arguments) const {
    std::string command = "cd '" + dir_.string() +
                          "' && env -u STOWAGE_ENGINE -u STOWAGE_DB -u STOWAGE_TABLE "
                          "-u STOWAGE_SECRET '" STOWAGE_CLI "'";
    for (const std::string& argument : arguments) command += " '" + argument + "'";
    command += " 2>&1";
    CliResult run;
    FILE* pipe = ::popen(command.c_str(), "r");
    EXPECT_NE(pipe, nullptr);
    std::array<char, 4096> buffer;
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
      run.output.append(buffer.data(), n);
    }
    const int status = ::pclose(pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
  }

  // The value of the first line `name  value` of the output.
  static std::string field(const std::string& output, const std::string& name) {
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with(name + " ")) continue;
      return line.substr(line.find_first_not_of(' ', name.size()));
    }
    ADD_FAILURE() << "no " << name << " in:\n" << output;
    return "";
  }

  std::filesystem::path dir_;
};

}  // namespace stowage::cli
