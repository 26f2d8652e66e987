#include "service/s3_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/digest.h"
#include "service/service_config.h"
#include "stowage/error.h"
#include "support/moto_server.h"

namespace stowage::service {
namespace {

using stowage::testing::MotoServer;

const aws::Credentials kTestCredentials{"testing", "testing", ""};
const aws::SigningScope kScope{"us-east-1", "s3"};

std::string random_bytes_of(std::size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::string data(size, '\0');
  for (char& c : data) c = static_cast<char>(generator());
  return data;
}

std::string md5_base64(std::string_view data) { return base64_encode(md5(data)); }

ErrorCode code_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.code();
  }
  ADD_FAILURE() << "expected an Error";
  return ErrorCode::IoError;
}

// Forwards to the real client, recording each request's method and URL;
// `intercept` may answer a request itself (to inject S3 failures).
class RecordingHttpClient final : public aws::HttpClient {
 public:
  using Intercept = std::function<std::optional<aws::HttpResponse>(const aws::HttpRequest&)>;

  aws::HttpResponse send(const aws::HttpRequest& request) override {
    Intercept intercept;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
      intercept = intercept_;
    }
    if (intercept) {
      if (std::optional<aws::HttpResponse> response = intercept(request)) return *response;
    }
    return real_->send(request);
  }

  void set_intercept(Intercept intercept) {
    std::lock_guard lock(mutex_);
    intercept_ = std::move(intercept);
  }

  // How many requests had `method` and a URL containing `fragment`.
  int count(std::string_view method, std::string_view fragment) const {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (const aws::HttpRequest& request : requests_) {
      if (request.method == method && request.url.find(fragment) != std::string::npos) ++n;
    }
    return n;
  }

  // How many requests carried a Content-MD5 header, after checking that
  // each one is the MD5 of its body.
  int checked_content_md5s() const {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (const aws::HttpRequest& request : requests_) {
      for (const auto& [name, value] : request.headers) {
        if (name != "Content-MD5") continue;
        EXPECT_EQ(value, base64_encode(md5(request.body))) << request.url;
        ++n;
      }
    }
    return n;
  }

 private:
  const std::shared_ptr<aws::HttpClient> real_ = aws::make_curl_http_client();
  mutable std::mutex mutex_;
  std::vector<aws::HttpRequest> requests_;
  Intercept intercept_;
};

aws::HttpResponse s3_error_response(long status, std::string_view code) {
  aws::HttpResponse response;
  response.status = status;
  response.body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" +
                  std::string(code) + "</Code><Message>injected</Message></Error>";
  return response;
}

class S3ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    endpoint_ = MotoServer::shared().endpoint();
    static std::atomic<int> counter{0};
    bucket_ = "stowage-test-" + std::to_string(counter++);
    aws::HttpResponse response = signed_request("PUT", endpoint_ + "/" + bucket_);
    ASSERT_EQ(response.status, 200) << response.body;
  }

  aws::HttpResponse signed_request(const std::string& method, const std::string& url,
                                   std::string body = {}) {
    aws::HttpRequest request{method, url, {}, std::move(body)};
    aws::sign_request(request, kTestCredentials, kScope, std::chrono::system_clock::now(),
                      true);
    return plain_->send(request);
  }

  // Multipart uploads started in the bucket and neither completed nor aborted.
  int pending_multipart_uploads() {
    aws::HttpResponse response = signed_request("GET", endpoint_ + "/" + bucket_ + "?uploads");
    EXPECT_EQ(response.status, 200) << response.body;
    int count = 0;
    for (std::size_t at = response.body.find("<Upload>"); at != std::string::npos;
         at = response.body.find("<Upload>", at + 1)) {
      ++count;
    }
    return count;
  }

  S3ServiceOptions options() {
    S3ServiceOptions options;
    options.bucket = bucket_;
    options.region = "us-east-1";
    options.endpoint = endpoint_;
    options.credentials = kTestCredentials;
    options.http_client = recorder_;
    options.retry.base_delay = std::chrono::milliseconds(0);
    options.retry.max_delay = std::chrono::milliseconds(1);
    return options;
  }

  static UploadResult upload(Service& service, std::string_view key, std::string_view data,
                             std::string checksum = {}) {
    StringSource source(data);
    UploadOptions options;
    options.checksum = std::move(checksum);
    return service.upload(key, source, options);
  }

  static std::string download_all(Service& service, std::string_view key) {
    StringSink sink;
    service.download(key, sink);
    return sink.data();
  }

  std::string endpoint_;
  std::string bucket_;
  const std::shared_ptr<aws::HttpClient> plain_ = aws::make_curl_http_client();
  const std::shared_ptr<RecordingHttpClient> recorder_ =
      std::make_shared<RecordingHttpClient>();
};

