// A set of GPUs of one node as a bitset over GPU ids, with conversions to and from id lists.
#pragma once

#include <bitset>
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

// The first `gpus` ids, i.e. an idle node.
inline GpuSet all_gpus(int gpus) {
  GpuSet set;
  for (int i = 0; i < gpus; ++i) set.set(static_cast<size_t>(i));
  return set;
}

// "0,1,5" style list.
inline std::string format_ids(const std::vector<int>& ids) {
  return join(ids, ",", [](int id) { return std::to_string(id); });
}

}  // namespace topsim
