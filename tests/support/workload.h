// What the seeded tests (stress, crash, randomized model runs) read from the
// environment: STOWAGE_SEED=<n> replays a run's random choices (not its
// thread interleaving), STOWAGE_STRESS_SCALE=<k> runs k times the work.
#pragma once

#include <cstdint>

namespace stowage::testing {

// STOWAGE_SEED when set, else a random seed; printed either way, so that a
// failing run says how to replay it.
std::uint64_t seed_from_environment();

// STOWAGE_STRESS_SCALE (at least 1): how many times the default work to do.
int scale_from_environment();

}  // namespace stowage::testing
