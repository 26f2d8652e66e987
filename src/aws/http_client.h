// HttpClient: one HTTP request/response exchange, the seam under the
// DynamoDB engine and the S3 service (tests may substitute a recording one).
//
// Thread safety: implementations are safe for concurrent use.
// Errors: throws Error(NetworkError) when the request was certainly not sent
// (DNS, connect refused) and Error(UnknownOutcome) when it may have reached
// the server (timeout, connection reset after sending). HTTP error statuses
// are returned, not thrown.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stowage::aws {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string url;       // absolute: scheme://host[:port]/path?query
  Headers headers;
  std::string body;
};

struct HttpResponse {
  long status = 0;
  Headers headers;       // names lower-cased
  std::string body;

  // Value of the first header with that (case-insensitive) name, or "".
  std::string header(std::string_view name) const;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual HttpResponse send(const HttpRequest& request) = 0;
};

struct HttpClientOptions {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds request_timeout{10000};
};

// libcurl with pooled, reused connections (keep-alive).
std::shared_ptr<HttpClient> make_curl_http_client(HttpClientOptions options = {});

}  // namespace stowage::aws
