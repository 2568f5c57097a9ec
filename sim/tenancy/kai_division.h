// KAI-Scheduler's division of a resource among queues (its proportion plugin): every queue gets
// its deserved quota first, then what is left goes over quota by weight, higher-priority queues
// first, each queue capped by its limit and by what it asks; parents split the total and each
// child level splits its parent's share.
//
// Source: NVIDIA/KAI-Scheduler at 72de64fc, pkg/scheduler/plugins/proportion/resource_division/
// resource_division.go and docs/fairness/README.md (paraphrased, not copied):
// 1. deserved pass: each queue gets min(deserved, requestable), requestable = min(request, limit);
//    deserved -1 means the whole amount;
// 2. over-quota pass, by priority (highest first), in rounds among unsatisfied queues (share <
//    requestable, weight > 0): each gets round x weight / total weight; a queue whose remaining
//    request fits its slice takes exactly that and is satisfied, the others take the slice's
//    whole units and remember the fraction; a new round follows when someone took less than
//    its slice;
// 3. remainder pass, per priority level: what is left goes one unit (or what remains) at a time
//    to the queues with the largest remembered fraction, earlier-created first on ties.
// Time-aware fairness (resource_division.go calcShareWeights; docs/developer/designs/
// time-based-fairshare): with a kValue k, a round's slices go by max(0, w + k·(w - usage)) instead
// of the weights, w a queue's weight over the open queues' weights and usage its historical share
// of the cluster (kai_usage.h); without it, by the weights alone.
#pragma once

#include <optional>
#include <vector>

namespace topsim {

struct KaiShareQueue {
  int parent = -1;      // index of its parent queue, -1 at the top
  double deserved = 0;  // -1: all of its parent's share
  double over_quota_weight = 0;
  double limit = -1;   // -1: none
  double request = 0;  // allocated + pending, of leaf queues (parents: their children's sum)
  int priority = 100;
  double usage = 0;  // its historical share of the cluster, 0 to 1 (time-aware fairness)
  bool operator==(const KaiShareQueue&) const = default;
};

// The fair share of each queue (in `queues`' order, which is also creation order) of `total`;
// `k_value` set: time-aware fairness, the queues' usage bending the over-quota rounds.
std::vector<double> kai_fair_shares(const std::vector<KaiShareQueue>& queues, double total,
                                    std::optional<double> k_value = std::nullopt);

}  // namespace topsim
