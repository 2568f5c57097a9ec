#include "sim/node_index.h"

#include <algorithm>

namespace topsim {

void NodeIndex::reset(const std::vector<int>& type_gpus) {
  for (auto& by_label : buckets_) {
    by_label.assign(type_gpus.size(), {});
    for (size_t t = 0; t < type_gpus.size(); ++t) by_label[t].resize(static_cast<size_t>(type_gpus[t]) + 1);
  }
}

void NodeIndex::add(NodeMode label, int type, int free, int node) {
  buckets_[static_cast<size_t>(label)][static_cast<size_t>(type)][static_cast<size_t>(free)].push_back(node);
}

void NodeIndex::update(NodeMode label, int type, int node, int old_free, int new_free) {
  if (old_free == new_free) return;
  auto& by_free = buckets_[static_cast<size_t>(label)][static_cast<size_t>(type)];
  std::vector<int>& from = by_free[static_cast<size_t>(old_free)];
  from.erase(std::lower_bound(from.begin(), from.end(), node));
  std::vector<int>& to = by_free[static_cast<size_t>(new_free)];
  to.insert(std::lower_bound(to.begin(), to.end(), node), node);
}

}  // namespace topsim