TEST_F(S3ServiceTest, RoundTripWithChecksumOfTheBytes) {
  S3Service service(options());
  const std::string data = random_bytes_of(300000, 1);
  UploadResult result = upload(service, "round/trip", data, md5_base64(data));
  EXPECT_EQ(result.byte_size, data.size());
  EXPECT_EQ(result.checksum, md5_base64(data));
  EXPECT_EQ(download_all(service, "round/trip"), data);
  EXPECT_EQ(recorder_->count("PUT", "/round/trip"), 1);
  EXPECT_EQ(recorder_->checked_content_md5s(), 1);
}

TEST_F(S3ServiceTest, EmptyObjectRoundTrips) {
  S3Service service(options());
  UploadResult result = upload(service, "empty", "");
  EXPECT_EQ(result.byte_size, 0u);
  EXPECT_EQ(result.checksum, md5_base64(""));
  EXPECT_EQ(download_all(service, "empty"), "");
  EXPECT_EQ(service.download_range("empty", 0, 10), "");
}

TEST_F(S3ServiceTest, ChecksumMismatchStoresNothing) {
  S3Service service(options());
  EXPECT_EQ(code_of([&] { upload(service, "bad", "some bytes", md5_base64("other")); }),
            ErrorCode::IntegrityError);
  EXPECT_FALSE(service.exists("bad"));
}

TEST_F(S3ServiceTest, MultipartAboveTheThreshold) {
  S3ServiceOptions config = options();
  config.upload_threshold = 5 << 20;
  S3Service service(config);
  const std::string data = random_bytes_of(12 << 20, 2);
  UploadResult result = upload(service, "big", data, md5_base64(data));
  EXPECT_EQ(result.byte_size, data.size());
  EXPECT_EQ(result.checksum, md5_base64(data));
  // 5 MiB, 5 MiB, 2 MiB.
  EXPECT_EQ(recorder_->count("PUT", "partNumber="), 3);
  EXPECT_EQ(recorder_->count("POST", "?uploads"), 1);
  EXPECT_EQ(download_all(service, "big"), data);
  EXPECT_EQ(pending_multipart_uploads(), 0);
  EXPECT_EQ(recorder_->checked_content_md5s(), 3);  // one per part
}

TEST_F(S3ServiceTest, AtTheThresholdIsOnePut) {
  S3ServiceOptions config = options();
  config.upload_threshold = 1 << 20;
  S3Service service(config);
  const std::string data = random_bytes_of(1 << 20, 3);
  EXPECT_EQ(upload(service, "exact", data).checksum, md5_base64(data));
  EXPECT_EQ(recorder_->count("POST", "?uploads"), 0);
  EXPECT_EQ(download_all(service, "exact"), data);
}

TEST_F(S3ServiceTest, MultipartChecksumMismatchAbortsTheUpload) {
  S3ServiceOptions config = options();
  config.upload_threshold = 1 << 20;
  S3Service service(config);
  const std::string data = random_bytes_of(6 << 20, 4);
  EXPECT_EQ(code_of([&] { upload(service, "big", data, md5_base64("other")); }),
            ErrorCode::IntegrityError);
  EXPECT_FALSE(service.exists("big"));
  EXPECT_EQ(pending_multipart_uploads(), 0);
  EXPECT_EQ(recorder_->count("DELETE", "uploadId="), 1);
}

TEST_F(S3ServiceTest, FailedPartAbortsTheUpload) {
  S3ServiceOptions config = options();
  config.upload_threshold = 1 << 20;
  config.retry.max_attempts = 3;
  S3Service service(config);
  recorder_->set_intercept([](const aws::HttpRequest& request) -> std::optional<aws::HttpResponse> {
    if (request.url.find("partNumber=2") != std::string::npos) {
      return s3_error_response(500, "InternalError");
    }
    return std::nullopt;
  });
  const std::string data = random_bytes_of(11 << 20, 5);
  EXPECT_EQ(code_of([&] { upload(service, "big", data); }), ErrorCode::ServiceUnavailable);
  EXPECT_EQ(recorder_->count("PUT", "partNumber=2"), 3);  // every attempt
  EXPECT_FALSE(service.exists("big"));
  EXPECT_EQ(pending_multipart_uploads(), 0);
}

TEST_F(S3ServiceTest, RetriesSlowDown) {
  S3Service service(options());
  std::atomic<int> refused{0};
  recorder_->set_intercept([&](const aws::HttpRequest& request) -> std::optional<aws::HttpResponse> {
    if (request.method == "PUT" && refused++ == 0) return s3_error_response(503, "SlowDown");
    return std::nullopt;
  });
  upload(service, "slow", "patience");
  EXPECT_EQ(recorder_->count("PUT", "/slow"), 2);
  EXPECT_EQ(download_all(service, "slow"), "patience");
}

