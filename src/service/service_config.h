// configure_service(): builds a Service from the [services.NAME] tables of a
// TOML configuration, as Active Storage's storage.yml does:
//
//   [services.local]
//   service = "Disk"
//   root = "/var/lib/stowage/blobs"   # relative paths: to the working directory
//   url_secret = "…"                  # optional; needed for url()
//
//   [services.backup]
//   service = "Mirror"
//   primary = "local"
//   mirrors = ["offsite"]
//
// Thread-safe: a pure function of its arguments.
#pragma once

#include <memory>
#include <string_view>

#include "service/service.h"

namespace stowage::service {

// Throws Error(ConfigurationError) naming the table and setting at fault for
// TOML that does not parse, an unknown service name or kind, a missing or
// mistyped setting, or mirrors that refer to themselves.
std::shared_ptr<Service> configure_service(std::string_view name,
                                           std::string_view toml_text);

}  // namespace stowage::service
