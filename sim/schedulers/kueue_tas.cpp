// Kueue's Topology Aware Scheduling (TAS), as documented for Kueue v0.14+
// (kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/): a gang admitted onto the fabric's
// topology domains by the pod-set annotations
//   kueue.x-k8s.io/podset-required-topology: <level>   all pods in one domain of that level, or wait;
//   kueue.x-k8s.io/podset-preferred-topology: <level>  one domain of that level if one fits, else
//     the levels above one by one, else spread over the top level's domains;
// no annotation: pods anywhere, the nodes with the least free capacity first (the
// LeastFreeCapacity profile Kueue uses for unconstrained pod sets since v0.15, TASProfileMixed).
// A level is named by the fabric level's name or its node label (Kueue's Topology levels are
// node labels). Domain choice, BestFit (Kueue's default for required/preferred placement):
// among the domains of the level that fit the whole pod set, the one with the fewest free pod
// slots; then, going down the levels inside it, each time the sub-domains with the most free
// slots first until the pods are covered (Kueue's greedy descent). Inside a node the NVIDIA
// device plugin gives the lowest free GPU ids; pods share their node's network (host network /
// RDMA, as TAS users run multi-node training), so across nodes the ring uses the NICs.
// Not modelled: ResourceFlavors and quotas (admission is immediate when the domain fits), pod-set
// slices and groups, balanced placement (alpha), node hot swap. Serves nodes labelled `default`.
#include <algorithm>
#include <numeric>

#include "sim/schedulers/registry.h"
#include "sim/schedulers/support.h"
#include "sim/schedulers/tier_support.h"

namespace topsim {
namespace {

constexpr const char* kRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr const char* kPreferred = "kueue.x-k8s.io/podset-preferred-topology";

class KueueTas final : public TierGangScheduler {
 public:
  using TierGangScheduler::TierGangScheduler;

 private:
  std::string required_wait(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    return "no " + view.cluster().fabric().level(ask.level).name + " has room for all " + std::to_string(view.job(job).workers) +
           " pods (" + kRequired + ")";
  }

  Expected<TierAsk> tier_ask(const SchedulingView& view, uint32_t job) const override {
    TierAsk ask;
    const auto* annotations = view.annotations(job);
    if (!annotations) return ask;
    for (const char* key : {kRequired, kPreferred}) {
      const auto it = annotations->find(key);
      if (it == annotations->end()) continue;
      const auto level = fabric_level_named(view.cluster(), it->second);
      if (!level)
        return Error{std::string(key) + ": '" + it->second + "' is not a level of the cluster's fabric (" +
                     fabric_level_list(view.cluster()) + ")"};
      ask = {*level, key == kRequired};
      break;
    }
    return ask;
  }

  // Nodes in the order pods go to them; pods that do not fit there leave the list short.
  std::vector<int> node_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    const ClusterState& cluster = view.cluster();
    const int workers = view.job(job).workers;
    std::vector<int> all(static_cast<size_t>(cluster.node_count()));
    std::iota(all.begin(), all.end(), 0);
    if (ask.level < 0) {  // LeastFreeCapacity: the fullest nodes with room first
      std::erase_if(all, [&](int n) { return pod_slots(view, job, n, kServing) == 0; });
      std::stable_sort(all.begin(), all.end(),
                       [&](int a, int b) { return pod_slots(view, job, a, kServing) < pod_slots(view, job, b, kServing); });
      return all;
    }
    const int top = ask.required ? ask.level : cluster.fabric().level_count() - 1;
    for (int level = ask.level; level <= top; ++level) {
      const std::vector<int> slots = group_slots(view, job, level, kServing);
      int best = -1;  // BestFit: the fitting domain with the fewest free slots
      for (int g = 0; g < static_cast<int>(slots.size()); ++g)
        if (slots[static_cast<size_t>(g)] >= workers &&
            (best < 0 || slots[static_cast<size_t>(g)] < slots[static_cast<size_t>(best)]))
          best = g;
      if (best >= 0) return descend(view, job, level, best);
    }
    if (ask.required) return {};
    return descend(view, job, cluster.fabric().level_count(), 0);  // spread over the top domains
  }

  // The nodes of domain `group` of `level` (level_count(): the whole cluster), level by level
  // down: the sub-domains with the most free slots first, nodes likewise.
  std::vector<int> descend(const SchedulingView& view, uint32_t job, int level, int group) const {
    const ClusterState& cluster = view.cluster();
    const Fabric& fabric = cluster.fabric();
    std::vector<int> nodes;
    for (int n = 0; n < cluster.node_count(); ++n)
      if ((level >= fabric.level_count() || fabric.group(level, n) == group) && pod_slots(view, job, n, kServing) > 0)
        nodes.push_back(n);
    std::vector<std::vector<int>> slots;  // per level below: free slots of each group
    for (int l = 0; l < std::min(level, fabric.level_count()); ++l) slots.push_back(group_slots(view, job, l, kServing));
    std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) {
      for (int l = static_cast<int>(slots.size()) - 1; l >= 0; --l) {  // from the level just below down
        const int ga = fabric.group(l, a), gb = fabric.group(l, b);
        if (ga == gb) continue;
        const int sa = slots[static_cast<size_t>(l)][static_cast<size_t>(ga)],
                  sb = slots[static_cast<size_t>(l)][static_cast<size_t>(gb)];
        return sa != sb ? sa > sb : ga < gb;
      }
      return pod_slots(view, job, a, kServing) > pod_slots(view, job, b, kServing);
    });
    return nodes;
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_kueue_tas_scheduler(const SchedulerContext& context) {
  return std::make_unique<KueueTas>(context);
}

}  // namespace topsim
