// libcurl implementation of HttpClient.
//
// Each CURL easy handle keeps its own cache of open connections, so the
// client keeps a pool of handles: a request takes one from the free list
// (or creates one), and gives it back afterwards, connections still open.
// Sequential requests to the same host thus reuse one TCP/TLS connection,
// and concurrent requests each get their own handle.
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "aws/http_client.h"
#include "stowage/error.h"

namespace stowage::aws {

namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw Error(ErrorCode::IoError, "libcurl global initialisation failed");
    }
  });
}

std::string trim(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* headers = static_cast<Headers*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    // A new status line (after an interim 1xx response): start over.
    headers->clear();
    return size * count;
  }
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;  // blank line
  std::string name = trim(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  headers->emplace_back(std::move(name), trim(line.substr(colon + 1)));
  return size * count;
}

struct SlistFree {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

bool has_header(const Headers& headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(), [&](const auto& entry) {
    if (entry.first.size() != name.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(entry.first[i])) !=
          std::tolower(static_cast<unsigned char>(name[i]))) {
        return false;
      }
    }
    return true;
  });
}

[[noreturn]] void throw_transfer_error(CURLcode code, const HttpRequest& request,
                                       const char* detail) {
  std::string what = request.method + " " + request.url + ": " +
                     curl_easy_strerror(code) + (detail[0] ? std::string(" (") + detail + ")" : "");
  switch (code) {
    // Nothing reached the server: safe to send again.
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
      throw Error(ErrorCode::NetworkError, what + "; the request was not sent");
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      throw Error::configuration(what + "; check the endpoint URL");
    case CURLE_PEER_FAILED_VERIFICATION:
      throw Error::configuration(what + "; the server's TLS certificate was not trusted");
    default:
      // Timeouts, resets, empty replies: the server may have acted on it.
      throw Error(ErrorCode::UnknownOutcome,
                  what + "; the request may or may not have been applied");
  }
}

class CurlHttpClient final : public HttpClient {
 public:
  explicit CurlHttpClient(HttpClientOptions options) : options_(options) {
    global_init_once();
  }

  ~CurlHttpClient() override {
    for (CURL* handle : free_) curl_easy_cleanup(handle);
  }

  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  HttpResponse send(const HttpRequest& request) override {
    Lease lease(*this);
    CURL* curl = lease.handle;
    // Reset clears the previous request's options but keeps the handle's
    // open connections and DNS cache.
    curl_easy_reset(curl);

    HttpResponse response;
    char error_buffer[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);  // send the path that was signed
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);    // no SIGALRM in a threaded program
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(options_.request_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);

    if (request.method == "GET") {
      curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    } else if (request.method == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (request.method == "DELETE" && request.body.empty()) {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "DELETE");
    } else {
      // POST, PUT and the rest carry the body verbatim with a Content-Length
      // (S3 rejects a PUT without one, even when empty).
      curl_easy_setopt(curl, CURLOPT_POST, 1L);
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
      if (request.method != "POST") {
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      }
    }

    std::unique_ptr<curl_slist, SlistFree> header_list;
    auto append = [&](const std::string& line) {
      curl_slist* next = curl_slist_append(header_list.get(), line.c_str());
      if (next == nullptr) throw Error(ErrorCode::IoError, "out of memory building HTTP headers");
      header_list.release();
      header_list.reset(next);
    };
    for (const auto& [name, value] : request.headers) {
      // "Name;" is libcurl's spelling of a header with an empty value;
      // "Name:" would remove the header instead.
      append(value.empty() ? name + ";" : name + ": " + value);
    }
    // No "Expect: 100-continue" round trip, and no form content type that
    // the caller did not ask for (it would not match a signed request).
    append("Expect:");
    if (!has_header(request.headers, "Content-Type")) append("Content-Type:");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, header_list.get());

    CURLcode code = curl_easy_perform(curl);
    // The header list and error buffer die with this frame; detach them.
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
    if (code != CURLE_OK) throw_transfer_error(code, request, error_buffer);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
    return response;
  }

 private:
  // One handle taken from the pool for the duration of a request.
  struct Lease {
    explicit Lease(CurlHttpClient& client) : client(client) {
      {
        std::lock_guard<std::mutex> lock(client.mutex_);
        if (!client.free_.empty()) {
          handle = client.free_.back();
          client.free_.pop_back();
        }
      }
      if (handle == nullptr) handle = curl_easy_init();
      if (handle == nullptr) throw Error(ErrorCode::IoError, "curl_easy_init failed");
    }
    ~Lease() {
      std::lock_guard<std::mutex> lock(client.mutex_);
      client.free_.push_back(handle);
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    CurlHttpClient& client;
    CURL* handle = nullptr;
  };

  const HttpClientOptions options_;
  std::mutex mutex_;
  std::vector<CURL*> free_;  // idle handles with their open connections
};

}  // namespace

std::shared_ptr<HttpClient> make_curl_http_client(HttpClientOptions options) {
  return std::make_shared<CurlHttpClient>(options);
}

}  // namespace stowage::aws
