// TableDescription: a table's key schema and global secondary indexes, as
// create_table takes it and describe returns it. Plain value types.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace stowage::table {

// Key attributes are scalars of type S or N (the types Stowage's schemas use).
enum class KeyType { S, N };

struct KeyAttribute {
  std::string name;
  KeyType type = KeyType::S;
  friend bool operator==(const KeyAttribute&, const KeyAttribute&) = default;
};

struct KeySchema {
  KeyAttribute hash;
  std::optional<KeyAttribute> range;
  friend bool operator==(const KeySchema&, const KeySchema&) = default;
};

// Projection is always ALL: an index query returns whole items.
struct GlobalSecondaryIndex {
  std::string name;
  KeySchema key_schema;
  friend bool operator==(const GlobalSecondaryIndex&,
                         const GlobalSecondaryIndex&) = default;
};

struct TableDescription {
  std::string name;
  KeySchema key_schema;
  std::vector<GlobalSecondaryIndex> global_secondary_indexes;

  // nullptr when there is no index of that name.
  const GlobalSecondaryIndex* find_index(std::string_view index_name) const;

  friend bool operator==(const TableDescription&,
                         const TableDescription&) = default;
};

}  // namespace stowage::table
