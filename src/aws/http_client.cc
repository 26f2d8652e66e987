#include "aws/http_client.h"

#include <cctype>

namespace stowage::aws {

std::string HttpResponse::header(std::string_view name) const {
  auto same = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(a[i])) !=
          std::tolower(static_cast<unsigned char>(b[i]))) {
        return false;
      }
    }
    return true;
  };
  for (const auto& [key, value] : headers) {
    if (same(key, name)) return value;
  }
  return {};
}

}  // namespace stowage::aws
