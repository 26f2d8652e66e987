#include "aws/endpoint.h"

#include <cctype>
#include <cstdlib>

#include "stowage/error.h"

namespace stowage::aws {

namespace {

bool is_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `url` as http(s)://host[:port] without a trailing '/', or a
// ConfigurationError naming where the URL came from.
std::string validated(std::string_view url, std::string_view source) {
  auto fail = [&](std::string_view why) -> Error {
    return Error::configuration(std::string(source) + " '" + std::string(url) +
                                "' is not a valid endpoint: " + std::string(why) +
                                " (expected http(s)://host[:port])");
  };
  std::string_view rest = url;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    throw fail("the scheme must be http or https");
  }
  if (rest.ends_with('/')) rest.remove_suffix(1);

  std::string_view host = rest;
  std::string_view port;
  if (rest.starts_with('[')) {  // IPv6 literal
    std::size_t close = rest.find(']');
    if (close == std::string_view::npos) throw fail("unterminated IPv6 address");
    host = rest.substr(0, close + 1);
    for (char c : host.substr(1, host.size() - 2)) {
      if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.')) {
        throw fail("bad IPv6 address");
      }
    }
    rest.remove_prefix(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') throw fail("unexpected text after the host");
      port = rest.substr(1);
      if (port.empty()) throw fail("empty port");
    }
  } else {
    std::size_t colon = rest.find(':');
    if (colon != std::string_view::npos) {
      host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
      if (port.empty()) throw fail("empty port");
    }
    for (char c : host) {
      if (c == '/') throw fail("a path is not allowed");
      if (!is_host_char(c)) throw fail("bad character in the host name");
    }
  }
  if (host.empty() || host == "[]") throw fail("the host is missing");
  if (!port.empty()) {
    if (port.size() > 5) throw fail("the port must be 1-65535");
    for (char c : port) {
      if (c == '/') throw fail("a path is not allowed");
      if (!is_digit(c)) throw fail("the port must be a number");
    }
    int number = std::atoi(std::string(port).c_str());
    if (number < 1 || number > 65535) throw fail("the port must be 1-65535");
  }
  return std::string(url.substr(0, url.ends_with('/') ? url.size() - 1 : url.size()));
}

std::string service_variable(std::string_view service) {
  std::string name = "AWS_ENDPOINT_URL_";
  for (char c : service) {
    if (c >= 'a' && c <= 'z') {
      name.push_back(static_cast<char>(c - 'a' + 'A'));
    } else if (c == '-' || c == ' ') {
      name.push_back('_');
    } else {
      name.push_back(c);
    }
  }
  return name;
}

}  // namespace

std::string resolve_endpoint(std::string_view service, std::string_view region,
                             std::string_view configured) {
  if (!configured.empty()) return validated(configured, "the configured endpoint");
  std::string variable = service_variable(service);
  for (const std::string& name : {variable, std::string("AWS_ENDPOINT_URL")}) {
    const char* value = std::getenv(name.c_str());
    if (value != nullptr && *value != '\0') return validated(value, name);
  }
  if (region.empty()) {
    throw Error::configuration("no region to build the " + std::string(service) +
                               " endpoint from; set AWS_REGION or an endpoint URL");
  }
  for (char c : region) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      throw Error::configuration("region '" + std::string(region) +
                                 "' is not a valid AWS region name (e.g. us-east-1)");
    }
  }
  return "https://" + std::string(service) + "." + std::string(region) + ".amazonaws.com";
}

}  // namespace stowage::aws
