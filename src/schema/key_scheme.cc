#include "schema/key_scheme.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "stowage/error.h"

namespace stowage::schema {
namespace {

// Blank as Rails means it: empty or only whitespace.
bool is_blank(std::string_view value) {
  return std::all_of(value.begin(), value.end(), [](unsigned char c) {
    return std::isspace(c) != 0;
  });
}

std::string_view ledger_owner_name(LedgerOwner owner) {
  return owner == LedgerOwner::Account ? "Account" : "Board";
}

}  // namespace

KeyScheme::KeyScheme(std::string key_namespace, std::string separator)
    : namespace_(std::move(key_namespace)), separator_(std::move(separator)) {
  if (is_blank(separator_)) {
    throw Error::configuration(
        "the key separator is blank; set [table] separator to a non-blank "
        "string such as \"#\"");
  }
  if (is_blank(namespace_)) {
    throw Error::configuration(
        "the key namespace is blank; set [table] namespace to a non-blank "
        "string such as \"Stowage\"");
  }
  if (namespace_.find(separator_) != std::string::npos) {
    throw Error::configuration("the key namespace \"" + namespace_ +
                               "\" contains the key separator \"" + separator_ +
                               "\"; change [table] namespace or [table] separator "
                               "so that they do not overlap");
  }
}

void KeyScheme::check_part(const KeyPart& part) const {
  if (is_blank(part.value)) {
    throw Error::invalid_key(std::string(part.name) + " is blank (\"" +
                             std::string(part.value) +
                             "\"); key parts must be non-blank");
  }
  if (part.value.find(separator_) != std::string_view::npos) {
    throw Error::invalid_key(std::string(part.name) + " \"" +
                             std::string(part.value) +
                             "\" contains the key separator \"" + separator_ +
                             "\"; use a value without it");
  }
}

std::string KeyScheme::compose(std::initializer_list<KeyPart> parts) const {
  std::string key = namespace_;
  for (const KeyPart& part : parts) {
    check_part(part);
    key += separator_;
    key += part.value;
  }
  return key;
}

LogicalKey KeyScheme::blob(std::string_view blob_id) const {
  std::string key = compose({{"kind", "Blob"}, {"blob_id", blob_id}});
  return {key, key};
}

LogicalKey KeyScheme::variant_record(std::string_view blob_id,
                                     std::string_view digest) const {
  return {compose({{"kind", "Blob"}, {"blob_id", blob_id}}),
          compose({{"kind", "VariantRecord"}, {"digest", digest}})};
}

std::string KeyScheme::variant_records_prefix() const {
  return compose({{"kind", "VariantRecord"}}) + separator_;
}

std::string KeyScheme::owner_partition(std::string_view record_type,
                                       std::string_view record_id) const {
  return compose(
      {{"kind", "Owner"}, {"record_type", record_type}, {"record_id", record_id}});
}

LogicalKey KeyScheme::attachment(std::string_view record_type,
                                 std::string_view record_id, std::string_view name,
                                 std::string_view attachment_id) const {
  return {owner_partition(record_type, record_id),
          compose({{"kind", "Attachment"},
                   {"name", name},
                   {"attachment_id", attachment_id}})};
}

std::string KeyScheme::attachment_name_prefix(std::string_view name) const {
  return compose({{"kind", "Attachment"}, {"name", name}}) + separator_;
}

std::string KeyScheme::attachments_prefix() const {
  return compose({{"kind", "Attachment"}}) + separator_;
}

LogicalKey KeyScheme::owner_context(std::string_view record_type,
                                    std::string_view record_id) const {
  return {owner_partition(record_type, record_id), compose({{"kind", "Context"}})};
}

std::string KeyScheme::ledger_partition(LedgerOwner owner, std::string_view owner_id,
                                        std::string_view sub_partition) const {
  std::string_view kind = ledger_owner_name(owner);
  if (sub_partition.empty()) {
    return compose({{"kind", "Ledger"}, {"owner", kind}, {"owner_id", owner_id}});
  }
  return compose({{"kind", "Ledger"},
                  {"owner", kind},
                  {"owner_id", owner_id},
                  {"sub_partition", sub_partition}});
}

std::string KeyScheme::item_id(const LogicalKey& key) const {
  const std::string tag = namespace_ + separator_;
  if (!key.h.starts_with(tag) || !key.r.starts_with(tag)) {
    throw Error::invalid_key("logical key (\"" + key.h + "\", \"" + key.r +
                             "\") does not begin with the namespace \"" + tag +
                             "\"; build keys with KeyScheme");
  }
  if (key.h == key.r) return key.h;
  return key.h + separator_ + key.r.substr(tag.size());
}

}  // namespace stowage::schema
