// Percent-encoding of URL parts as AWS spells it (SigV4's URI encoding), for
// the URLs the signer, the S3 service and the disk service build. Pure
// functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace stowage {

// Everything but the RFC 3986 unreserved characters becomes %XX with
// uppercase hex; '/' is kept when `keep_slash` (inside paths).
std::string uri_encode(std::string_view text, bool keep_slash);

// The value of one hex digit (either case), or -1 for any other character.
int hex_digit_value(char c);

}  // namespace stowage
