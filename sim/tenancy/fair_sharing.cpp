#include "sim/tenancy/fair_sharing.h"

#include <algorithm>

namespace topsim {

bool Drs::borrowing_on(const std::vector<std::pair<int, int64_t>>& request) const {
  return std::any_of(request.begin(), request.end(), [&](const auto& r) {
    return r.second > 0 && std::find(borrowed_frs.begin(), borrowed_frs.end(), r.first) != borrowed_frs.end();
  });
}

Drs dominant_resource_share(const QuotaTree& tree, int node, bool list_borrowed_frs) {
  Drs drs;
  drs.weight = tree.fair_weight(node);
  const int parent = tree.parent(node);
  if (parent < 0) return drs;
  const int resources = tree.resources();
  const auto over = [&](int fr) { return tree.usage(node, fr) - tree.subtree_quota(node, fr); };
  bool any = false;
  for (int fr = 0; fr < tree.fr_count() && !any; ++fr) any = over(fr) > 0;
  if (!any) return drs;  // the common case
  drs.borrowing = true;
  // Per resource, what the node borrows summed over flavors, against what the parent could lend;
  // resources in name order on ties, as Kueue picks the dominant one (only the ratio matters
  // here). Summed in place: this runs for every queue a preemption search visits, so it allocates
  // nothing unless asked for the FRs.
  for (int r = 0; r < resources; ++r) {
    int64_t borrowed = 0;
    for (int f = 0; f * resources < tree.fr_count(); ++f) borrowed += std::max<int64_t>(0, over(tree.fr(f, r)));
    if (borrowed == 0) continue;
    const int64_t lendable = tree.potential_all_flavors(parent, r);
    if (lendable <= 0) continue;
    drs.ratio = std::max(drs.ratio, static_cast<double>(borrowed) * 1000.0 / static_cast<double>(lendable));
  }
  if (list_borrowed_frs)
    for (int fr = 0; fr < tree.fr_count(); ++fr)
      if (over(fr) > 0) drs.borrowed_frs.push_back(fr);
  return drs;
}

}  // namespace topsim
