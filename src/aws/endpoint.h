// Endpoint resolution per the AWS conventions: AWS_ENDPOINT_URL_<SERVICE>
// (e.g. AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_S3), then
// AWS_ENDPOINT_URL, then the public endpoint https://<service>.<region>.amazonaws.com.
// An explicit endpoint given in configuration wins over all of them.
#pragma once

#include <string>
#include <string_view>

namespace stowage::aws {

// `service`: "dynamodb" or "s3". Returns a URL without a trailing '/'.
// Throws Error(ConfigurationError) for a URL that is not http(s)://host[:port].
std::string resolve_endpoint(std::string_view service, std::string_view region,
                             std::string_view configured = {});

}  // namespace stowage::aws
