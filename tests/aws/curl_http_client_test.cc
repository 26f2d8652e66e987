// The libcurl client against a loopback HTTP/1.1 server run by the test:
// round trips, header handling, error classification and connection reuse.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aws/http_client.h"
#include "stowage/error.h"

namespace stowage::aws {
namespace {

struct ReceivedRequest {
  std::string method;
  std::string path;
  std::multimap<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// A keep-alive HTTP/1.1 server on 127.0.0.1 with a few fixed routes:
//   /echo          200, body echoed, a padded X-Reply header
//   /status/503    503
//   /slow          answers after 1.5 s
//   /hangup        closes the connection without answering
//   /drop-after    answers as if keeping the connection, then closes it
// It counts accepted connections and records the last request.
class LoopbackServer {
 public:
  LoopbackServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 64) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    socklen_t length = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~LoopbackServer() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    ::close(listener_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
    }
    for (std::thread& worker : workers_) worker.join();
  }

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  int accepted() const { return accepted_; }
  ReceivedRequest last_request() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_;
  }

 private:
  void accept_loop() {
    while (!stopping_) {
      int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      ++accepted_;
      std::lock_guard<std::mutex> lock(mutex_);
      connections_.push_back(fd);
      workers_.emplace_back([this, fd] { serve(fd); });
    }
  }

  // Reads one request; false when the peer closed the connection.
  static bool read_request(int fd, std::string& buffer, ReceivedRequest& request) {
    std::size_t end;
    while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (!fill(fd, buffer)) return false;
    }
    std::string head = buffer.substr(0, end);
    buffer.erase(0, end + 4);
    std::size_t line_end = head.find("\r\n");
    std::string request_line = head.substr(0, line_end);
    std::size_t space1 = request_line.find(' ');
    std::size_t space2 = request_line.find(' ', space1 + 1);
    request.method = request_line.substr(0, space1);
    request.path = request_line.substr(space1 + 1, space2 - space1 - 1);
    request.headers.clear();
    std::size_t content_length = 0;
    std::size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      std::size_t next = head.find("\r\n", pos);
      if (next == std::string::npos) next = head.size();
      std::string line = head.substr(pos, next - pos);
      std::size_t colon = line.find(':');
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      if (name == "content-length") content_length = std::stoul(value);
      request.headers.emplace(name, value);
      pos = next + 2;
    }
    while (buffer.size() < content_length) {
      if (!fill(fd, buffer)) return false;
    }
    request.body = buffer.substr(0, content_length);
    buffer.erase(0, content_length);
    return true;
  }

  static bool fill(int fd, std::string& buffer) {
    char chunk[65536];
    ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
    if (got <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(got));
    return true;
  }

  static void write_all(int fd, const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  }

  static std::string response(int status, const std::string& reason,
                              const std::string& extra_headers, const std::string& body) {
    return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n" + extra_headers +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  void serve(int fd) {
    std::string buffer;
    ReceivedRequest request;
    while (read_request(fd, buffer, request)) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        last_ = request;
      }
      if (request.path == "/hangup") break;
      if (request.path == "/drop-after") {
        write_all(fd, response(200, "OK", "", "bye"));
        break;
      }
      if (request.path == "/slow") {
        for (int i = 0; i < 15 && !stopping_; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        write_all(fd, response(200, "OK", "", "late"));
      } else if (request.path == "/status/503") {
        write_all(fd, response(503, "Service Unavailable", "", "try later"));
      } else {
        std::string body = request.method == "HEAD" ? "" : request.body;
        write_all(fd, response(200, "OK", "X-Reply:   padded value  \r\nContent-Type: text/plain\r\n",
                               body));
      }
    }
    ::close(fd);
  }

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<int> connections_;
  std::vector<std::thread> workers_;
  ReceivedRequest last_;
};

HttpClientOptions fast_options() {
  HttpClientOptions options;
  options.connect_timeout = std::chrono::milliseconds(1000);
  options.request_timeout = std::chrono::milliseconds(300);
  return options;
}

ErrorCode code_of(HttpClient& client, const HttpRequest& request) {
  try {
    client.send(request);
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "request to " << request.url << " did not fail";
  return ErrorCode::IoError;
}

TEST(CurlHttpClient, PostRoundTripsBodyHeadersAndStatus) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  HttpRequest request{"POST", server.url("/echo"),
                      {{"X-Amz-Target", "DynamoDB_20120810.GetItem"}, {"X-Empty", ""}},
                      std::string("{\"a\":1}\0tail", 12)};
  HttpResponse response = client->send(request);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, request.body);
  EXPECT_EQ(response.header("x-reply"), "padded value");
  EXPECT_EQ(response.header("CONTENT-TYPE"), "text/plain");
  for (const auto& [name, value] : response.headers) {
    for (char c : name) EXPECT_FALSE(std::isupper(static_cast<unsigned char>(c))) << name;
  }

  ReceivedRequest received = server.last_request();
  EXPECT_EQ(received.method, "POST");
  EXPECT_EQ(received.path, "/echo");
  auto target = received.headers.find("x-amz-target");
  ASSERT_NE(target, received.headers.end());
  EXPECT_EQ(target->second, "DynamoDB_20120810.GetItem");
  auto empty = received.headers.find("x-empty");
  ASSERT_NE(empty, received.headers.end());
  EXPECT_EQ(empty->second, "");
  // libcurl's default form content type would not match a signed request.
  EXPECT_EQ(received.headers.count("content-type"), 0u);
}

