// Credentials and the AWS credential chain.
//
// resolve_credentials() follows the AWS SDK order: environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), then the
// shared credentials file (AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials)
// for AWS_PROFILE (default "default"), then the config file
// (AWS_CONFIG_FILE or ~/.aws/config, section "profile NAME"). Throws
// Error(AccessDenied) naming every place it looked when none has keys.
// resolve_region(): AWS_REGION, AWS_DEFAULT_REGION, the profile's `region`
// in the config file, else "us-east-1".
// Thread-safe (reads the environment and files only).
#pragma once

#include <string>

namespace stowage::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty when not temporary credentials
};

Credentials resolve_credentials();
std::string resolve_region();

}  // namespace stowage::aws
