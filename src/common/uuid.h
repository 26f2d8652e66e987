// Random (version 4) UUIDs for blob, attachment and request identifiers.
// Thread-safe.
#pragma once

#include <string>

namespace stowage {

// Lowercase canonical form, e.g. "3f2c1a9e-7b4d-4e1f-9a2b-0c5d6e7f8a9b".
std::string uuid_v4();

}  // namespace stowage
