// Hot spares (SpareSpec, docs/failures.md): per group of a fabric level (or the whole cluster), the
// idle nodes held out of service to stand in for failed ones. The pool only keeps the books; the
// engine takes each node in or out of service as the pool says.
#pragma once

#include <cstddef>
#include <vector>

namespace topsim {

class Fabric;

class SparePool {
 public:
  // `group[n]`: node n's group, 0..groups-1; `type[n]`: its node type. Every group should hold
  // `per_group` idle spares. `fabric` (none: a flat network), which `take` reads, outlives the pool.
  // REQUIRES: group and type have one entry per node, the fabric's nodes too; per_group >= 0.
  SparePool(int per_group, std::vector<int> group, std::vector<int> type, int groups, const Fabric* fabric = nullptr);

  // The nodes held from the start: the last `per_group` nodes of every group (all of a smaller
  // group), group by group, ascending within each.
  std::vector<int> initial() const;

  // `node` becomes an idle spare. REQUIRES: it is not one.
  void hold(int node);
  // `node` leaves the idle spares (it goes into service, or it failed); false when it is none.
  bool release(int node);
  // An idle spare of `failed`'s group and type, released; -1 when there is none. The nearest in
  // the fabric (the lowest Fabric::span_level with `failed`: its NVLink domain, its rack, ...);
  // the lowest of equals.
  int take(int failed);
  // `node`'s group holds fewer idle spares than it should (a repaired node refills it first).
  bool short_of(int node) const;

 private:
  std::vector<int>& pool_of(int node) { return pools_[static_cast<size_t>(group_[static_cast<size_t>(node)])]; }
  const std::vector<int>& pool_of(int node) const { return pools_[static_cast<size_t>(group_[static_cast<size_t>(node)])]; }

  int per_group_;
  std::vector<int> group_, type_;
  const Fabric* fabric_;
  std::vector<std::vector<int>> pools_;  // by group: its idle spares, ascending
  std::vector<char> idle_;               // by node: an idle spare now
};

}  // namespace topsim
