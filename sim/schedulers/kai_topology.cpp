// KAI Scheduler's topology-aware scheduling (NVIDIA KAI-Scheduler, docs/topology/README.md, and
// its topology plugin, pkg/scheduler/plugins/topology): a workload names a Topology (a list of
// node-label levels; here the cluster's fabric is the one Topology, whatever its name) and a
// required placement, a preferred placement, or both, as annotations:
//   kai.scheduler/topology: <topology name>
//   kai.scheduler/topology-required-placement: <level>   (a fabric level's name or node label)
//   kai.scheduler/topology-preferred-placement: <level>  (below the required one when both)
// The relevant levels run from the preferred level up to the required one (required alone: that
// level; preferred alone: up to the whole cluster). Domain selection (bin-packing, the README's
// "Scheduling Strategy"): the lowest relevant level with a domain whose nodes can take all of the
// job's pods (its allocatable pods, each node's count of the job's pods summed); among those the
// domain with the fewest allocatable pods, i.e. the highest requested-to-available ratio (the
// lower index on ties: KAI iterates a map). Node order inside it (pod locality): with a preferred
// level below the chosen domain, its sub-domains at the preferred level with the most allocatable
// pods first, each filled before the next (the README's example: a rack of 2 free GPUs, then one
// of 1); inside a sub-domain, and without a preferred level, KAI's default node placement
// (nodeplacement plugin, gpu: binpack): the node with the fewest free GPUs first, the lower index
// on ties. The NVIDIA device plugin's lowest free GPU ids on each node; host network, as with the
// other tier plug-ins. A job whose required level has no domain that takes it waits.
// Refused at submission (KAI leaves the job unschedulable): a placement without a topology, a
// topology without a placement, a level the fabric does not have, a preferred level that is not
// below the required one. Not modelled: segment (sub-group) constraints, a host level
// (kubernetes.io/hostname), a running job's pods pinning later pods to their domain (elastic
// growth), the other node-order plugins. Serves nodes labelled `default`.
#include <algorithm>
#include <tuple>
#include <vector>

#include "sim/schedulers/registry.h"
#include "sim/schedulers/support.h"
#include "sim/schedulers/tier_support.h"

namespace topsim {
namespace {

constexpr const char* kTopology = "kai.scheduler/topology";
constexpr const char* kRequired = "kai.scheduler/topology-required-placement";
constexpr const char* kPreferred = "kai.scheduler/topology-preferred-placement";

class KaiTopology final : public TierGangScheduler {
 public:
  using TierGangScheduler::TierGangScheduler;

 private:
  Expected<TierAsk> tier_ask(const SchedulingView& view, uint32_t job) const override {
    const auto* annotations = view.annotations(job);
    if (!annotations) return TierAsk{};
    const auto value = [&](const char* key) -> const std::string* {
      const auto it = annotations->find(key);
      return it == annotations->end() || it->second.empty() ? nullptr : &it->second;
    };
    const std::string* required = value(kRequired);
    const std::string* preferred = value(kPreferred);
    if (!value(kTopology)) {
      if (required || preferred)
        return Error{std::string(required ? kRequired : kPreferred) + ": needs " + kTopology +
                     " (the Topology whose levels it names)"};
      return TierAsk{};
    }
    if (!required && !preferred)
      return Error{std::string(kTopology) + ": needs " + kRequired + " or " + kPreferred + " (a level to place the job by)"};
    TierAsk ask;
    if (required) {
      const auto level = fabric_level_of(view.cluster(), kRequired, *required);
      if (!level) return level.error();
      ask.level = *level;
      ask.required = true;
    }
    if (preferred) {
      const auto level = fabric_level_of(view.cluster(), kPreferred, *preferred);
      if (!level) return level.error();
      if (required && *level >= ask.level)
        return Error{std::string(kPreferred) + ": '" + *preferred + "' is not below the required level '" + *required + "'"};
      ask.preferred = *level;
    }
    return ask;
  }

  std::string tier_wait(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    return no_domain_holds(view, job, ask.level, kRequired);
  }

  TierOrder node_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    const ClusterState& cluster = view.cluster();
    const int workers = view.job(job).workers;
    // Levels from the preferred one up; the whole cluster (-1) last when nothing is required.
    const int lowest = ask.preferred >= 0 ? ask.preferred : ask.level;
    const int highest = ask.required ? ask.level : cluster.fabric().level_count() - 1;
    std::vector<int> preferred_slots;  // the preferred level's, kept to gather the pods by
    for (int level = lowest; level >= 0 && level <= highest; ++level) {
      std::vector<int> slots = group_slots(view, job, level, kServing);
      int best = -1;
      for (size_t g = 0; g < slots.size(); ++g)
        if (slots[g] >= workers && (best < 0 || slots[g] < slots[static_cast<size_t>(best)])) best = static_cast<int>(g);
      if (best >= 0) return {nodes_in(view, job, ask, level, best, preferred_slots), {}};
      if (level == ask.preferred) preferred_slots = std::move(slots);
    }
    if (ask.required) return {};
    return {nodes_in(view, job, ask, -1, 0, preferred_slots), {}};  // the whole cluster; short when it cannot take them
  }

  // The nodes of group `group` of `level` (-1: the whole cluster) that can take a pod: by the
  // preferred level's sub-domains (most allocatable pods first, `preferred_slots` per sub-domain)
  // when it lies below `level`, then the fewest free GPUs first.
  static std::vector<int> nodes_in(const SchedulingView& view, uint32_t job, const TierAsk& ask, int level, int group,
                                   const std::vector<int>& preferred_slots) {
    const ClusterState& cluster = view.cluster();
    const int by = ask.preferred >= 0 && (level < 0 || ask.preferred < level) ? ask.preferred : -1;
    // (-sub-domain pods, sub-domain, free GPUs, node)
    std::vector<std::tuple<int, int, int, int>> keyed;
    for (int n = 0; n < cluster.node_count(); ++n) {
      if ((level >= 0 && cluster.fabric().group(level, n) != group) || pod_slots(view, job, n, kServing) == 0) continue;
      const int sub = by >= 0 ? cluster.fabric().group(by, n) : 0;
      const int sub_pods = by >= 0 ? preferred_slots[static_cast<size_t>(sub)] : 0;
      keyed.emplace_back(-sub_pods, sub, static_cast<int>(cluster.node(n).free.count()), n);
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<int> nodes;
    nodes.reserve(keyed.size());
    for (const auto& key : keyed) nodes.push_back(std::get<3>(key));
    return nodes;
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_kai_topology_scheduler(const SchedulerContext& context) {
  return std::make_unique<KaiTopology>(context);
}

}  // namespace topsim
