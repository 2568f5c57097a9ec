// Measured node pairs in the gang planner (gang_planner.h; contract in gang.h, "measured pairs"):
// a multi-node choice bounded by a pair measured slower than its model is moved off that pair
// when another choice on no more nodes is bounded higher.
#include <algorithm>
#include <optional>

#include "core/gang_planner.h"

namespace topsim::gang_detail {

GangPlanner::SlowPair GangPlanner::slowest_pair(const std::vector<Share>& shares) const {
  SlowPair slow;
  for (size_t i = 0; i < shares.size(); ++i)
    for (size_t j = i + 1; j < shares.size(); ++j) {
      const double gbps = r_.measured(shares[i].node, shares[j].node).bus_gbps;
      if (gbps > 0 && (slow.gbps <= 0 || gbps < slow.gbps)) slow = {gbps, shares[i].node, shares[j].node};
    }
  return slow;
}

double GangPlanner::model_gbps(const std::vector<Share>& shares) {
  double gbps = kUnbounded;
  for (const Share& s : shares) gbps = std::min(gbps, share_gbps(s));
  return gbps;
}

double GangPlanner::bounded_gbps(const std::vector<Share>& shares) {
  const SlowPair slow = slowest_pair(shares);
  return slow.gbps > 0 ? std::min(model_gbps(shares), slow.gbps) : model_gbps(shares);
}

std::vector<Share> GangPlanner::avoid_slow_pairs(std::vector<Share> shares) {
  if (!r_.measured) return shares;
  for (size_t round = 0; round < 2 * shares.size() && shares.size() > 1; ++round) {
    const SlowPair slow = slowest_pair(shares);
    if (slow.gbps <= 0 || slow.gbps >= model_gbps(shares) - 1e-9) return shares;  // no measured pair binds it
    std::optional<std::vector<Share>> better;
    double better_gbps = slow.gbps;
    int dropped = -1;
    for (int drop : {slow.a, slow.b}) {
      avoided_[static_cast<size_t>(drop)] = true;
      auto other = verified_selection();
      avoided_[static_cast<size_t>(drop)] = false;
      if (!other || other->size() > shares.size()) continue;
      if (const double gbps = bounded_gbps(*other); gbps > better_gbps + 1e-9) {
        better = std::move(other).value();
        better_gbps = gbps;
        dropped = drop;
      }
    }
    if (!better) return shares;
    avoided_[static_cast<size_t>(dropped)] = true;  // later rounds keep it out
    shares = std::move(*better);
  }
  return shares;
}

}  // namespace topsim::gang_detail
