#include "sim/node_index.h"

#include <algorithm>

namespace topsim {

NodeIndex::NodeIndex(const ClusterState& cluster) {
  for (auto& by_label : buckets_) {
    by_label.resize(cluster.type_count());
    for (int t = 0; t < cluster.type_count(); ++t) by_label[t].resize(cluster.type(t).topology->gpu_count() + 1);
  }
  for (int n = 0; n < static_cast<int>(cluster.nodes().size()); ++n) {
    const SimNode& node = cluster.node(n);
    buckets_[static_cast<int>(node.label)][node.type][node.free.count()].push_back(n);  // ascending by construction
  }
}

void NodeIndex::update(const SimNode& node, int node_index, int old_free, int new_free) {
  if (old_free == new_free) return;
  auto& by_free = buckets_[static_cast<int>(node.label)][node.type];
  std::vector<int>& from = by_free[old_free];
  from.erase(std::lower_bound(from.begin(), from.end(), node_index));
  std::vector<int>& to = by_free[new_free];
  to.insert(std::lower_bound(to.begin(), to.end(), node_index), node_index);
}

}  // namespace topsim
