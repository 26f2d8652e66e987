#include "aws/sigv4.h"

#include <curl/curl.h>

#include <algorithm>
#include <ctime>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "common/digest.h"
#include "common/uri_encoding.h"
#include "stowage/error.h"

namespace stowage::aws {

namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
constexpr auto kMaxPresignExpiry = std::chrono::seconds(7 * 24 * 3600);

// The parts of an absolute URL that signing needs, split by libcurl's URL
// parser so that what is signed is exactly what libcurl sends.
struct ParsedUrl {
  std::string scheme;
  std::string authority;  // host[:port], the Host header's value
  std::string path;       // as written in the URL (still percent-encoded)
  std::string query;      // without '?'; empty when absent
};

std::string url_part(CURLU* handle, CURLUPart part, const std::string& url) {
  char* value = nullptr;
  CURLUcode rc = curl_url_get(handle, part, &value, 0);
  if (rc == CURLUE_OK) {
    std::string out(value);
    curl_free(value);
    return out;
  }
  if (rc == CURLUE_NO_PORT || rc == CURLUE_NO_QUERY) return {};
  throw Error::validation("cannot sign request: malformed URL '" + url + "'");
}

ParsedUrl parse_url(const std::string& url) {
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> handle(curl_url(),
                                                             &curl_url_cleanup);
  if (!handle) throw Error(ErrorCode::IoError, "out of memory parsing a URL");
  // PATH_AS_IS: keep "." and ".." segments, which are legal in S3 keys; the
  // HTTP client sends the path as is too.
  if (curl_url_set(handle.get(), CURLUPART_URL, url.c_str(),
                   CURLU_PATH_AS_IS | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
    throw Error::validation("cannot sign request: malformed URL '" + url +
                            "' (expected scheme://host[:port]/path?query)");
  }
  ParsedUrl parsed;
  parsed.scheme = url_part(handle.get(), CURLUPART_SCHEME, url);
  parsed.authority = url_part(handle.get(), CURLUPART_HOST, url);
  std::string port = url_part(handle.get(), CURLUPART_PORT, url);
  if (!port.empty()) parsed.authority += ":" + port;
  parsed.path = url_part(handle.get(), CURLUPART_PATH, url);
  if (parsed.path.empty()) parsed.path = "/";
  parsed.query = url_part(handle.get(), CURLUPART_QUERY, url);
  return parsed;
}

std::string percent_decode(std::string_view text, const std::string& url) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    int high = i + 2 < text.size() ? hex_digit_value(text[i + 1]) : -1;
    int low = i + 2 < text.size() ? hex_digit_value(text[i + 2]) : -1;
    if (high < 0 || low < 0) {
      throw Error::validation("cannot sign request: bad percent-escape in URL '" +
                              url + "'");
    }
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

// The path decoded and re-encoded once. S3 requires exactly one encoding; for
// other services AWS documents a second pass, which changes nothing for the
// paths they use ("/" for DynamoDB).
std::string canonical_uri(const ParsedUrl& parsed, const std::string& url) {
  return uri_encode(percent_decode(parsed.path, url), /*keep_slash=*/true);
}

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// Query parameters decoded then re-encoded, so any valid spelling of the
// same query signs the same way.
QueryParams encoded_query_params(std::string_view query, const std::string& url) {
  QueryParams params;
  while (!query.empty()) {
    std::size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    std::size_t eq = pair.find('=');
    std::string_view name = pair.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    params.emplace_back(uri_encode(percent_decode(name, url), false),
                        uri_encode(percent_decode(value, url), false));
  }
  return params;
}

std::string canonical_query(QueryParams params) {
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out.push_back('&');
    out += name;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && lower(a) == lower(b);
}

// Trimmed, with each run of inner whitespace collapsed to one space.
std::string canonical_header_value(std::string_view value) {
  std::string out;
  bool pending_space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

struct CanonicalHeaders {
  std::string block;   // "name:value\n" lines
  std::string signed_names;  // "a;b;c"
};

CanonicalHeaders canonical_headers(const Headers& headers) {
  // Same-named headers join their values with ',' in request order.
  std::vector<std::pair<std::string, std::string>> merged;
  for (const auto& [name, value] : headers) {
    std::string key = lower(name);
    std::string canonical = canonical_header_value(value);
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const auto& entry) { return entry.first == key; });
    if (it == merged.end()) {
      merged.emplace_back(std::move(key), std::move(canonical));
    } else {
      it->second += "," + canonical;
    }
  }
  std::stable_sort(merged.begin(), merged.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  CanonicalHeaders out;
  for (const auto& [name, value] : merged) {
    out.block += name + ":" + value + "\n";
    if (!out.signed_names.empty()) out.signed_names.push_back(';');
    out.signed_names += name;
  }
  return out;
}

struct Timestamps {
  std::string date_time;  // 20150830T123600Z
  std::string date;       // 20150830
};

Timestamps timestamps(std::chrono::system_clock::time_point now) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%dT%H%M%SZ", &utc);
  Timestamps out;
  out.date_time = buffer;
  out.date = out.date_time.substr(0, 8);
  return out;
}

std::string credential_scope(const Timestamps& time, const SigningScope& scope) {
  return time.date + "/" + scope.region + "/" + scope.service + "/aws4_request";
}

std::string signature(const Credentials& credentials, const SigningScope& scope,
                      const Timestamps& time, const std::string& canonical_request) {
  std::string string_to_sign = std::string(kAlgorithm) + "\n" + time.date_time +
                               "\n" + credential_scope(time, scope) + "\n" +
                               to_hex(sha256(canonical_request));
  std::string key = hmac_sha256("AWS4" + credentials.secret_access_key, time.date);
  key = hmac_sha256(key, scope.region);
  key = hmac_sha256(key, scope.service);
  key = hmac_sha256(key, "aws4_request");
  return to_hex(hmac_sha256(key, string_to_sign));
}

const std::string* find_header(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return &value;
  }
  return nullptr;
}

