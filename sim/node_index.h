// Nodes grouped by (label, node type, free GPU count), each group sorted by node index, so
// schedulers find candidates without scanning the cluster: the fullest nodes that fit, or the
// emptiest ones, in a few bucket lookups.
#pragma once

#include <array>
#include <vector>

#include "core/gpu_share.h"

namespace topsim {

class NodeIndex {
 public:
  static constexpr int kLabels = 5;  // NodeMode values

  // Empty buckets for node types of `type_gpus[t]` GPUs each.
  void reset(const std::vector<int>& type_gpus);
  // Adds a node with the highest index so far.
  void add(NodeMode label, int type, int free, int node);

  // Nodes with this label and type that have exactly `free` free GPUs, ascending.
  const std::vector<int>& bucket(NodeMode label, int type, int free) const {
    return buckets_[static_cast<size_t>(label)][static_cast<size_t>(type)][static_cast<size_t>(free)];
  }
  int type_gpus(int type) const { return static_cast<int>(buckets_[0][static_cast<size_t>(type)].size()) - 1; }
  int type_count() const { return static_cast<int>(buckets_[0].size()); }

  // Moves `node` from the bucket of `old_free` to that of `new_free`.
  void update(NodeMode label, int type, int node, int old_free, int new_free);

 private:
  // [label][type][free count] -> sorted node indices
  std::array<std::vector<std::vector<std::vector<int>>>, kLabels> buckets_;
};

}  // namespace topsim