TEST_F(S3ServiceTest, AccessDeniedIsNotRetried) {
  S3Service service(options());
  recorder_->set_intercept([](const aws::HttpRequest&) -> std::optional<aws::HttpResponse> {
    return s3_error_response(403, "SignatureDoesNotMatch");
  });
  EXPECT_EQ(code_of([&] { download_all(service, "any"); }), ErrorCode::AccessDenied);
  EXPECT_EQ(recorder_->count("GET", "/any"), 1);
}

TEST_F(S3ServiceTest, DownloadRange) {
  S3Service service(options());
  upload(service, "digits", "0123456789");
  EXPECT_EQ(service.download_range("digits", 2, 3), "234");
  EXPECT_EQ(service.download_range("digits", 0, 10), "0123456789");
  EXPECT_EQ(service.download_range("digits", 8, 10), "89");
  EXPECT_EQ(service.download_range("digits", 10, 5), "");
  EXPECT_EQ(service.download_range("digits", 100, 1), "");
  EXPECT_EQ(service.download_range("digits", 3, 0), "");
  EXPECT_EQ(code_of([&] { service.download_range("missing", 0, 4); }),
            ErrorCode::RecordNotFound);
  EXPECT_EQ(code_of([&] { service.download_range("missing", 0, 0); }),
            ErrorCode::RecordNotFound);
}

TEST_F(S3ServiceTest, ExistsAndRemove) {
  S3Service service(options());
  EXPECT_FALSE(service.exists("doomed"));
  upload(service, "doomed", "x");
  EXPECT_TRUE(service.exists("doomed"));
  service.remove("doomed");
  EXPECT_FALSE(service.exists("doomed"));
  service.remove("doomed");  // already gone: not an error
}

TEST_F(S3ServiceTest, ListObjectsByPrefixWithSizesAndTimes) {
  S3ServiceOptions config = options();
  config.page_size = 2;
  S3Service service(config);
  const auto before = std::chrono::system_clock::now() - std::chrono::minutes(1);
  upload(service, "p/b", "22");
  upload(service, "p/a", "1");
  upload(service, "p/with space+plus & ü", "333");
  upload(service, "q/other", "4444");
  std::vector<ObjectInfo> listed = service.list_objects("p/");
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].key, "p/a");
  EXPECT_EQ(listed[0].byte_size, 1u);
  EXPECT_EQ(listed[1].key, "p/b");
  EXPECT_EQ(listed[1].byte_size, 2u);
  EXPECT_EQ(listed[2].key, "p/with space+plus & ü");
  EXPECT_EQ(listed[2].byte_size, 3u);
  for (const ObjectInfo& object : listed) {
    EXPECT_GT(object.modified_at, before);
    EXPECT_LT(object.modified_at, std::chrono::system_clock::now() + std::chrono::minutes(1));
  }
  EXPECT_EQ(recorder_->count("GET", "list-type=2"), 2);  // two pages of two
  EXPECT_EQ(service.list_objects("").size(), 4u);
  EXPECT_TRUE(service.list_objects("nothing/").empty());
  EXPECT_EQ(download_all(service, "p/with space+plus & ü"), "333");
}

TEST_F(S3ServiceTest, RemovePrefixedPagesAndBatches) {
  S3ServiceOptions config = options();
  config.page_size = 2;
  S3Service service(config);
  for (int i = 0; i < 5; ++i) upload(service, "blob/variants/" + std::to_string(i), "v");
  upload(service, "blob/original", "o");
  upload(service, "blob/variants-not", "n");
  service.remove_prefixed("blob/variants/");
  std::vector<ObjectInfo> left = service.list_objects("");
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].key, "blob/original");
  EXPECT_EQ(left[1].key, "blob/variants-not");
  EXPECT_EQ(recorder_->count("POST", "?delete"), 3);  // 2 + 2 + 1 keys
  EXPECT_EQ(recorder_->checked_content_md5s(), 7 + 3);  // the uploads and the batches
  EXPECT_EQ(code_of([&] { service.remove_prefixed(""); }), ErrorCode::InvalidKey);
}

TEST_F(S3ServiceTest, PresignedGetServesTheBytes) {
  S3Service service(options());
  upload(service, "photo", "jpeg bytes");
  const std::string url = service.url("photo", S3Service::kDefaultUrlExpiry, "my photo.jpg",
                                      "image/jpeg", Disposition::Attachment);
  EXPECT_NE(url.find("X-Amz-Expires=300"), std::string::npos) << url;
  aws::HttpResponse response = plain_->send(aws::HttpRequest{"GET", url, {}, {}});
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.body, "jpeg bytes");
  EXPECT_EQ(response.header("content-type"), "image/jpeg");
  EXPECT_EQ(response.header("content-disposition"),
            "attachment; filename=\"my photo.jpg\"; filename*=UTF-8''my%20photo.jpg");
}

