// A set of GPUs of one node as a bitset over GPU ids, with conversions to and from id lists.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "core/node_model.h"
#include "util/text.h"

namespace topsim {

using GpuSet = std::bitset<kMaxGpusPerNode>;

inline GpuSet to_gpu_set(const std::vector<int>& ids) {
  GpuSet set;
  for (int id : ids) set.set(static_cast<size_t>(id));
  return set;
}

inline std::vector<int> to_ids(const GpuSet& set) {
  std::vector<int> ids;
  for (size_t i = set._Find_first(); i < set.size(); i = set._Find_next(i)) ids.push_back(static_cast<int>(i));
  return ids;
}

// The first `gpus` ids, i.e. an idle node (all ids for `gpus` >= kMaxGpusPerNode, none for <= 0).
inline GpuSet all_gpus(int gpus) {
  if (gpus <= 0) return GpuSet();
  if (static_cast<size_t>(gpus) >= kMaxGpusPerNode) return ~GpuSet();
  return ~GpuSet() >> (kMaxGpusPerNode - static_cast<size_t>(gpus));
}

// A hash of a GPU set for the memo tables keyed by free sets: its 64-bit words mixed with
// multiply-xorshift steps (splitmix64's constants). std::hash of a bitset hashes its bytes,
// several times dearer, on one of the hottest lookups of a replay.
struct GpuSetHash {
  size_t operator()(const GpuSet& s) const {
    static const GpuSet kLow = ~GpuSet() >> (kMaxGpusPerNode - 64);
    const uint64_t low = (s & kLow).to_ullong();
    uint64_t high = 0;
    for (size_t shift = 64; shift < kMaxGpusPerNode; shift += 64)
      high = high * 0x9E3779B97F4A7C15ULL + ((s >> shift) & kLow).to_ullong();
    return static_cast<size_t>((low ^ (high * 0xBF58476D1CE4E5B9ULL)) * 0x94D049BB133111EBULL);
  }
};

// "0,1,5" style list.
inline std::string format_ids(const std::vector<int>& ids) {
  return join(ids, ",", [](int id) { return std::to_string(id); });
}

}  // namespace topsim
