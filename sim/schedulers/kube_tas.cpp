// kube-scheduler's own topology-aware workload scheduling (Kubernetes v1.36, alpha, feature gates
// GenericWorkload and TopologyAwareWorkloadScheduling; KEP-5732 "Topology-aware workload
// scheduling", kubernetes/enhancements keps/sig-scheduling/5732-topology-aware-workload-scheduling,
// and kubernetes.io docs/concepts/scheduling-eviction/topology-aware-scheduling): a PodGroup with
// the gang policy (all of its pods, minCount = the job's workers) and one topology constraint,
// the node label its pods must share. The PodGroup's schedulingConstraints topology level is
// given here as the annotation
//   scheduling.k8s.io/topology-level: <level>   (a fabric level's name or node label)
// The PodGroup scheduling cycle, per the KEP's three phases:
// 1. Placements: one per distinct value of the label, i.e. per group of that fabric level
//    (TopologyPlacement); without the annotation the whole cluster is the one placement (plain
//    PodGroup gang scheduling, Kubernetes v1.35).
// 2. Feasibility: the default pod-by-pod algorithm on the placement's nodes. A placement is
//    feasible when all of the gang's pods fit; pods of one size fit when the nodes' free pod slots
//    add up to them, whichever node each goes to.
// 3. Scoring: NodeResourcesFit's placement score, MostAllocated over the placement's nodes with
//    the gang's pods on them (GPUs stand in for the pods' resources, as in the default scheduler:
//    requested x 100 / allocatable in integer arithmetic), plus PodGroupPodsCount, equal weights
//    (the docs' defaults); every feasible placement fits all pods, so the fullest placement wins,
//    the lower group index on equal scores (the KEP leaves ties open).
// The pods then go to the chosen placement's nodes as the pod-by-pod cycle put them: each to the
// node NodeResourcesFit LeastAllocated scores highest ((free - requested) x 100 / allocatable,
// so it spreads), the lower node index on equal scores (kube-scheduler draws at random; the lower
// index keeps the scored assignment), the NVIDIA device plugin's lowest free GPU ids on each.
// Pods share their node's network (host network / RDMA), as with the other tier plug-ins. A gang
// whose constraint no placement meets waits ("the entire PodGroup becomes unschedulable").
// Not modelled: the basic policy, minCount below the pod count, placement preemption (v1.36 has
// none), PercentageOfPlacementsToScore (beta), the other score plugins. Serves nodes labelled
// `default`.
#include <algorithm>
#include <vector>

#include "sim/schedulers/registry.h"
#include "sim/schedulers/support.h"
#include "sim/schedulers/tier_support.h"

namespace topsim {
namespace {

constexpr const char* kLevel = "scheduling.k8s.io/topology-level";

class KubeTas final : public TierGangScheduler {
 public:
  using TierGangScheduler::TierGangScheduler;

 private:
  Expected<TierAsk> tier_ask(const SchedulingView& view, uint32_t job) const override {
    const auto* annotations = view.annotations(job);
    if (!annotations || !annotations->count(kLevel)) return TierAsk{};
    const auto level = fabric_level_of(view.cluster(), kLevel, annotations->at(kLevel));
    if (!level) return level.error();
    return TierAsk{*level, true};
  }

  std::string tier_wait(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    return no_domain_holds(view, job, ask.level, kLevel);
  }

  TierOrder node_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    const ClusterState& cluster = view.cluster();
    const int workers = view.job(job).workers;
    const int pod_gpus = std::max(1, int{view.job(job).gpus_per_worker});
    // Per placement: its free pod slots, and its GPUs in use and in all (MostAllocated's terms).
    const int placements = ask.level < 0 ? 1 : cluster.fabric().group_count(ask.level);
    std::vector<int> slots(static_cast<size_t>(placements), 0);
    std::vector<int64_t> used(slots.size(), 0), total(slots.size(), 0);
    for (int n = 0; n < cluster.node_count(); ++n) {
      if (cluster.node(n).label != kServing) continue;
      const size_t p = ask.level < 0 ? 0 : static_cast<size_t>(cluster.fabric().group(ask.level, n));
      slots[p] += pod_slots(view, job, n, kServing);
      total[p] += cluster.gpus_per_node(n);
      used[p] += cluster.gpus_per_node(n) - static_cast<int64_t>(cluster.node(n).free.count());
    }
    int best = -1;
    int64_t best_score = -1;
    for (size_t p = 0; p < slots.size(); ++p) {
      if (slots[p] < workers) continue;
      const int64_t score = (used[p] + int64_t{workers} * pod_gpus) * 100 / total[p];
      if (score > best_score) best_score = score, best = static_cast<int>(p);
    }
    if (best < 0) return {};
    return spread_pods(view, job, ask.level, best);
  }

  // The pod-by-pod cycle on placement `placement` of `level` (-1: the whole cluster): each pod to
  // the LeastAllocated node with room. Its nodes in the order first chosen, with their pods.
  static TierOrder spread_pods(const SchedulingView& view, uint32_t job, int level, int placement) {
    const ClusterState& cluster = view.cluster();
    const int pod_gpus = std::max(1, int{view.job(job).gpus_per_worker});
    std::vector<int> nodes, free;
    for (int n = 0; n < cluster.node_count(); ++n)
      if ((level < 0 || cluster.fabric().group(level, n) == placement) && pod_slots(view, job, n, kServing) > 0) {
        nodes.push_back(n);
        free.push_back(static_cast<int>(cluster.node(n).free.count()));
      }
    TierOrder order;
    std::vector<int> taken(nodes.size(), 0);
    for (int pod = 0; pod < view.job(job).workers; ++pod) {
      size_t pick = nodes.size();
      int pick_score = -1;
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (free[i] < pod_gpus) continue;
        const int score = (free[i] - pod_gpus) * 100 / cluster.gpus_per_node(nodes[i]);
        if (score > pick_score) pick_score = score, pick = i;
      }
      if (pick == nodes.size()) return {};
      free[pick] -= pod_gpus;
      if (taken[pick]++ == 0) order.nodes.push_back(static_cast<int>(pick));
    }
    for (int& i : order.nodes) {
      order.caps.push_back(taken[static_cast<size_t>(i)]);
      i = nodes[static_cast<size_t>(i)];
    }
    return order;
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_kube_tas_scheduler(const SchedulerContext& context) { return std::make_unique<KubeTas>(context); }

}  // namespace topsim
