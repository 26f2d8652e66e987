// S3Service: blobs as objects in one bucket of Amazon S3 or an
// S3-compatible store (Active Storage's S3Service), over the REST API with
// SigV4.
//
// Uploads of up to `upload_threshold` bytes are one PutObject carrying
// Content-MD5, so S3 itself rejects bytes damaged on the way. Longer
// uploads are multipart: the size is not known while streaming, so parts
// are 5 MiB (S3's minimum) for the first 1000 parts and double in size
// every 1000 parts after that, which equals max(ceil(size / 10000), 5 MiB)
// for objects up to 48 GiB and still fits S3's 5 TiB limit in its 10000
// parts. Each part carries its own Content-MD5; a failed multipart upload
// is aborted, so no parts are left behind.
//
// Idempotent requests (reads, PutObject, UploadPart, deletes) are retried
// per aws::RetryPolicy on throttling (SlowDown), 5xx and network errors,
// including timeouts whose outcome is unknown; the others are retried only
// when the request certainly was not applied.
//
// Memory: an upload buffers up to `upload_threshold` bytes (the MD5 must be
// known before a single PUT is sent), then one part at a time. download()
// holds the whole object while it arrives, because aws::HttpClient returns
// a body as one string.
//
// Thread-safe: one instance serves concurrent callers (if its HttpClient is
// thread-safe, as the default libcurl client is).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/credentials.h"
#include "aws/http_client.h"
#include "aws/retry_policy.h"
#include "aws/sigv4.h"
#include "common/digest.h"
#include "service/service.h"
#include "stowage/error.h"

namespace stowage::service {

struct S3ServiceOptions {
  std::string bucket;
  // Empty: aws::resolve_region().
  std::string region;
  // Empty: aws::resolve_endpoint("s3", region) (AWS_ENDPOINT_URL_S3, …).
  std::string endpoint;
  // true: endpoint/bucket/key (moto, MinIO and most S3-compatible stores);
  // false: bucket.host/key (Amazon S3's virtual-hosted style).
  bool force_path_style = true;
  // Empty: aws::resolve_credentials() once, at construction.
  std::optional<aws::Credentials> credentials;
  // Larger uploads go multipart. At most 5 GiB, S3's single PUT limit.
  std::uint64_t upload_threshold = 100ull << 20;
  // Keys per ListObjectsV2 page and per DeleteObjects request; S3 allows at
  // most 1000 for both.
  int page_size = 1000;
  // Null: aws::make_curl_http_client() with a request timeout long enough
  // for a 100 MiB body.
  std::shared_ptr<aws::HttpClient> http_client;
  aws::RetryOptions retry;
};

// What a client needs to upload an object straight to S3 (Active Storage's
// url_for_direct_upload and headers_for_direct_upload).
struct PresignedUpload {
  std::string url;
  // Send with the PUT: Content-Type and Content-MD5 as given. S3 rejects a
  // body whose MD5 differs from Content-MD5. They are not part of the
  // signature (aws::presign_url signs the host only), so the blob's
  // checksum is still to be checked when the upload is attached.
  aws::Headers headers;
};

class S3Service final : public Service {
 public:
  // Throws Error(ConfigurationError) for a bucket name S3 would reject, an
  // invalid endpoint or region, a threshold above 5 GiB or a page size
  // outside 1..1000; Error(AccessDenied) when no credentials are found.
  explicit S3Service(S3ServiceOptions options);

  // Keys must be 1 to 1024 bytes without control characters (which S3's
  // XML listings cannot carry); others throw Error(InvalidKey).
  // A bucket that does not exist throws Error(ConfigurationError) naming it
  // (except from exists(): S3 answers HEAD with a bare 404 either way);
  // rejected credentials Error(AccessDenied).
  UploadResult upload(std::string_view key, ByteSource& source,
                      const UploadOptions& options) override;
  void download(std::string_view key, ByteSink& sink) override;
  std::string download_range(std::string_view key, std::uint64_t offset,
                             std::uint64_t length) override;
  void remove(std::string_view key) override;
  // Lists the prefix page by page, then deletes in DeleteObjects batches.
  // Throws Error(InvalidKey) for an empty prefix rather than empty the
  // bucket.
  void remove_prefixed(std::string_view prefix) override;
  bool exists(std::string_view key) override;
  std::vector<ObjectInfo> list_objects(std::string_view prefix) override;

  // A presigned GetObject URL whose response carries Content-Type and
  // Content-Disposition (`<disposition>; filename="…"; filename*=UTF-8''…`).
  // Active Storage's default expiry is 5 minutes. S3 allows 1 s to 7 days;
  // anything else throws Error(ValidationError).
  std::string url(std::string_view key, std::chrono::seconds expires_in,
                  std::string_view filename, std::string_view content_type,
                  Disposition disposition) override;

  // A presigned PutObject URL for a direct upload of `key`, valid for
  // `expires_in`. `content_md5` is the base64 MD5 the upload must have;
  // `content_type` may be empty.
  PresignedUpload presigned_put_url(std::string_view key,
                                    std::chrono::seconds expires_in,
                                    std::string_view content_type,
                                    std::string_view content_md5);

  static constexpr std::chrono::seconds kDefaultUrlExpiry{300};

 private:
  class MultipartUpload;

  // The object's URL (key percent-encoded), or the bucket's for an empty key.
  std::string object_url(std::string_view key) const;
  // Signs and sends `request` (described by `what` in errors), retrying
  // retryable failures. Returns any response that is not retryable, error
  // statuses included.
  aws::HttpResponse send(aws::HttpRequest request, bool idempotent,
                         std::string_view what);
  // The Error for a failed response to the request described by `what`
  // (e.g. "GetObject of key \"a\"").
  Error error_for(const aws::HttpResponse& response, std::string_view what) const;

  void put_object(std::string_view key, std::string body,
                  const UploadOptions& options, const std::string& content_md5);
  UploadResult upload_multipart(std::string_view key, ByteSource& source,
                                std::string buffered, Md5Stream& md5,
                                const UploadOptions& options);
  // One page of ListObjectsV2; sets `token` to the next page's, or "".
  std::vector<ObjectInfo> list_page(std::string_view prefix, std::string& token);
  void delete_objects(const std::vector<std::string>& keys);

  const S3ServiceOptions options_;
  const aws::Credentials credentials_;
  const aws::SigningScope scope_;
  const std::string endpoint_;
  const std::shared_ptr<aws::HttpClient> client_;
  const aws::RetryPolicy retry_;
};

}  // namespace stowage::service
