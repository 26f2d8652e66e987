#include "support/workload.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>

namespace stowage::testing {

std::uint64_t seed_from_environment() {
  std::uint64_t seed = std::random_device{}();
  if (const char* text = std::getenv("STOWAGE_SEED")) seed = std::strtoull(text, nullptr, 10);
  std::cout << "seed " << seed << " (STOWAGE_SEED=" << seed << " replays it)\n";
  return seed;
}

int scale_from_environment() {
  if (const char* text = std::getenv("STOWAGE_STRESS_SCALE")) return std::max(1, std::atoi(text));
  return 1;
}

}  // namespace stowage::testing
