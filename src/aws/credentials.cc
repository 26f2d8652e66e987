#include "aws/credentials.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "stowage/error.h"

namespace stowage::aws {

namespace {

using Section = std::map<std::string, std::string>;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string trim(std::string_view text) {
  std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  std::size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string profile_name() {
  std::string profile = env("AWS_PROFILE");
  return profile.empty() ? "default" : profile;
}

// A file path from an override variable, else ~/.aws/<name>; empty when
// neither the variable nor HOME is set.
std::string aws_file(const char* override_variable, const char* name) {
  std::string path = env(override_variable);
  if (!path.empty()) return path;
  std::string home = env("HOME");
  return home.empty() ? std::string() : home + "/.aws/" + name;
}

// The named section of an INI file, or nullopt when the file or section is
// absent. Lines are "key = value"; '#' and ';' start comment lines.
std::optional<Section> read_section(const std::string& path,
                                    const std::string& section_name) {
  if (path.empty()) return std::nullopt;
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::optional<Section> found;
  bool in_section = false;
  std::string line;
  while (std::getline(file, line)) {
    std::string text = trim(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    if (text.front() == '[' && text.back() == ']') {
      in_section = trim(std::string_view(text).substr(1, text.size() - 2)) == section_name;
      if (in_section && !found) found.emplace();
      continue;
    }
    if (!in_section) continue;
    std::size_t eq = text.find('=');
    if (eq == std::string::npos) continue;
    (*found)[lower(trim(std::string_view(text).substr(0, eq)))] =
        trim(std::string_view(text).substr(eq + 1));
  }
  return found;
}

// The config file names profiles "[profile NAME]", except the default
// profile, which is "[default]".
std::optional<Section> read_config_profile(const std::string& path,
                                           const std::string& profile) {
  std::optional<Section> section = read_section(path, "profile " + profile);
  if (!section && profile == "default") section = read_section(path, "default");
  return section;
}

std::optional<Credentials> keys_from(const std::optional<Section>& section,
                                     const std::string& where) {
  if (!section) return std::nullopt;
  auto get = [&](const char* key) {
    auto it = section->find(key);
    return it == section->end() ? std::string() : it->second;
  };
  Credentials credentials{get("aws_access_key_id"), get("aws_secret_access_key"),
                          get("aws_session_token")};
  if (credentials.access_key_id.empty() && credentials.secret_access_key.empty()) {
    return std::nullopt;
  }
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    throw Error(ErrorCode::AccessDenied,
                where + " has only one of aws_access_key_id and "
                        "aws_secret_access_key; set both");
  }
  return credentials;
}

}  // namespace

Credentials resolve_credentials() {
  Credentials from_env{env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"),
                       env("AWS_SESSION_TOKEN")};
  if (!from_env.access_key_id.empty() && !from_env.secret_access_key.empty()) {
    return from_env;
  }
  if (!from_env.access_key_id.empty() || !from_env.secret_access_key.empty()) {
    throw Error(ErrorCode::AccessDenied,
                "only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set; "
                "set both, or unset both to use the shared credentials file");
  }

  std::string profile = profile_name();
  std::string credentials_path =
      aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  std::string config_path = aws_file("AWS_CONFIG_FILE", "config");
  std::string credentials_where =
      (credentials_path.empty() ? std::string("~/.aws/credentials (HOME unset)")
                                : credentials_path) +
      " [" + profile + "]";
  std::string config_where =
      (config_path.empty() ? std::string("~/.aws/config (HOME unset)") : config_path) +
      (profile == "default" ? " [default]" : " [profile " + profile + "]");

  if (auto found = keys_from(read_section(credentials_path, profile), credentials_where)) {
    return *found;
  }
  if (auto found = keys_from(read_config_profile(config_path, profile), config_where)) {
    return *found;
  }
  throw Error(ErrorCode::AccessDenied,
              "no AWS credentials found; looked in AWS_ACCESS_KEY_ID/"
              "AWS_SECRET_ACCESS_KEY, " + credentials_where + " and " + config_where +
              " (profile from AWS_PROFILE)");
}

std::string resolve_region() {
  for (const char* variable : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    std::string region = env(variable);
    if (!region.empty()) return region;
  }
  std::optional<Section> section =
      read_config_profile(aws_file("AWS_CONFIG_FILE", "config"), profile_name());
  if (section) {
    auto it = section->find("region");
    if (it != section->end() && !it->second.empty()) return it->second;
  }
  return "us-east-1";
}

}  // namespace stowage::aws
