#include "cli/record_format.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "table/value.h"

namespace stowage::cli {
namespace {

using Field = std::pair<std::string_view, std::string>;

void print_fields(std::ostream& out, const std::vector<Field>& fields) {
  std::size_t width = 0;
  for (const auto& [name, value] : fields) width = std::max(width, name.size());
  for (const auto& [name, value] : fields) {
    out << fmt::format("{:<{}}  {}\n", name, width, value);
  }
}

}  // namespace

CLI::Validator record_validator() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        const auto colon = text.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
          return "a record is TYPE:ID, e.g. Card:42; got \"" + text + "\"";
        }
        return "";
      },
      "TYPE:ID");
}

OwnerRef parse_record(const std::string& text) {
  const auto colon = text.find(':');
  return OwnerRef{text.substr(0, colon), text.substr(colon + 1)};
}

std::string format_record(const OwnerRef& owner) {
  return owner.record_type + ":" + owner.record_id;
}

void print_blob(std::ostream& out, const Blob& blob) {
  print_fields(out, {{"blob", blob.id},
                     {"key", blob.key},
                     {"filename", blob.filename},
                     {"content_type", blob.content_type},
                     {"byte_size", std::to_string(blob.byte_size)},
                     {"checksum", blob.checksum},
                     {"service_name", blob.service_name},
                     {"created_at", blob.created_at},
                     {"attachments_count", std::to_string(blob.attachments_count)},
                     {"attached_once", blob.attached_once ? "true" : "false"},
                     {"metadata", table::describe(blob.metadata)}});
}

void print_attachment(std::ostream& out, const Attachment& attachment) {
  print_fields(out, {{"attachment", attachment.id},
                     {"record", format_record(attachment.owner)},
                     {"name", attachment.name},
                     {"blob", attachment.blob_id},
                     {"created_at", attachment.created_at},
                     {"tracked", attachment.tracked ? "true" : "false"}});
}

void print_attachment_table(std::ostream& out, const std::vector<Attachment>& attachments) {
  using Row = std::array<std::string, 6>;
  std::vector<Row> rows = {{"id", "name", "filename", "content type", "bytes", "created_at"}};
  for (const Attachment& a : attachments) {
    rows.push_back({a.id, a.name, a.filename, a.content_type, std::to_string(a.byte_size),
                    a.created_at});
  }
  std::array<std::size_t, 6> widths{};
  for (const Row& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      // Bytes are numbers: right-aligned; the last column needs no padding.
      if (i == 4) {
        line += fmt::format("{:>{}}  ", row[i], widths[i]);
      } else if (i + 1 < row.size()) {
        line += fmt::format("{:<{}}  ", row[i], widths[i]);
      } else {
        line += row[i];
      }
    }
    out << line << "\n";
  }
}

}  // namespace stowage::cli
