#include "service/s3_service.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <limits>
#include <thread>
#include <utility>

#include "aws/endpoint.h"
#include "common/uri_encoding.h"
#include "service/s3_xml.h"
#include "stowage/error.h"

namespace stowage::service {

namespace {

constexpr std::size_t kMinPartSize = 5ull << 20;
constexpr int kMaxParts = 10000;
// Parts double in size after every this many (see the header).
constexpr int kPartsPerSize = 1000;
constexpr std::uint64_t kMaxSinglePut = 5ull << 30;
constexpr std::size_t kMaxKeyBytes = 1024;
constexpr int kMaxPageSize = 1000;
// How much of the source one read() asks for.
constexpr std::size_t kReadChunk = 1 << 20;
constexpr std::string_view kS3Namespace = "http://s3.amazonaws.com/doc/2006-03-01/";

std::size_t part_size_for(int part_number) {
  return kMinPartSize << ((part_number - 1) / kPartsPerSize);
}

// Decodes a key from a listing made with encoding-type=url, which spells a
// space '+' (as botocore decodes it).
std::string url_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] != '%') {
      out.push_back(text[i]);
    } else {
      const int high = i + 2 < text.size() ? hex_digit_value(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? hex_digit_value(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        throw Error::malformed_response("ListObjectsV2 returned a badly encoded key: " +
                                        std::string(text));
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    }
  }
  return out;
}

void check_key(std::string_view key) {
  if (key.empty() || key.size() > kMaxKeyBytes) {
    throw Error::invalid_key("an S3 key must be 1 to 1024 bytes; got " +
                             std::to_string(key.size()));
  }
  for (unsigned char c : key) {
    if (c < 0x20 || c == 0x7f) {
      throw Error::invalid_key("S3 key \"" + std::string(key) +
                               "\" contains a control character");
    }
  }
}

void check_bucket(std::string_view bucket) {
  auto fail = [&](std::string_view why) {
    return Error::configuration("S3 bucket name \"" + std::string(bucket) +
                                "\" is invalid: " + std::string(why));
  };
  if (bucket.size() < 3 || bucket.size() > 63) throw fail("it must be 3 to 63 characters");
  for (char c : bucket) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) {
      throw fail("only lowercase letters, digits, '.' and '-' are allowed");
    }
  }
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(bucket.front()) || !alnum(bucket.back())) {
    throw fail("it must start and end with a letter or digit");
  }
}

const S3ServiceOptions& validated(const S3ServiceOptions& options) {
  check_bucket(options.bucket);
  if (options.upload_threshold > kMaxSinglePut) {
    throw Error::configuration("S3 upload_threshold must be at most 5 GiB (S3's "
                               "single PUT limit); got " +
                               std::to_string(options.upload_threshold));
  }
  if (options.page_size < 1 || options.page_size > kMaxPageSize) {
    throw Error::configuration("S3 page_size must be 1 to 1000; got " +
                               std::to_string(options.page_size));
  }
  return options;
}

std::string quoted(std::string_view key) { return "\"" + std::string(key) + "\""; }

std::string body_start(std::string_view body) {
  constexpr std::size_t kShown = 200;
  if (body.empty()) return "an empty body";
  return body.size() <= kShown ? std::string(body)
                               : std::string(body.substr(0, kShown)) + "…";
}

// Appends from `source` to `buffer` until it holds `limit` bytes or the
// source ends, feeding `md5` on the way. True when the source ended.
bool read_up_to(ByteSource& source, std::string& buffer, std::size_t limit,
                Md5Stream& md5) {
  while (buffer.size() < limit) {
    const std::size_t start = buffer.size();
    buffer.resize(start + std::min(kReadChunk, limit - start));
    const std::size_t count = source.read(buffer.data() + start, buffer.size() - start);
    buffer.resize(start + count);
    if (count == 0) return true;
    md5.update(std::string_view(buffer).substr(start));
  }
  return false;
}

std::uint64_t parse_size(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw Error::malformed_response("ListObjectsV2 returned Size \"" + std::string(text) +
                                    "\"; expected a byte count");
  }
  return value;
}