void erase_header(Headers& headers, std::string_view name) {
  std::erase_if(headers, [&](const auto& entry) { return iequals(entry.first, name); });
}

}  // namespace

void sign_request(HttpRequest& request, const Credentials& credentials,
                  const SigningScope& scope,
                  std::chrono::system_clock::time_point now,
                  bool sign_payload_header) {
  ParsedUrl parsed = parse_url(request.url);
  Timestamps time = timestamps(now);

  // Signing again (a retry) replaces the previous signature and date rather
  // than adding a second set.
  erase_header(request.headers, "Authorization");
  erase_header(request.headers, "X-Amz-Date");
  erase_header(request.headers, "X-Amz-Security-Token");
  if (find_header(request.headers, "Host") == nullptr) {
    request.headers.emplace_back("Host", parsed.authority);
  }
  request.headers.emplace_back("X-Amz-Date", time.date_time);
  if (!credentials.session_token.empty()) {
    request.headers.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  // A caller-set X-Amz-Content-Sha256 (e.g. UNSIGNED-PAYLOAD for a streamed
  // S3 upload) is the payload hash S3 checks, so it is the one signed.
  std::string payload_hash;
  if (const std::string* given = find_header(request.headers, "X-Amz-Content-Sha256")) {
    payload_hash = *given;
  } else {
    payload_hash = to_hex(sha256(request.body));
    if (sign_payload_header) {
      request.headers.emplace_back("X-Amz-Content-Sha256", payload_hash);
    }
  }

  CanonicalHeaders headers = canonical_headers(request.headers);
  std::string canonical_request =
      request.method + "\n" + canonical_uri(parsed, request.url) + "\n" +
      canonical_query(encoded_query_params(parsed.query, request.url)) + "\n" +
      headers.block + "\n" + headers.signed_names + "\n" + payload_hash;

  request.headers.emplace_back(
      "Authorization",
      std::string(kAlgorithm) + " Credential=" + credentials.access_key_id + "/" +
          credential_scope(time, scope) + ", SignedHeaders=" + headers.signed_names +
          ", Signature=" + signature(credentials, scope, time, canonical_request));
}

std::string presign_url(const std::string& method, const std::string& url,
                        const Credentials& credentials, const SigningScope& scope,
                        std::chrono::system_clock::time_point now,
                        std::chrono::seconds expires) {
  if (expires < std::chrono::seconds(1) || expires > kMaxPresignExpiry) {
    throw Error::validation("a presigned URL must expire in 1 s to 7 days (604800 s); got " +
                            std::to_string(expires.count()) + " s");
  }
  ParsedUrl parsed = parse_url(url);
  Timestamps time = timestamps(now);

  QueryParams params = encoded_query_params(parsed.query, url);
  auto add = [&](std::string_view name, std::string_view value) {
    params.emplace_back(uri_encode(name, false), uri_encode(value, false));
  };
  add("X-Amz-Algorithm", kAlgorithm);
  add("X-Amz-Credential",
      credentials.access_key_id + "/" + credential_scope(time, scope));
  add("X-Amz-Date", time.date_time);
  add("X-Amz-Expires", std::to_string(expires.count()));
  if (!credentials.session_token.empty()) {
    add("X-Amz-Security-Token", credentials.session_token);
  }
  add("X-Amz-SignedHeaders", "host");
  std::string query = canonical_query(std::move(params));
  std::string path = canonical_uri(parsed, url);

  std::string canonical_request = method + "\n" + path + "\n" + query + "\n" +
                                  "host:" + parsed.authority + "\n\nhost\n" +
                                  std::string(kUnsignedPayload);
  return parsed.scheme + "://" + parsed.authority + path + "?" + query +
         "&X-Amz-Signature=" + signature(credentials, scope, time, canonical_request);
}

}  // namespace stowage::aws