TEST_F(S3ServiceTest, PresignedPutAcceptsAnUpload) {
  S3Service service(options());
  const std::string data = "uploaded directly";
  PresignedUpload direct = service.presigned_put_url("direct", std::chrono::seconds(60),
                                                     "text/plain", md5_base64(data));
  aws::HttpResponse response =
      plain_->send(aws::HttpRequest{"PUT", direct.url, direct.headers, data});
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(download_all(service, "direct"), data);
  EXPECT_EQ(code_of([&] {
              service.presigned_put_url("direct", std::chrono::seconds(60), "", "not md5");
            }),
            ErrorCode::ValidationError);
}

TEST_F(S3ServiceTest, MissingObjectIsRecordNotFound) {
  S3Service service(options());
  EXPECT_EQ(code_of([&] { download_all(service, "absent"); }), ErrorCode::RecordNotFound);
}

TEST_F(S3ServiceTest, MissingBucketIsNamed) {
  S3ServiceOptions config = options();
  config.bucket = "no-such-bucket-here";
  S3Service service(config);
  try {
    download_all(service, "anything");
    ADD_FAILURE() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::ConfigurationError);
    EXPECT_NE(error.message().find("no-such-bucket-here"), std::string::npos)
        << error.message();
  }
  EXPECT_EQ(code_of([&] { upload(service, "anything", "x"); }),
            ErrorCode::ConfigurationError);
}

TEST_F(S3ServiceTest, RejectsKeysS3CannotHold) {
  S3Service service(options());
  EXPECT_EQ(code_of([&] { upload(service, "", "x"); }), ErrorCode::InvalidKey);
  EXPECT_EQ(code_of([&] { upload(service, std::string(1025, 'k'), "x"); }),
            ErrorCode::InvalidKey);
  EXPECT_EQ(code_of([&] { service.exists("line\nbreak"); }), ErrorCode::InvalidKey);
}

TEST_F(S3ServiceTest, ConfiguredFromToml) {
  std::shared_ptr<Service> service = configure_service(
      "cloud", "[services.cloud]\nservice = \"S3\"\nbucket = \"" + bucket_ +
                   "\"\nregion = \"us-east-1\"\nendpoint = \"" + endpoint_ +
                   "\"\nupload_threshold = 6000000\n");
  upload(*service, "configured", "bytes");
  EXPECT_EQ(download_all(*service, "configured"), "bytes");
  EXPECT_EQ(code_of([&] {
              configure_service("cloud",
                                "[services.cloud]\nservice = \"S3\"\nbucket = \"b-1\"\n"
                                "upload_threshold = \"big\"\n");
            }),
            ErrorCode::ConfigurationError);
}

TEST(S3ServiceUrlTest, VirtualHostedStyle) {
  S3ServiceOptions options;
  options.bucket = "my-bucket";
  options.region = "us-west-2";
  options.endpoint = "https://s3.us-west-2.amazonaws.com";
  options.force_path_style = false;
  options.credentials = kTestCredentials;
  S3Service service(options);
  const std::string url = service.url("a/b c", std::chrono::seconds(60), "b c.txt",
                                      "text/plain", Disposition::Inline);
  EXPECT_TRUE(url.starts_with("https://my-bucket.s3.us-west-2.amazonaws.com/a/b%20c?"))
      << url;
  EXPECT_NE(url.find("response-content-type=text%2Fplain"), std::string::npos) << url;
  EXPECT_NE(url.find("us-west-2%2Fs3%2Faws4_request"), std::string::npos) << url;
}

TEST(S3ServiceUrlTest, RejectsBadOptions) {
  S3ServiceOptions options;
  options.region = "us-east-1";
  options.endpoint = "http://127.0.0.1:1";
  options.credentials = kTestCredentials;
  options.bucket = "Bad_Bucket";
  EXPECT_EQ(code_of([&] { S3Service service(options); }), ErrorCode::ConfigurationError);
  options.bucket = "good-bucket";
  options.upload_threshold = (5ull << 30) + 1;
  EXPECT_EQ(code_of([&] { S3Service service(options); }), ErrorCode::ConfigurationError);
  options.upload_threshold = 1 << 20;
  options.page_size = 1001;
  EXPECT_EQ(code_of([&] { S3Service service(options); }), ErrorCode::ConfigurationError);
}

}  // namespace
}  // namespace stowage::service