// "2024-05-01T10:20:30.000Z" (ISO 8601 in UTC, as S3 writes LastModified).
std::chrono::system_clock::time_point parse_time(const std::string& text) {
  std::tm utc{};
  int consumed = 0;
  const bool fields =
      std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &utc.tm_year, &utc.tm_mon,
                  &utc.tm_mday, &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &consumed) == 6;
  std::string_view rest = std::string_view(text).substr(fields ? consumed : 0);
  std::chrono::microseconds fraction{0};
  if (fields && rest.starts_with('.')) {
    rest.remove_prefix(1);
    long scale = 100000;
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') {
      fraction += std::chrono::microseconds((rest.front() - '0') * scale);
      scale /= 10;
      rest.remove_prefix(1);
    }
  }
  if (!fields || rest != "Z") {
    throw Error::malformed_response("ListObjectsV2 returned LastModified \"" + text +
                                    "\"; expected YYYY-MM-DDTHH:MM:SS[.fff]Z");
  }
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(::timegm(&utc)) + fraction;
}

// Content-Disposition for a served file (RFC 6266): an ASCII fallback
// filename for old clients, and the exact one in RFC 5987 encoding.
std::string content_disposition(Disposition disposition, std::string_view filename) {
  std::string value(to_string(disposition));
  if (filename.empty()) return value;
  std::string fallback;
  for (unsigned char c : filename) {
    if (c >= 0x80 && c < 0xc0) continue;  // a UTF-8 continuation byte
    if (c == '"' || c == '\\') {
      fallback.push_back('\\');
      fallback.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      fallback.push_back('?');
    } else {
      fallback.push_back(static_cast<char>(c));
    }
  }
  return value + "; filename=\"" + fallback + "\"; filename*=UTF-8''" +
         uri_encode(filename, /*keep_slash=*/false);
}

std::string content_md5(std::string_view data) { return base64_encode(md5(data)); }

ErrorCode code_for(std::string_view s3_code, long status) {
  if (s3_code == "SlowDown" || s3_code == "Throttling" ||
      s3_code == "ThrottlingException" || s3_code == "RequestLimitExceeded" ||
      status == 429) {
    return ErrorCode::Throttled;
  }
  if (s3_code == "InternalError" || s3_code == "ServiceUnavailable" ||
      s3_code == "RequestTimeout" || status >= 500) {
    return ErrorCode::ServiceUnavailable;
  }
  if (s3_code == "NoSuchKey") return ErrorCode::RecordNotFound;
  if (s3_code == "NoSuchBucket") return ErrorCode::ConfigurationError;
  if (s3_code == "BadDigest" || s3_code == "InvalidDigest") return ErrorCode::IntegrityError;
  if (s3_code == "KeyTooLongError") return ErrorCode::InvalidKey;
  if (s3_code == "AccessDenied" || s3_code == "InvalidAccessKeyId" ||
      s3_code == "SignatureDoesNotMatch" || s3_code == "ExpiredToken" ||
      s3_code == "InvalidToken" || status == 403) {
    return ErrorCode::AccessDenied;
  }
  if (s3_code.empty() && status == 404) return ErrorCode::RecordNotFound;
  return ErrorCode::ValidationError;
}

}  // namespace

// One multipart upload in progress. Aborted on destruction unless
// complete() succeeded, so an exception anywhere leaves no parts behind.
class S3Service::MultipartUpload {
 public:
  MultipartUpload(S3Service& service, std::string_view key, const UploadOptions& options)
      : service_(service), key_(key), url_(service.object_url(key)) {
    aws::HttpRequest request{"POST", url_ + "?uploads", {}, {}};
    if (!options.content_type.empty()) {
      request.headers.emplace_back("Content-Type", options.content_type);
    }
    if (!options.content_disposition.empty()) {
      request.headers.emplace_back("Content-Disposition", options.content_disposition);
    }
    const std::string what = "CreateMultipartUpload of key " + quoted(key);
    // Not idempotent: a repeat would start a second upload.
    aws::HttpResponse response = service_.send(std::move(request), false, what);
    if (response.status != 200) throw service_.error_for(response, what);
    upload_id_ = parse_xml(response.body, what + " response").child_text("UploadId");
    if (upload_id_.empty()) {
      throw Error::malformed_response(what + " answered without an UploadId: " +
                                      body_start(response.body));
    }
  }

