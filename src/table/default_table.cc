#include "table/default_table.h"

#include <utility>

namespace stowage::table {

TableDescription default_table_description(std::string name, KeyLayout layout) {
  TableDescription description;
  description.name = std::move(name);
  description.key_schema.hash = {std::string(kDefaultHashAttribute), KeyType::S};
  if (layout == KeyLayout::ModeA) {
    description.key_schema.range = KeyAttribute{std::string(kDefaultRangeAttribute), KeyType::S};
    return description;
  }
  description.key_schema.range = KeyAttribute{std::string(kDefaultRangeAttribute), KeyType::N};
  description.global_secondary_indexes.push_back(GlobalSecondaryIndex{
      std::string(kDefaultIndexName),
      KeySchema{{std::string(kDefaultIndexHashAttribute), KeyType::S},
                KeyAttribute{std::string(kDefaultIndexRangeAttribute), KeyType::S}}});
  return description;
}

}  // namespace stowage::table
