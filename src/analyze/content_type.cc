#include "analyze/content_type.h"

#include <magic.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "stowage/error.h"

namespace stowage::analyze {

namespace {

class MagicHandle {
 public:
  MagicHandle() : cookie_(magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR)) {
    if (!cookie_) {
      throw Error::configuration("libmagic could not be initialised");
    }
    if (magic_load(cookie_, nullptr) != 0) {
      const std::string reason = magic_error(cookie_);
      magic_close(cookie_);
      throw Error::configuration("libmagic could not load its database: " +
                                 reason);
    }
  }
  ~MagicHandle() { magic_close(cookie_); }
  MagicHandle(const MagicHandle&) = delete;
  MagicHandle& operator=(const MagicHandle&) = delete;

  // Empty if libmagic fails on this input.
  std::string mime_type(std::string_view bytes) {
    const char* type = magic_buffer(cookie_, bytes.data(), bytes.size());
    return type ? std::string(type) : std::string();
  }

 private:
  magic_t cookie_;
};

// Text formats libmagic reports only as plain text (or as a guessed
// language: CSS often reads as C, JSON-like JavaScript as text).
constexpr std::array<std::pair<std::string_view, std::string_view>, 11>
    kTextExtensions{{
        {"css", "text/css"},
        {"csv", "text/csv"},
        {"js", "text/javascript"},
        {"json", "application/json"},
        {"markdown", "text/markdown"},
        {"md", "text/markdown"},
        {"mjs", "text/javascript"},
        {"svg", "image/svg+xml"},
        {"tsv", "text/tab-separated-values"},
        {"txt", "text/plain"},
        {"xml", "application/xml"},
    }};

std::string lowercase_extension(std::string_view filename) {
  const std::size_t dot = filename.rfind('.');
  if (dot == std::string_view::npos) return {};
  std::string extension(filename.substr(dot + 1));
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return extension;
}

// True when libmagic knows no more than "text" or "bytes".
bool is_generic(std::string_view type) {
  return type.empty() || type == "application/octet-stream" ||
         type == "application/x-empty" || type == "text/plain" ||
         type.starts_with("text/x-");
}

}  // namespace

std::string detect_content_type(std::string_view first_bytes,
                                std::string_view filename) {
  thread_local MagicHandle magic;
  std::string type =
      magic.mime_type(first_bytes.substr(0, kContentTypeSniffLength));
  if (!is_generic(type)) return type;
  const std::string extension = lowercase_extension(filename);
  for (const auto& [known, mapped] : kTextExtensions) {
    if (extension == known) return std::string(mapped);
  }
  if (type.empty() || type == "application/x-empty") {
    return "application/octet-stream";
  }
  return type;
}

}  // namespace stowage::analyze