  ~MultipartUpload() {
    if (completed_) return;
    try {
      service_.send(
          aws::HttpRequest{"DELETE", url_ + "?uploadId=" + uri_encode(upload_id_, false),
                           {}, {}},
          true, "AbortMultipartUpload of key " + quoted(key_));
    } catch (const Error&) {
      // The upload's own error is the one the caller sees. A bucket
      // lifecycle rule for incomplete multipart uploads collects what an
      // abort could not remove.
    }
  }

  MultipartUpload(const MultipartUpload&) = delete;
  MultipartUpload& operator=(const MultipartUpload&) = delete;

  // REQUIRES: fewer than 10000 parts were uploaded.
  void upload_part(std::string_view body) {
    const int part_number = static_cast<int>(etags_.size()) + 1;
    aws::HttpRequest request{
        "PUT",
        url_ + "?partNumber=" + std::to_string(part_number) +
            "&uploadId=" + uri_encode(upload_id_, false),
        {{"Content-MD5", content_md5(body)}},
        std::string(body)};
    const std::string what =
        "UploadPart " + std::to_string(part_number) + " of key " + quoted(key_);
    aws::HttpResponse response = service_.send(std::move(request), true, what);
    if (response.status != 200) throw service_.error_for(response, what);
    std::string etag = response.header("ETag");
    if (etag.empty()) throw Error::malformed_response(what + " answered without an ETag");
    etags_.push_back(std::move(etag));
  }

  int part_count() const { return static_cast<int>(etags_.size()); }

  void complete() {
    std::string body = "<CompleteMultipartUpload xmlns=\"" + std::string(kS3Namespace) + "\">";
    for (std::size_t i = 0; i < etags_.size(); ++i) {
      body += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
              xml_escape(etags_[i]) + "</ETag></Part>";
    }
    body += "</CompleteMultipartUpload>";
    const std::string what = "CompleteMultipartUpload of key " + quoted(key_);
    // Not idempotent: once applied, a repeat fails with NoSuchUpload.
    aws::HttpResponse response = service_.send(
        aws::HttpRequest{"POST", url_ + "?uploadId=" + uri_encode(upload_id_, false),
                         {{"Content-Type", "application/xml"}},
                         std::move(body)},
        false, what);
    if (response.status != 200) throw service_.error_for(response, what);
    // S3 may report a failure in a 200 response, once it has started
    // sending it.
    if (parse_xml(response.body, what + " response").name == "Error") {
      throw service_.error_for(response, what);
    }
    completed_ = true;
  }

 private:
  S3Service& service_;
  const std::string key_;
  const std::string url_;
  std::string upload_id_;
  std::vector<std::string> etags_;
  bool completed_ = false;
};

S3Service::S3Service(S3ServiceOptions options)
    : options_(validated(options)),
      credentials_(options_.credentials ? *options_.credentials
                                        : aws::resolve_credentials()),
      scope_{options_.region.empty() ? aws::resolve_region() : options_.region, "s3"},
      endpoint_(aws::resolve_endpoint("s3", scope_.region, options_.endpoint)),
      client_(options_.http_client
                  ? options_.http_client
                  : aws::make_curl_http_client(
                        {std::chrono::seconds(3), std::chrono::minutes(5)})),
      retry_(options_.retry) {}

std::string S3Service::object_url(std::string_view key) const {
  const std::string path = "/" + uri_encode(key, /*keep_slash=*/true);
  if (options_.force_path_style) return endpoint_ + "/" + options_.bucket + path;
  const std::size_t authority = endpoint_.find("://") + 3;
  return endpoint_.substr(0, authority) + options_.bucket + "." +
         endpoint_.substr(authority) + path;
}

