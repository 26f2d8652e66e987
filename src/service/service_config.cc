#include "service/service_config.h"

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "service/disk_service.h"
#include "service/mirror_service.h"
#include "service/s3_service.h"
#include "stowage/error.h"

namespace stowage::service {

namespace {

class Configurator {
 public:
  explicit Configurator(const toml::table& document) : document_(document) {}

  std::shared_ptr<Service> build(const std::string& name) {
    const std::string where = "[services." + name + "]";
    const toml::table* table = document_["services"][name].as_table();
    if (!table) {
      throw Error::configuration("no " + where + " table is configured");
    }
    if (!building_.insert(name).second) {
      throw Error::configuration(where + " mirrors itself through its primary "
                                 "or mirrors");
    }
    const std::string kind = required_string(*table, where, "service");
    std::shared_ptr<Service> service;
    if (kind == "Disk") {
      DiskServiceOptions options;
      options.root = required_string(*table, where, "root");
      options.url_secret = (*table)["url_secret"].value_or(std::string());
      service = std::make_shared<DiskService>(std::move(options));
    } else if (kind == "Mirror") {
      std::shared_ptr<Service> primary =
          build(required_string(*table, where, "primary"));
      const toml::array* names = (*table)["mirrors"].as_array();
      if (!names) {
        throw Error::configuration(where + " needs mirrors = [\"name\", …]");
      }
      std::vector<std::shared_ptr<Service>> mirrors;
      for (const toml::node& mirror : *names) {
        const std::optional<std::string> mirror_name = mirror.value<std::string>();
        if (!mirror_name) {
          throw Error::configuration(where + " mirrors must be service names");
        }
        mirrors.push_back(build(*mirror_name));
      }
      service = std::make_shared<MirrorService>(std::move(primary),
                                                std::move(mirrors));
    } else if (kind == "S3") {
      S3ServiceOptions options;
      options.bucket = required_string(*table, where, "bucket");
      options.region = optional_setting<std::string>(*table, where, "region").value_or("");
      options.endpoint = optional_setting<std::string>(*table, where, "endpoint").value_or("");
      // Custom endpoints (MinIO, moto, …) rarely resolve bucket subdomains.
      options.force_path_style = optional_setting<bool>(*table, where, "force_path_style")
                                     .value_or(!options.endpoint.empty());
      if (auto threshold = optional_setting<std::int64_t>(*table, where, "upload_threshold")) {
        if (*threshold < 0) {
          throw Error::configuration(where + " upload_threshold must not be negative");
        }
        options.upload_threshold = static_cast<std::uint64_t>(*threshold);
      }
      service = std::make_shared<S3Service>(std::move(options));
    } else {
      throw Error::configuration(where + " has service = \"" + kind +
                                 "\"; expected \"Disk\", \"S3\" or \"Mirror\"");
    }
    building_.erase(name);
    return service;
  }

 private:
  // The setting's value, nullopt when absent; a value of another type is an
  // error rather than silently ignored.
  template <typename T>
  static std::optional<T> optional_setting(const toml::table& table,
                                           const std::string& where,
                                           std::string_view setting) {
    const toml::node* node = table.get(setting);
    if (!node) return std::nullopt;
    std::optional<T> value = node->value_exact<T>();
    if (!value) {
      throw Error::configuration(where + " has a mistyped " + std::string(setting));
    }
    return value;
  }

  static std::string required_string(const toml::table& table,
                                      const std::string& where,
                                      std::string_view setting) {
    const std::optional<std::string> value = table[setting].value<std::string>();
    if (!value || value->empty()) {
      throw Error::configuration(where + " needs " + std::string(setting) +
                                 " = \"…\"");
    }
    return *value;
  }

  const toml::table& document_;
  // Names being built further up the recursion, to catch cycles.
  std::set<std::string> building_;
};

}  // namespace

std::shared_ptr<Service> configure_service(std::string_view name,
                                           std::string_view toml_text) {
  toml::table document;
  try {
    document = toml::parse(toml_text);
  } catch (const toml::parse_error& error) {
    std::ostringstream message;
    message << "the service configuration is not valid TOML: "
            << error.description() << " at " << error.source().begin;
    throw Error::configuration(message.str());
  }
  return Configurator(document).build(std::string(name));
}

}  // namespace stowage::service
