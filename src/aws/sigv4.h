// AWS Signature Version 4 (header signing and presigned URLs), on OpenSSL's
// SHA-256 and HMAC. Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <string>

#include "aws/credentials.h"
#include "aws/http_client.h"

namespace stowage::aws {

struct SigningScope {
  std::string region;
  std::string service;  // "dynamodb", "s3"
};

// Adds Host (if absent), X-Amz-Date, X-Amz-Security-Token (temporary
// credentials), X-Amz-Content-Sha256 when `sign_payload_header` (S3 wants it)
// and Authorization to `request`. `now` is injectable for test vectors.
void sign_request(HttpRequest& request, const Credentials& credentials,
                  const SigningScope& scope,
                  std::chrono::system_clock::time_point now,
                  bool sign_payload_header = false);

// A presigned URL (query-string auth, UNSIGNED-PAYLOAD) valid for `expires`
// (1 s .. 7 days).
std::string presign_url(const std::string& method, const std::string& url,
                        const Credentials& credentials, const SigningScope& scope,
                        std::chrono::system_clock::time_point now,
                        std::chrono::seconds expires);

}  // namespace stowage::aws