aws::HttpResponse S3Service::send(aws::HttpRequest request, bool idempotent,
                                  std::string_view what) {
  for (int attempt = 1;; ++attempt) {
    try {
      // Signing again replaces the previous signature and date; the payload
      // hash header from the first signing is kept and not recomputed.
      aws::sign_request(request, credentials_, scope_, std::chrono::system_clock::now(),
                        /*sign_payload_header=*/true);
      aws::HttpResponse response = client_->send(request);
      if (response.status < 400) return response;
      Error error = error_for(response, what);
      if (error.code() != ErrorCode::Throttled &&
          error.code() != ErrorCode::ServiceUnavailable) {
        return response;
      }
      throw error;
    } catch (const Error& error) {
      if (!retry_.should_retry(error, attempt, idempotent)) throw;
    }
    std::this_thread::sleep_for(retry_.backoff(attempt));
  }
}

Error S3Service::error_for(const aws::HttpResponse& response, std::string_view what) const {
  std::string s3_code;
  std::string message;
  if (!response.body.empty()) {
    try {
      XmlElement root = parse_xml(response.body, "S3 error response");
      if (root.name == "Error") {
        s3_code = root.child_text("Code");
        message = root.child_text("Message");
      }
    } catch (const Error&) {
      // Not S3's XML (e.g. a proxy's HTML page): decided by status below.
    }
  }
  const std::string status = "HTTP " + std::to_string(response.status);
  const ErrorCode code = code_for(s3_code, response.status);
  if (code == ErrorCode::ConfigurationError) {
    return Error::configuration("S3 bucket \"" + options_.bucket + "\" does not exist at " +
                                endpoint_ + " (" + std::string(what) + ")");
  }
  if (s3_code.empty() && response.status < 500 && code != ErrorCode::RecordNotFound &&
      code != ErrorCode::AccessDenied && code != ErrorCode::Throttled) {
    return Error::malformed_response(std::string(what) + ": S3 answered " + status +
                                     " with " + body_start(response.body));
  }
  std::string detail = s3_code.empty() ? status : status + " " + s3_code;
  if (!message.empty()) detail += ": " + message;
  return Error(code, std::string(what) + " failed: S3 answered " + detail);
}

UploadResult S3Service::upload(std::string_view key, ByteSource& source,
                               const UploadOptions& options) {
  check_key(key);
  Md5Stream md5;
  std::string buffered;
  // One byte past the threshold tells whether the source is longer.
  read_up_to(source, buffered, options_.upload_threshold + 1, md5);
  if (buffered.size() > options_.upload_threshold) {
    return upload_multipart(key, source, std::move(buffered), md5, options);
  }
  UploadResult result{buffered.size(), base64_encode(md5.finish())};
  if (!options.checksum.empty() && options.checksum != result.checksum) {
    throw Error(ErrorCode::IntegrityError,
                "checksum mismatch for key " + quoted(key) + ": expected " +
                    options.checksum + ", got " + result.checksum + "; nothing was stored");
  }
  put_object(key, std::move(buffered), options, result.checksum);
  return result;
}

void S3Service::put_object(std::string_view key, std::string body,
                           const UploadOptions& options, const std::string& content_md5) {
  aws::HttpRequest request{"PUT", object_url(key), {{"Content-MD5", content_md5}},
                           std::move(body)};
  if (!options.content_type.empty()) {
    request.headers.emplace_back("Content-Type", options.content_type);
  }
  if (!options.content_disposition.empty()) {
    request.headers.emplace_back("Content-Disposition", options.content_disposition);
  }
  const std::string what = "PutObject of key " + quoted(key);
  aws::HttpResponse response = send(std::move(request), true, what);
  if (response.status != 200) throw error_for(response, what);
}

