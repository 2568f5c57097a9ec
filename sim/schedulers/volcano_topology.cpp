// Volcano's network-topology-aware scheduling (volcano.sh/en/docs/network_topology_aware_scheduling/,
// Volcano v1.11+): HyperNodes are the fabric's groups, tier 1 the lowest level (tier t = level
// t - 1). A job's spec.networkTopology, given here as the annotations
//   volcano.sh/network-topology-mode: hard | soft
//   volcano.sh/network-topology-highest-tier-allowed: <tier>   (hard mode; default 1)
// hard: all pods inside one HyperNode of tier <= highestTierAllowed, or the job stays pending;
// soft: one HyperNode if one fits, else anywhere. The network-topology-aware plugin's HyperNode
// bin-packing prefers the lowest tier (its `fading` weight < 1 favours lower tiers) and, within
// a tier, the HyperNode already most used (GPUs in use / GPUs, then the lower index); inside it
// Volcano's binpack node order (most allocated node first, lower index on ties) and the NVIDIA
// device plugin's lowest free GPU ids, all pods of the gang at once. Pods share their node's
// network (host network / RDMA), so across nodes the ring uses the NICs. Without the annotations
// the job is gang-placed by binpack over the whole cluster. Not modelled: partition policies
// (sub-group constraints), HyperNode discovery, preemption. Serves nodes labelled `default`.
#include <algorithm>
#include <numeric>

#include "sim/schedulers/registry.h"
#include "sim/schedulers/support.h"
#include "sim/schedulers/tier_support.h"

namespace topsim {
namespace {

constexpr const char* kMode = "volcano.sh/network-topology-mode";
constexpr const char* kHighestTier = "volcano.sh/network-topology-highest-tier-allowed";

class VolcanoTopology final : public TierGangScheduler {
 public:
  using TierGangScheduler::TierGangScheduler;

 private:
  std::string tier_wait(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    return "no HyperNode of tier <= " + std::to_string(ask.level + 1) + " (" + view.cluster().fabric().level(ask.level).name +
           ") has room for all " + std::to_string(view.job(job).workers) + " pods (" + kMode + ": hard)";
  }

  Expected<TierAsk> tier_ask(const SchedulingView& view, uint32_t job) const override {
    TierAsk ask;
    const auto* annotations = view.annotations(job);
    if (!annotations || !annotations->count(kMode)) return ask;
    const std::string& mode = annotations->at(kMode);
    if (mode != "hard" && mode != "soft") return Error{std::string(kMode) + ": '" + mode + "' is not one of hard, soft"};
    const int levels = view.cluster().fabric().level_count();
    if (levels == 0) return Error{std::string(kMode) + ": the cluster has no fabric levels (HyperNode tiers) to place by"};
    int tier = mode == "hard" ? 1 : levels;
    if (const auto it = annotations->find(kHighestTier); it != annotations->end()) {
      const std::string& text = it->second;
      const bool digits = !text.empty() && text.size() < 4 && std::all_of(text.begin(), text.end(), ::isdigit);
      tier = digits ? std::stoi(text) : 0;
      if (tier < 1 || tier > levels)
        return Error{std::string(kHighestTier) + ": '" + text + "' is not a tier of the fabric (1 .. " + std::to_string(levels) +
                     ": " + fabric_level_list(view.cluster()) + ")"};
    }
    ask.level = tier - 1;
    ask.required = mode == "hard";
    return ask;
  }

  // GPUs in use / GPUs of each group of `level` (of the serving nodes).
  static std::vector<double> group_used(const ClusterState& cluster, int level) {
    std::vector<double> used(static_cast<size_t>(cluster.fabric().group_count(level)), 0), total(used.size(), 0);
    for (int n = 0; n < cluster.node_count(); ++n) {
      const size_t g = static_cast<size_t>(cluster.fabric().group(level, n));
      used[g] += cluster.gpus_per_node(n) - static_cast<double>(cluster.node(n).free.count());
      total[g] += cluster.gpus_per_node(n);
    }
    for (size_t g = 0; g < used.size(); ++g) used[g] = total[g] > 0 ? used[g] / total[g] : 0;
    return used;
  }

  std::vector<int> node_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    const ClusterState& cluster = view.cluster();
    const int workers = view.job(job).workers;
    for (int level = 0; level <= ask.level; ++level) {  // lower tiers first
      const std::vector<int> slots = group_slots(view, job, level, kServing);
      const std::vector<double> used = group_used(cluster, level);
      int best = -1;
      for (int g = 0; g < static_cast<int>(slots.size()); ++g)
        if (slots[static_cast<size_t>(g)] >= workers &&
            (best < 0 || used[static_cast<size_t>(g)] > used[static_cast<size_t>(best)]))
          best = g;
      if (best >= 0) return binpacked(view, job, [&](int n) { return cluster.fabric().group(level, n) == best; });
    }
    if (ask.required) return {};
    return binpacked(view, job, [](int) { return true; });
  }

  // Nodes with room in scope, most allocated first (Volcano's binpack), then the lower index.
  template <class InScope>
  static std::vector<int> binpacked(const SchedulingView& view, uint32_t job, InScope in_scope) {
    const ClusterState& cluster = view.cluster();
    std::vector<int> nodes;
    for (int n = 0; n < cluster.node_count(); ++n)
      if (in_scope(n) && pod_slots(view, job, n, kServing) > 0) nodes.push_back(n);
    auto used = [&](int n) { return 1.0 - static_cast<double>(cluster.node(n).free.count()) / cluster.gpus_per_node(n); };
    std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return used(a) > used(b); });
    return nodes;
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_volcano_topology_scheduler(const SchedulerContext& context) {
  return std::make_unique<VolcanoTopology>(context);
}

}  // namespace topsim
