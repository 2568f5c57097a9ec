// The one seed rule. A scenario's `seed` s and `seeds` n (default 1) give n runs per scheduler,
// with run seeds s, s + 1, ..., s + n - 1. Within a run every consumer of randomness draws from
// its own std::mt19937_64 stream seeded from the run seed:
// - the workload: synthetic arrivals and sizes, the model mix of trace jobs, the pod draws of a
//   fill experiment: the run seed itself (a workload section that sets its own "seed" keeps it
//   for every run);
// - the default scheduler's tie-breaking among equal nodes: the run seed itself;
// - the `random` share policy: run seed XOR kRandomPolicyStream, so its draws are independent
//   of the workload's although both start from the same run seed.
// - a synthetic workload's tenants and priority classes (sim/workload/tenant_mix.h): the
//   workload's seed XOR kTenantStream and XOR kPriorityClassStream, one draw per job each, so
//   that giving them changes none of the workload's other draws; and the GPU models its jobs
//   select (sim/workload/synthetic_workload.h gpu_models): XOR kGpuModelStream, alike.
// Runs are independent of each other: results do not depend on how many run at once.
#pragma once

#include <cstdint>
#include <random>

namespace topsim {

inline constexpr uint64_t kRandomPolicyStream = 0x9E3779B97F4A7C15ULL;  // 2^64 / golden ratio
// Any two other odd 64-bit constants would do: SplitMix64's two multipliers (Steele, Lea and
// Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014, mix64).
inline constexpr uint64_t kTenantStream = 0xBF58476D1CE4E5B9ULL;
inline constexpr uint64_t kPriorityClassStream = 0x94D049BB133111EBULL;
// MurmurHash3's fmix64 first multiplier (Appleby, MurmurHash3.cpp), another odd constant.
inline constexpr uint64_t kGpuModelStream = 0xFF51AFD7ED558CCDULL;

inline constexpr uint64_t run_seed(uint64_t scenario_seed, int run) { return scenario_seed + static_cast<uint64_t>(run); }

// A uniform double in [0, 1) from the top 53 bits of one draw: the project's own arithmetic, the
// same on every standard library (std::uniform_real_distribution is not).
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace topsim