UploadResult S3Service::upload_multipart(std::string_view key, ByteSource& source,
                                         std::string buffered, Md5Stream& md5,
                                         const UploadOptions& options) {
  MultipartUpload upload(*this, key, options);
  std::uint64_t byte_size = buffered.size();
  std::string pending = std::move(buffered);
  std::size_t offset = 0;  // bytes of `pending` already uploaded
  bool ended = false;
  for (;;) {
    const std::size_t part_size = part_size_for(upload.part_count() + 1);
    if (!ended && pending.size() - offset < part_size) {
      pending.erase(0, offset);
      offset = 0;
      // The threshold-sized buffer is not needed past its first parts.
      if (pending.capacity() > 2 * part_size) pending.shrink_to_fit();
      const std::size_t before = pending.size();
      ended = read_up_to(source, pending, part_size, md5);
      byte_size += pending.size() - before;
    }
    const std::size_t length = std::min(part_size, pending.size() - offset);
    if (length == 0) break;  // the source ended on a part boundary
    if (upload.part_count() == kMaxParts) {
      throw Error::validation("upload of key " + quoted(key) +
                              " exceeds S3's 10000 parts (over 5 TiB)");
    }
    upload.upload_part(std::string_view(pending).substr(offset, length));
    offset += length;
    if (ended && offset == pending.size()) break;
  }
  UploadResult result{byte_size, base64_encode(md5.finish())};
  if (!options.checksum.empty() && options.checksum != result.checksum) {
    throw Error(ErrorCode::IntegrityError,
                "checksum mismatch for key " + quoted(key) + ": expected " +
                    options.checksum + ", got " + result.checksum +
                    "; the multipart upload was aborted");
  }
  upload.complete();
  return result;
}

void S3Service::download(std::string_view key, ByteSink& sink) {
  check_key(key);
  const std::string what = "GetObject of key " + quoted(key);
  aws::HttpResponse response = send(aws::HttpRequest{"GET", object_url(key), {}, {}},
                                    true, what);
  if (response.status != 200) throw error_for(response, what);
  sink.write(response.body);
}

std::string S3Service::download_range(std::string_view key, std::uint64_t offset,
                                      std::uint64_t length) {
  check_key(key);
  if (length == 0) {
    if (!exists(key)) throw Error::not_found("no S3 object under key " + quoted(key));
    return {};
  }
  const std::uint64_t last = length - 1 > std::numeric_limits<std::uint64_t>::max() - offset
                                 ? std::numeric_limits<std::uint64_t>::max()
                                 : offset + length - 1;
  const std::string what = "GetObject of key " + quoted(key) + " bytes " +
                           std::to_string(offset) + "-" + std::to_string(last);
  aws::HttpResponse response = send(
      aws::HttpRequest{"GET", object_url(key),
                       {{"Range", "bytes=" + std::to_string(offset) + "-" +
                                      std::to_string(last)}},
                       {}},
      true, what);
  if (response.status == 206) return std::move(response.body);
  // S3 answers 416 for a range that starts at or past the end.
  if (response.status == 416) return {};
  throw error_for(response, what);
}

void S3Service::remove(std::string_view key) {
  check_key(key);
  const std::string what = "DeleteObject of key " + quoted(key);
  aws::HttpResponse response =
      send(aws::HttpRequest{"DELETE", object_url(key), {}, {}}, true, what);
  if (response.status != 204 && response.status != 200) throw error_for(response, what);
}

void S3Service::remove_prefixed(std::string_view prefix) {
  if (prefix.empty()) {
    throw Error::invalid_key("remove_prefixed needs a prefix; an empty one would empty "
                             "bucket \"" + options_.bucket + "\"");
  }
  std::vector<std::string> keys;
  for (ObjectInfo& object : list_objects(prefix)) keys.push_back(std::move(object.key));
  for (std::size_t start = 0; start < keys.size();
       start += static_cast<std::size_t>(options_.page_size)) {
    const auto first = keys.begin() + static_cast<std::ptrdiff_t>(start);
    const auto end = keys.begin() + static_cast<std::ptrdiff_t>(std::min(
                                        keys.size(), start + options_.page_size));
    delete_objects(std::vector<std::string>(first, end));
  }
}

void S3Service::delete_objects(const std::vector<std::string>& keys) {
  std::string body = "<Delete xmlns=\"" + std::string(kS3Namespace) + "\"><Quiet>true</Quiet>";
  for (const std::string& key : keys) {
    body += "<Object><Key>" + xml_escape(key) + "</Key></Object>";
  }
  body += "</Delete>";
  const std::string what = "DeleteObjects of " + std::to_string(keys.size()) + " keys";
  // S3 requires Content-MD5 on DeleteObjects.
  aws::HttpRequest request{"POST",
                           object_url("") + "?delete",
                           {{"Content-MD5", content_md5(body)},
                            {"Content-Type", "application/xml"}},
                           std::move(body)};
  aws::HttpResponse response = send(std::move(request), true, what);
  if (response.status != 200) throw error_for(response, what);
  // Quiet mode lists only the keys that could not be deleted.
  XmlElement result = parse_xml(response.body, what + " response");
  for (const XmlElement& element : result.children) {
    if (element.name != "Error") continue;
    const std::string s3_code = element.child_text("Code");
    throw Error(code_for(s3_code, 0),
                what + ": S3 could not delete key " + quoted(element.child_text("Key")) +
                    ": " + s3_code + " " + element.child_text("Message"));
  }
}

