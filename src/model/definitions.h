// Attachment definitions: what each (record type, attachment name) of the
// configuration allows and what happens to its blobs — Active Storage's
// has_one_attached / has_many_attached declarations, read from the
// `[[attachments]]` tables of the TOML configuration every front end shares:
//
//   strict_definitions = false       # true: a name without a definition is
//                                    #   rejected instead of getting the default
//   [[attachments]]
//   record_type = "Card"
//   name = "image"
//   cardinality = "one"              # "one" (has_one) or "many" (has_many)
//   dependent = "purge_later"        # purge | purge_later | detach
//   track_storage = true             # counted by the storage ledger
//   service = "local"                # optional; else the default service
//   max_bytes = 10485760             # optional
//   content_types = ["image/*"]      # optional; empty allows any
//   [attachments.variants.small]     # declared variants, kept as written
//   resize_to_limit = [800, 600]
//   process = "immediately"
//
// A name with no definition gets the default definition (many, purge_later,
// tracked, no limits) unless strict_definitions is true.
//
// Thread safety: immutable after construction; safe to share between threads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "model/records.h"

namespace stowage::model {

enum class Cardinality { One, Many };

// What happens to a blob when its attachment goes (owner destroyed, attachment
// replaced or purged): deleted at once, deleted by a worker, or kept.
enum class Dependent { Purge, PurgeLater, Detach };

std::string_view to_string(Cardinality cardinality);
std::string_view to_string(Dependent dependent);

struct AttachmentDefinition {
  // Both empty for the default definition.
  std::string record_type;
  std::string name;
  Cardinality cardinality = Cardinality::Many;
  Dependent dependent = Dependent::PurgeLater;
  bool track_storage = true;
  std::optional<std::string> service_name;
  std::optional<std::uint64_t> max_bytes;
  // "type/subtype", "type/*" or "*/*"; empty allows every content type.
  std::vector<std::string> content_types;
  // Variant name -> its transformation entries exactly as configured; the
  // variant layer gives them meaning.
  std::map<std::string, toml::table, std::less<>> variants;
};

class Definitions {
 public:
  // No definitions, not strict: every name gets the default.
  Definitions() = default;

  // Reads `strict_definitions` and every `[[attachments]]` table of a parsed
  // configuration; other top-level tables belong to other readers. Throws
  // Error(ConfigurationError) naming the setting and its line for an unknown
  // setting, a wrong type, a missing or blank record_type or name, an
  // unknown cardinality or dependent, a malformed content type pattern or a
  // second definition of one (record type, name).
  static Definitions from_config(const toml::table& config);
  // Parses `toml_text` first; a parse error is a ConfigurationError with its
  // line and column.
  static Definitions parse(std::string_view toml_text);

  // The definition of `name` on `record_type`, else the default one. Throws
  // Error(ValidationError) naming both when there is none and definitions
  // are strict.
  const AttachmentDefinition& find(std::string_view record_type,
                                   std::string_view name) const;

  bool strict() const { return strict_; }
  const std::vector<AttachmentDefinition>& all() const { return definitions_; }

 private:
  bool strict_ = false;
  std::vector<AttachmentDefinition> definitions_;
  AttachmentDefinition default_;
};

// Whether `content_type` matches `pattern` ("image/*" matches "image/png";
// MIME types compare case-insensitively, parameters after ';' are ignored).
bool content_type_matches(std::string_view pattern, std::string_view content_type);

// Throws Error(ValidationError) naming the attachment and the limit when the
// blob is larger than max_bytes or its content type matches none of the
// allowed patterns.
void validate_blob(const AttachmentDefinition& definition, const Blob& blob);

}  // namespace stowage::model
