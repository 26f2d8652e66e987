// The table Stowage creates when none exists: its key attribute names and
// the two layouts (DESIGN §3). Applications that bring their own table are
// discovered by the schema layer instead; these names are only the defaults.
#pragma once

#include <string>
#include <string_view>

#include "table/table_description.h"

namespace stowage::table {

// Mode A: a string range key carries the logical sort key directly; every
// read is strongly consistent. Mode B: a numeric range key (tables shared
// with applications that key items by number) plus a string GSI for listing.
enum class KeyLayout { ModeA, ModeB };

inline constexpr std::string_view kDefaultHashAttribute = "pk";
inline constexpr std::string_view kDefaultRangeAttribute = "sk";
inline constexpr std::string_view kDefaultIndexName = "stowage_index";
inline constexpr std::string_view kDefaultIndexHashAttribute = "as_index_pk";
inline constexpr std::string_view kDefaultIndexRangeAttribute = "as_index_sk";

// Mode A: hash pk (S), range sk (S), no index. Mode B: hash pk (S),
// range sk (N), GSI stowage_index on as_index_pk (S) / as_index_sk (S).
TableDescription default_table_description(std::string name, KeyLayout layout);

}  // namespace stowage::table