bool S3Service::exists(std::string_view key) {
  check_key(key);
  const std::string what = "HeadObject of key " + quoted(key);
  aws::HttpResponse response =
      send(aws::HttpRequest{"HEAD", object_url(key), {}, {}}, true, what);
  if (response.status == 200) return true;
  if (response.status == 404) return false;
  throw error_for(response, what);
}

std::vector<ObjectInfo> S3Service::list_objects(std::string_view prefix) {
  std::vector<ObjectInfo> objects;
  std::string token;
  do {
    std::vector<ObjectInfo> page = list_page(prefix, token);
    std::move(page.begin(), page.end(), std::back_inserter(objects));
  } while (!token.empty());
  return objects;
}

std::vector<ObjectInfo> S3Service::list_page(std::string_view prefix, std::string& token) {
  // encoding-type=url: keys arrive percent-encoded, so any key survives XML.
  std::string url = object_url("") + "?list-type=2&encoding-type=url&max-keys=" +
                    std::to_string(options_.page_size) +
                    "&prefix=" + uri_encode(prefix, false);
  if (!token.empty()) url += "&continuation-token=" + uri_encode(token, false);
  const std::string what = "ListObjectsV2 of prefix " + quoted(prefix);
  aws::HttpResponse response = send(aws::HttpRequest{"GET", url, {}, {}}, true, what);
  if (response.status != 200) throw error_for(response, what);
  XmlElement result = parse_xml(response.body, what + " response");
  if (result.name != "ListBucketResult") {
    throw Error::malformed_response(what + " answered " + body_start(response.body));
  }
  std::vector<ObjectInfo> page;
  for (const XmlElement& element : result.children) {
    if (element.name != "Contents") continue;
    page.push_back(ObjectInfo{url_decode(element.child_text("Key")),
                              parse_size(element.child_text("Size")),
                              parse_time(element.child_text("LastModified"))});
  }
  token.clear();
  if (result.child_text("IsTruncated") == "true") {
    token = result.child_text("NextContinuationToken");
    if (token.empty()) {
      throw Error::malformed_response(what + " is truncated but has no "
                                      "NextContinuationToken");
    }
  }
  return page;
}

std::string S3Service::url(std::string_view key, std::chrono::seconds expires_in,
                           std::string_view filename, std::string_view content_type,
                           Disposition disposition) {
  check_key(key);
  std::string url = object_url(key) + "?response-content-disposition=" +
                    uri_encode(content_disposition(disposition, filename), false);
  if (!content_type.empty()) {
    url += "&response-content-type=" + uri_encode(content_type, false);
  }
  return aws::presign_url("GET", url, credentials_, scope_,
                          std::chrono::system_clock::now(), expires_in);
}

PresignedUpload S3Service::presigned_put_url(std::string_view key,
                                             std::chrono::seconds expires_in,
                                             std::string_view content_type,
                                             std::string_view content_md5) {
  check_key(key);
  const std::optional<std::string> digest = base64_decode(content_md5);
  if (!digest || digest->size() != 16) {
    throw Error::validation("content_md5 \"" + std::string(content_md5) +
                            "\" is not a base64 MD5 digest");
  }
  PresignedUpload upload;
  upload.url = aws::presign_url("PUT", object_url(key), credentials_, scope_,
                                std::chrono::system_clock::now(), expires_in);
  if (!content_type.empty()) upload.headers.emplace_back("Content-Type", content_type);
  upload.headers.emplace_back("Content-MD5", content_md5);
  return upload;
}

}  // namespace stowage::service
