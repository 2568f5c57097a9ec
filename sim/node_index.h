// Nodes grouped by (label, node type, free GPU count), each group sorted by node index, so
// schedulers find candidates without scanning the cluster: the fullest nodes that fit, or the
// emptiest ones, in a few bucket lookups. Within a group, nodes with the same free GPU set form
// a class: a placement depends only on the node type and its free set, so a scheduler that
// scores nodes evaluates one node per class (its lowest index) instead of every node.
#pragma once

#include <array>
#include <unordered_map>
#include <vector>

#include "core/gpu_set.h"
#include "core/gpu_share.h"
#include "sim/node_set.h"

namespace topsim {

class NodeIndex {
 public:
  static constexpr int kLabels = 5;  // NodeMode values

  struct FreeClass {
    GpuSet free;
    NodeSet nodes;  // never empty
  };

  // Empty buckets for node types of `type_gpus[t]` GPUs each, in a cluster of `nodes` nodes.
  void reset(const std::vector<int>& type_gpus, int nodes);
  // Adds a node with the highest index so far.
  void add(NodeMode label, int type, const GpuSet& free, int node);

  // Nodes with this label and type that have exactly `free` free GPUs (ascending when iterated).
  const NodeSet& bucket(NodeMode label, int type, int free) const { return group(label, type).buckets[idx(free)]; }
  // The same nodes by free GPU set, in no particular order.
  const std::vector<FreeClass>& classes(NodeMode label, int type, int free) const {
    return group(label, type).classes[idx(free)];
  }
  int type_gpus(int type) const { return static_cast<int>(groups_[0][idx(type)].buckets.size()) - 1; }
  int type_count() const { return static_cast<int>(groups_[0].size()); }

  // The node's free set changed from `before` to `after`.
  void update(NodeMode label, int type, int node, const GpuSet& before, const GpuSet& after);

 private:
  struct Group {                                  // one (label, type)
    std::vector<NodeSet> buckets;                 // [free count] -> node indices
    std::vector<std::vector<FreeClass>> classes;  // [free count] -> classes
    // Free set -> its place in classes[count], kNoClass while no node has it (entries stay, so a
    // set that comes and goes costs no allocation).
    std::unordered_map<GpuSet, size_t, GpuSetHash> class_at;
    std::vector<NodeSet> spare_sets;  // node sets of classes that emptied, reused by new ones
  };
  static constexpr size_t kNoClass = ~size_t{0};
  static size_t idx(int i) { return static_cast<size_t>(i); }
  const Group& group(NodeMode label, int type) const { return groups_[idx(static_cast<int>(label))][idx(type)]; }
  Group& group(NodeMode label, int type) { return groups_[idx(static_cast<int>(label))][idx(type)]; }
  void join_class(Group& g, const GpuSet& free, int node) const;
  static void leave_class(Group& g, const GpuSet& free, int node);

  std::array<std::vector<Group>, kLabels> groups_;  // [label][type]
  int nodes_ = 0;                                   // the cluster's, the capacity of every NodeSet
};

}  // namespace topsim
