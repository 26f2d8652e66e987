// MotoServer: a moto server (DynamoDB and S3 peer for integration tests)
// running as a child process on a free loopback port.
//
// The server is serialized_moto_server.py beside this file: moto's app
// answering one request at a time, as DynamoDB isolates concurrent writes
// and moto_server does not (the script says how). It runs on the Python
// named by the STOWAGE_MOTO_PYTHON environment variable, else the
// repository's .venv. A missing Python is an error telling how to install
// it, so an integration test fails rather than silently skipping. Output
// goes to a log file whose path errors name. The destructor stops the server
// (SIGTERM, then SIGKILL) and reaps it; the child also dies with the test
// process.
//
// Thread safety: shared() may be called from any thread; a MotoServer is
// immutable once started.
#pragma once

#include <string>
#include <sys/types.h>

namespace stowage::testing {

class MotoServer {
 public:
  // Starts the server and waits until it answers HTTP. Throws
  // Error(ConfigurationError) when Python is missing or the server does not
  // come up.
  MotoServer();
  ~MotoServer();
  MotoServer(const MotoServer&) = delete;
  MotoServer& operator=(const MotoServer&) = delete;

  // The one server of this test process, started on first use (and set
  // AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION to test values
  // where unset). A failed start is remembered and rethrown to every caller,
  // so each dependent test fails fast with the same message.
  static MotoServer& shared();

  // "http://127.0.0.1:<port>".
  const std::string& endpoint() const { return endpoint_; }
  const std::string& log_path() const { return log_path_; }

 private:
  // Starts the server on `port` with `python`; false when it exited at once
  // (the port was taken after all), so the caller picks another.
  bool start_on(const std::string& python, int port);
  void stop();

  pid_t pid_ = -1;
  std::string endpoint_;
  std::string log_path_;
};

}  // namespace stowage::testing
