#include "sim/node_index.h"

#include <algorithm>
#include <cassert>

namespace topsim {

void NodeIndex::reset(const std::vector<int>& type_gpus, int nodes) {
  nodes_ = nodes;
  for (auto& by_label : groups_) {
    by_label.assign(type_gpus.size(), {});
    for (size_t t = 0; t < type_gpus.size(); ++t) {
      by_label[t].buckets.assign(idx(type_gpus[t]) + 1, NodeSet(nodes));
      by_label[t].classes.resize(idx(type_gpus[t]) + 1);
    }
  }
}

void NodeIndex::add(NodeMode label, int type, const GpuSet& free, int node) {
  Group& g = group(label, type);
  g.buckets[free.count()].insert(node);
  join_class(g, free, node);
}

void NodeIndex::join_class(Group& g, const GpuSet& free, int node) const {
  std::vector<FreeClass>& classes = g.classes[free.count()];
  size_t& place = g.class_at.try_emplace(free, kNoClass).first->second;
  if (place == kNoClass) {
    place = classes.size();
    if (g.spare_sets.empty()) {
      classes.push_back({free, NodeSet(nodes_)});
    } else {
      classes.push_back({free, std::move(g.spare_sets.back())});
      g.spare_sets.pop_back();
    }
  }
  classes[place].nodes.insert(node);
}

void NodeIndex::leave_class(Group& g, const GpuSet& free, int node) {
  std::vector<FreeClass>& classes = g.classes[free.count()];
  const auto at = g.class_at.find(free);
  assert(at != g.class_at.end() && at->second != kNoClass && "node not in its class");
  const size_t place = at->second;
  NodeSet& nodes = classes[place].nodes;
  nodes.erase(node);
  if (!nodes.empty()) return;
  at->second = kNoClass;
  g.spare_sets.push_back(std::move(nodes));  // empty again: every word 0, ready for the next class
  if (place + 1 != classes.size()) {         // the last class takes the empty one's place
    classes[place] = std::move(classes.back());
    g.class_at.find(classes[place].free)->second = place;
  }
  classes.pop_back();
}

void NodeIndex::update(NodeMode label, int type, int node, const GpuSet& before, const GpuSet& after) {
  if (before == after) return;
  Group& g = group(label, type);
  leave_class(g, before, node);
  join_class(g, after, node);
  const size_t old_free = before.count(), new_free = after.count();
  if (old_free == new_free) return;
  g.buckets[old_free].erase(node);
  g.buckets[new_free].insert(node);
}

}  // namespace topsim