TEST(CurlHttpClient, LargePutIsSentWithoutExpectContinue) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  std::string body(2 << 20, 'x');
  for (std::size_t i = 0; i < body.size(); i += 4096) body[i] = static_cast<char>('a' + i % 26);
  HttpResponse response = client->send({"PUT", server.url("/echo"), {}, body});
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, body);
  ReceivedRequest received = server.last_request();
  EXPECT_EQ(received.method, "PUT");
  EXPECT_EQ(received.headers.count("expect"), 0u);
}

TEST(CurlHttpClient, MethodsWithoutBodies) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  EXPECT_EQ(client->send({"GET", server.url("/echo?x=1"), {}, ""}).status, 200);
  EXPECT_EQ(server.last_request().method, "GET");
  EXPECT_EQ(server.last_request().path, "/echo?x=1");

  HttpResponse head = client->send({"HEAD", server.url("/echo"), {}, ""});
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(server.last_request().method, "HEAD");

  EXPECT_EQ(client->send({"DELETE", server.url("/echo"), {}, ""}).status, 200);
  EXPECT_EQ(server.last_request().method, "DELETE");

  HttpResponse empty_put = client->send({"PUT", server.url("/echo"), {}, ""});
  EXPECT_EQ(empty_put.status, 200);
  ReceivedRequest put = server.last_request();
  auto length = put.headers.find("content-length");
  ASSERT_NE(length, put.headers.end());
  EXPECT_EQ(length->second, "0");
}

TEST(CurlHttpClient, ErrorStatusIsReturnedNotThrown) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  HttpResponse response = client->send({"GET", server.url("/status/503"), {}, ""});
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.body, "try later");
}

TEST(CurlHttpClient, SequentialRequestsReuseOneConnection) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(client->send({"POST", server.url("/echo"), {}, std::to_string(i)}).body,
              std::to_string(i));
  }
  EXPECT_EQ(server.accepted(), 1);
}

TEST(CurlHttpClient, ConnectionClosedWhileIdleIsReplaced) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  EXPECT_EQ(client->send({"GET", server.url("/drop-after"), {}, ""}).body, "bye");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(client->send({"POST", server.url("/echo"), {}, "again"}).body, "again");
  EXPECT_EQ(server.accepted(), 2);
}

TEST(CurlHttpClient, ConcurrentRequestsShareThePool) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  constexpr int kThreads = 4;
  constexpr int kRequests = 25;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRequests; ++i) {
        std::string body = std::to_string(t) + ":" + std::to_string(i);
        if (client->send({"POST", server.url("/echo"), {}, body}).body != body) ++mismatches;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches, 0);
  // At most one connection per handle, and no more handles than threads.
  EXPECT_LE(server.accepted(), kThreads);
}

TEST(CurlHttpClient, ConnectionRefusedIsNetworkError) {
  int port;
  {
    LoopbackServer closed;
    port = std::stoi(closed.url("").substr(std::string("http://127.0.0.1:").size()));
  }
  auto client = make_curl_http_client(fast_options());
  EXPECT_EQ(code_of(*client, {"GET", "http://127.0.0.1:" + std::to_string(port) + "/", {}, ""}),
            ErrorCode::NetworkError);
}

TEST(CurlHttpClient, UnresolvableHostIsNetworkError) {
  auto client = make_curl_http_client(fast_options());
  EXPECT_EQ(code_of(*client, {"GET", "http://stowage-test.invalid/", {}, ""}),
            ErrorCode::NetworkError);
}

TEST(CurlHttpClient, TimeoutIsUnknownOutcome) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(code_of(*client, {"POST", server.url("/slow"), {}, "x"}), ErrorCode::UnknownOutcome);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1400));
  // The handle is usable again after a failure.
  EXPECT_EQ(client->send({"GET", server.url("/echo"), {}, ""}).status, 200);
}

TEST(CurlHttpClient, HangupWithoutReplyIsUnknownOutcome) {
  LoopbackServer server;
  auto client = make_curl_http_client(fast_options());
  EXPECT_EQ(code_of(*client, {"POST", server.url("/hangup"), {}, "x"}),
            ErrorCode::UnknownOutcome);
}

TEST(CurlHttpClient, UnsupportedSchemeIsConfigurationError) {
  auto client = make_curl_http_client(fast_options());
  EXPECT_EQ(code_of(*client, {"GET", "gopherx://127.0.0.1/", {}, ""}),
            ErrorCode::ConfigurationError);
}

}  // namespace
}  // namespace stowage::aws
