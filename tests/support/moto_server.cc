#include "support/moto_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "stowage/error.h"

namespace stowage::testing {

namespace {

constexpr auto kStartTimeout = std::chrono::seconds(60);
constexpr auto kStopGrace = std::chrono::seconds(5);
constexpr int kPortAttempts = 5;

// The launcher and the repository's .venv are found from this file's own
// path, not from compile definitions: bench/ compiles this file into its
// own targets too, and both builds then agree.
std::filesystem::path support_directory() {
  return std::filesystem::path(__FILE__).parent_path();
}

std::string moto_python() {
  if (const char* path = std::getenv("STOWAGE_MOTO_PYTHON"); path && *path) {
    return path;
  }
  return (support_directory() / "../../.venv/bin/python").lexically_normal().string();
}

std::string moto_launcher() {
  return (support_directory() / "serialized_moto_server.py").string();
}

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// Asks the kernel for a free port by binding port 0. The port is released
// before moto binds it, so another process may take it in between; the
// caller retries with a new port when moto fails to bind.
int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error::io(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address = loopback(0);
  socklen_t length = sizeof(address);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string reason = std::strerror(errno);
    ::close(fd);
    throw Error::io("cannot find a free loopback port: " + reason);
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

// True when something on `port` answers an HTTP request with a status line.
bool answers_http(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in address = loopback(port);
  bool answered = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    static constexpr char kRequest[] =
        "GET /moto-api/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd, kRequest, sizeof(kRequest) - 1, MSG_NOSIGNAL) > 0) {
      char status[5];
      answered = ::recv(fd, status, sizeof(status), MSG_WAITALL) == 5 &&
                 std::memcmp(status, "HTTP/", 5) == 0;
    }
  }
  ::close(fd);
  return answered;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace

MotoServer::MotoServer() {
  const std::string python = moto_python();
  if (::access(python.c_str(), X_OK) != 0) {
    throw Error(ErrorCode::ConfigurationError,
                "moto's Python not found at " + python +
                    "; run scripts/setup.sh to install moto into .venv, or set "
                    "STOWAGE_MOTO_PYTHON to a Python that has moto[server]");
  }
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    if (start_on(python, free_loopback_port())) return;
  }
  throw Error(ErrorCode::ConfigurationError,
              "moto server could not bind a free loopback port in " +
                  std::to_string(kPortAttempts) + " attempts; see " + log_path_);
}

MotoServer::~MotoServer() {
  stop();
  std::filesystem::remove(log_path_);
}

bool MotoServer::start_on(const std::string& python, int port) {
  const std::string port_text = std::to_string(port);
  log_path_ = (std::filesystem::temp_directory_path() /
               ("stowage-moto-" + std::to_string(::getpid()) + "-" + port_text +
                ".log"))
                  .string();
  const int log_fd =
      ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    throw Error::io("cannot create " + log_path_ + ": " + std::strerror(errno));
  }
  // Everything the child needs is prepared before fork: between fork and
  // exec only async-signal-safe calls are allowed.
  std::vector<std::string> args = {python, moto_launcher(), "-H", "127.0.0.1", "-p", port_text};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  // The death signal follows the forking thread, not the process, so it is
  // armed only when forking from the main thread.
  const bool die_with_parent = ::gettid() == parent;

  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log_fd);
    throw Error::io(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Die with the test process, even if it crashes before the destructor.
    if (die_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(127);
    }
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(log_fd);
  pid_ = pid;

  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      const std::string log = read_file(log_path_);
      if (log.find("Address already in use") != std::string::npos) return false;
      throw Error(ErrorCode::ConfigurationError,
                  "moto server (" + python + " " + args[1] +
                      ") exited at start; its output (" +
                      log_path_ + "):\n" + log);
    }
    if (answers_http(port)) {
      endpoint_ = "http://127.0.0.1:" + port_text;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  stop();
  throw Error(ErrorCode::ConfigurationError,
              "moto server did not answer on port " + port_text + " within " +
                  std::to_string(kStartTimeout.count()) + " s; its output (" +
                  log_path_ + "):\n" + read_file(log_path_));
}

void MotoServer::stop() {
  if (pid_ < 0) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kStopGrace;
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
}

MotoServer& MotoServer::shared() {
  static std::mutex mutex;
  static std::unique_ptr<MotoServer> server;
  static std::optional<Error> failure;
  std::lock_guard lock(mutex);
  if (server) return *server;
  if (failure) throw *failure;
  // moto accepts any credentials, but the AWS credential chain needs some.
  ::setenv("AWS_ACCESS_KEY_ID", "testing", 0);
  ::setenv("AWS_SECRET_ACCESS_KEY", "testing", 0);
  ::setenv("AWS_REGION", "us-east-1", 0);
  try {
    server = std::make_unique<MotoServer>();
  } catch (const Error& error) {
    failure = error;
    throw;
  }
  return *server;
}

}  // namespace stowage::testing
