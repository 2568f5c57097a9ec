#include "sim/spare_pool.h"

#include "core/fabric.h"

#include <algorithm>
#include <utility>

namespace topsim {

SparePool::SparePool(int per_group, std::vector<int> group, std::vector<int> type, int groups, const Fabric* fabric)
    : per_group_(per_group),
      group_(std::move(group)),
      type_(std::move(type)),
      fabric_(fabric),
      pools_(static_cast<size_t>(groups)),
      idle_(group_.size(), 0) {}

std::vector<int> SparePool::initial() const {
  std::vector<std::vector<int>> members(pools_.size());
  for (size_t n = 0; n < group_.size(); ++n) members[static_cast<size_t>(group_[n])].push_back(static_cast<int>(n));
  std::vector<int> held;
  for (const std::vector<int>& nodes : members)
    held.insert(held.end(), nodes.end() - static_cast<std::ptrdiff_t>(std::min(nodes.size(), static_cast<size_t>(per_group_))),
                nodes.end());
  return held;
}

void SparePool::hold(int node) {
  std::vector<int>& pool = pool_of(node);
  pool.insert(std::upper_bound(pool.begin(), pool.end(), node), node);
  idle_[static_cast<size_t>(node)] = 1;
}

bool SparePool::release(int node) {
  if (!idle_[static_cast<size_t>(node)]) return false;
  std::vector<int>& pool = pool_of(node);
  pool.erase(std::find(pool.begin(), pool.end(), node));
  idle_[static_cast<size_t>(node)] = 0;
  return true;
}

int SparePool::take(int failed) {
  int nearest = -1;
  int nearest_level = 0;
  for (int node : pool_of(failed)) {  // ascending: the first of equals is the lowest
    if (type_[static_cast<size_t>(node)] != type_[static_cast<size_t>(failed)]) continue;
    const int level = fabric_ ? fabric_->span_level({node, failed}) : 0;
    if (nearest < 0 || level < nearest_level) {
      nearest = node;
      nearest_level = level;
    }
  }
  if (nearest >= 0) release(nearest);
  return nearest;
}

bool SparePool::short_of(int node) const { return pool_of(node).size() < static_cast<size_t>(per_group_); }

}  // namespace topsim
