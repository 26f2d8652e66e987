// KeyScheme: the logical keys of every Stowage entity (DESIGN §3), built from
// the namespace and separator of the configuration.
//
// Every key is `ns` followed by parts, joined with the separator. A part that
// is blank or contains the separator is rejected with Error(InvalidKey)
// naming the part and its value, before any request is built: a `#` inside a
// record type would otherwise let one owner's begins_with listing bleed into
// another's. The physical layout of these keys (Mode A / Mode B) is
// TableSchema's business, not this type's.
//
// Thread safety: immutable after construction; safe to share between threads.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace stowage::schema {

// An item's logical partition (H) and sort (R) key.
struct LogicalKey {
  std::string h;
  std::string r;
  friend bool operator==(const LogicalKey&, const LogicalKey&) = default;
};

// A named key part; the name is what an InvalidKey message calls it.
struct KeyPart {
  std::string_view name;
  std::string_view value;
};

// Whose bytes a ledger partition accounts for.
enum class LedgerOwner { Account, Board };

class KeyScheme {
 public:
  // Throws Error(ConfigurationError) when the namespace or the separator is
  // blank, or the namespace contains the separator.
  KeyScheme(std::string key_namespace, std::string separator);

  const std::string& key_namespace() const { return namespace_; }
  const std::string& separator() const { return separator_; }

  // `ns` + separator + the parts joined with the separator. The one place a
  // key string is assembled; layers above use it for keys of their own (the
  // ledger's sort keys).
  std::string compose(std::initializer_list<KeyPart> parts) const;

  // H = R = ns#Blob#<blob_id>.
  LogicalKey blob(std::string_view blob_id) const;
  // H = ns#Blob#<blob_id>, R = ns#VariantRecord#<digest>: a blob and its
  // variants form one item collection.
  LogicalKey variant_record(std::string_view blob_id, std::string_view digest) const;
  // R prefix of every variant record in a blob's partition.
  std::string variant_records_prefix() const;

  // H = ns#Owner#<record_type>#<record_id>, shared by the owner's attachments
  // and its context.
  std::string owner_partition(std::string_view record_type,
                              std::string_view record_id) const;
  // H = the owner partition, R = ns#Attachment#<name>#<attachment_id>.
  LogicalKey attachment(std::string_view record_type, std::string_view record_id,
                        std::string_view name, std::string_view attachment_id) const;
  // R prefix of an owner's attachments called `name` (ns#Attachment#<name>#);
  // the trailing separator keeps "avatar" from matching "avatars".
  std::string attachment_name_prefix(std::string_view name) const;
  // R prefix of all of an owner's attachments (ns#Attachment#).
  std::string attachments_prefix() const;
  // H = the owner partition, R = ns#Context.
  LogicalKey owner_context(std::string_view record_type,
                           std::string_view record_id) const;

  // ns#Ledger#Account#<owner_id> or ns#Ledger#Board#<owner_id>, followed by
  // #<sub_partition> unless it is empty (the ledger's Pending, Entries and
  // Total partitions).
  std::string ledger_partition(LedgerOwner owner, std::string_view owner_id,
                               std::string_view sub_partition = {}) const;

  // Mode B's physical partition value, one per item: H for a blob (where
  // H = R), otherwise H, the separator and R without its leading `ns` and
  // separator. For blobs and variant records this is activestorage-aws-record's
  // layout; for an attachment it also carries the owner (the gem's
  // ns#Attachment#<id> would let two owners' attachments with one id
  // overwrite each other in Mode B only). Distinct keys built here give
  // distinct ids because every H has a fixed number of parts per kind; the
  // one exception the ledger must respect: a sort key in a ledger root
  // partition must not begin with the name of one of its sub-partitions.
  // Error(InvalidKey) unless both H and R begin with `ns` and the separator,
  // as every key this type builds does.
  std::string item_id(const LogicalKey& key) const;

 private:
  // Error(InvalidKey) when the part is blank or contains the separator.
  void check_part(const KeyPart& part) const;

  std::string namespace_;
  std::string separator_;
};

}  // namespace stowage::schema
