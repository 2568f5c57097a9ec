// Nodes grouped by (label, node type, free GPU count), each group sorted by node index, so
// schedulers find candidates without scanning the cluster: the fullest nodes that fit, or the
// emptiest ones, in a few bucket lookups.
#pragma once

#include <vector>

#include "sim/cluster.h"

namespace topsim {

class NodeIndex {
 public:
  explicit NodeIndex(const ClusterState& cluster);

  // Nodes with this label and type that have exactly `free` free GPUs, ascending.
  const std::vector<int>& bucket(NodeLabel label, int type, int free) const {
    return buckets_[static_cast<int>(label)][type][free];
  }
  int type_gpus(int type) const { return static_cast<int>(buckets_[0][type].size()) - 1; }
  int type_count() const { return static_cast<int>(buckets_[0].size()); }

  // Moves `node` from the bucket of `old_free` to that of `new_free`.
  void update(const SimNode& node, int node_index, int old_free, int new_free);

 private:
  // [label][type][free count] -> sorted node indices
  std::vector<std::vector<std::vector<int>>> buckets_[kNodeLabelCount];
};

}  // namespace topsim
