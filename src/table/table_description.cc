#include "table/table_description.h"

namespace stowage::table {

const GlobalSecondaryIndex* TableDescription::find_index(
    std::string_view index_name) const {
  for (const GlobalSecondaryIndex& index : global_secondary_indexes) {
    if (index.name == index_name) return &index;
  }
  return nullptr;
}

}  // namespace stowage::table
