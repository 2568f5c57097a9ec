// Kueue's Fair Sharing share of a ClusterQueue or Cohort: its dominant resource share (DRS).
//
// Source: kubernetes-sigs/kueue pkg/cache/scheduler/fair_sharing.go (at ff69552e, 2026-08) and
// site/content/en/docs/concepts/fair_sharing.md (paraphrased, not copied):
// - for each resource, the node borrows what its usage exceeds its subtree quota by, summed over
//   flavors; that is divided by what the node's parent could lend of the resource (the sum over
//   flavors of the parent's potential available quota) and scaled to thousandths; the largest
//   ratio over resources is the DRS, and the weighted share is DRS / fairSharing.weight;
// - a root, and a node that borrows nothing, has share 0; a node of weight 0 that borrows ranks
//   above every other (an infinite share), two such nodes by their unweighted ratios.
#pragma once

#include <limits>
#include <vector>

#include "sim/tenancy/quota_tree.h"

namespace topsim {

struct Drs {
  double ratio = 0;   // unweighted, thousandths of what the parent can lend
  double weight = 1;  // the node's fairSharing.weight
  bool borrowing = false;
  std::vector<int> borrowed_frs;  // FRs the node uses above its subtree quota (when listed)

  bool infinite() const { return weight == 0 && ratio != 0; }  // weight 0 while borrowing
  double weighted() const {                                    // ratio / weight (0 when not borrowing; +inf for weight 0)
    if (ratio == 0) return 0;
    if (infinite()) return std::numeric_limits<double>::infinity();
    return ratio / weight;
  }
  bool borrowing_on(const std::vector<std::pair<int, int64_t>>& request) const;
};

// -1, 0, 1 as `a`'s share is below, equal to or above `b`'s (CompareDRS). Here, not in the .cpp:
// a preemption search compares shares millions of times.
inline int compare_drs(const Drs& a, const Drs& b) {
  auto cmp = [](double x, double y) { return x < y ? -1 : x > y ? 1 : 0; };
  if (a.infinite() && b.infinite()) return cmp(a.ratio, b.ratio);
  if (a.infinite() != b.infinite()) return a.infinite() ? 1 : -1;
  return cmp(a.weighted(), b.weighted());
}

// The share of `node` at the tree's current usage; Drs::borrowed_frs is filled only with
// `list_borrowed_frs` (what Drs::borrowing_on reads).
Drs dominant_resource_share(const QuotaTree& tree, int node, bool list_borrowed_frs = false);

}  // namespace topsim
