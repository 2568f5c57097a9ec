#include "sim/schedulers/registry.h"

#include "sim/schedulers/share_policy_scheduler.h"

#include "util/enum_names.h"
#include "util/text.h"

namespace topsim {
namespace {

constexpr unsigned kSharePolicyHandles = kHandlesPods | kHandlesShares | kHandlesTracePods;

const std::vector<SchedulerInfo> kRegistry = {
    {"topology-aware",
     "gang all-or-nothing; the GPU set with the best predicted ring bandwidth; fewest nodes; host IPC, so pods of a node use "
     "NVLink",
     kHandlesGangs, NodeMode::Topology, "sim/schedulers/topology_aware.cpp", make_topology_aware_scheduler, std::nullopt},
    {"default",
     "kube-scheduler LeastAllocated (spreads) + NVIDIA device plugin GPU ids; pods one at a time, no gang; pods talk over "
     "sockets",
     kHandlesPods, NodeMode::Default, "sim/schedulers/kube_default.cpp", make_kube_default_scheduler, std::nullopt},
    {"binpack",
     "Volcano-style: gang all-or-nothing, most-allocated node first, lowest free GPU ids (topology-blind); shares on the fullest "
     "card",
     kHandlesGangs | kHandlesShares | kHandlesTracePods, NodeMode::Default, "sim/schedulers/binpack.cpp", make_binpack_scheduler,
     SharePolicyKind::Binpack},
    {"kueue-tas",
     "Kueue Topology Aware Scheduling: podset-required/preferred-topology levels, pod-set slices in up to 3 layers, BestFit "
     "domains; "
     "device-plugin GPU ids; host network",
     kHandlesGangs, NodeMode::Default, "sim/schedulers/kueue_tas.cpp", make_kueue_tas_scheduler, std::nullopt},
    {"volcano-topology",
     "Volcano network-topology-aware: HyperNode tiers (hard/soft, highestTierAllowed or highestTierName), partitions, "
     "most-used HyperNode, binpack nodes; host network",
     kHandlesGangs, NodeMode::Default, "sim/schedulers/volcano_topology.cpp", make_volcano_topology_scheduler, std::nullopt},
    {"kube-tas",
     "kube-scheduler topology-aware workload scheduling (Kubernetes v1.36 alpha): a gang in one domain of its topology level, "
     "the fullest that fits (MostAllocated), pods spread inside it (LeastAllocated); host network",
     kHandlesGangs, NodeMode::Default, "sim/schedulers/kube_tas.cpp", make_kube_tas_scheduler, std::nullopt},
    {"kai-topology",
     "KAI Scheduler topology-aware scheduling: required/preferred placement levels, the domain with the fewest allocatable "
     "pods at the lowest level that holds the gang, pods gathered by preferred sub-domain, binpack nodes; host network",
     kHandlesGangs, NodeMode::Default, "sim/schedulers/kai_topology.cpp", make_kai_topology_scheduler, std::nullopt},
    {"spread", "gpushare spread: the card, then the node, with the most free share", kSharePolicyHandles, NodeMode::Default,
     "core/share_policies/spread.cpp", make_share_policy_scheduler<SharePolicyKind::Spread>, SharePolicyKind::Spread},
    {"best-fit", "FGD baseline: the least weighted CPU + GPU leftover (0.5 / 0.5), then the fullest card", kSharePolicyHandles,
     NodeMode::Default, "core/share_policies/best_fit.cpp", make_share_policy_scheduler<SharePolicyKind::BestFit>,
     SharePolicyKind::BestFit},
    {"dot-product", "FGD baseline (Tetris): the best alignment of request and free CPU / GPU, then the fullest card",
     kSharePolicyHandles, NodeMode::Default, "core/share_policies/dot_product.cpp",
     make_share_policy_scheduler<SharePolicyKind::DotProduct>, SharePolicyKind::DotProduct},
    {"gpu-packing", "FGD baseline: a shared card first, then an idle card on a used node, then an idle node", kSharePolicyHandles,
     NodeMode::Default, "core/share_policies/gpu_packing.cpp", make_share_policy_scheduler<SharePolicyKind::GpuPacking>,
     SharePolicyKind::GpuPacking},
    {"gpu-clustering", "FGD baseline: cards whose pods ask the same share first, then idle cards", kSharePolicyHandles,
     NodeMode::Default, "core/share_policies/gpu_clustering.cpp", make_share_policy_scheduler<SharePolicyKind::GpuClustering>,
     SharePolicyKind::GpuClustering},
    {"random", "FGD baseline: a uniformly drawn fitting node and card (seeded)", kSharePolicyHandles, NodeMode::Default,
     "core/share_policies/random.cpp", make_share_policy_scheduler<SharePolicyKind::Random>, SharePolicyKind::Random},
    {"fgd", "FGD (USENIX ATC '23): the node and card where the cluster's fragmentation grows least", kSharePolicyHandles,
     NodeMode::Default, "core/share_policies/fgd.cpp", make_share_policy_scheduler<SharePolicyKind::Fgd>, SharePolicyKind::Fgd},
    {"fgd-pack", "topsim's: FGD's growth as the artifact's integer score; ties: shared card, used node, idle node, then seeded",
     kSharePolicyHandles, NodeMode::Default, "core/share_policies/fgd_pack.cpp",
     make_share_policy_scheduler<SharePolicyKind::FgdPack>, SharePolicyKind::FgdPack},
};

}  // namespace

std::vector<std::string> handles_names(unsigned handles) {
  std::vector<std::string> names;
  for (const SchedulerHandles bit : enum_values<SchedulerHandles>())
    if (handles & bit) names.emplace_back(enum_name(bit));
  return names;
}

std::string handles_text(unsigned handles) { return join(handles_names(handles), ", "); }

const std::vector<SchedulerInfo>& scheduler_registry() { return kRegistry; }

const SchedulerInfo* find_scheduler(std::string_view name) {
  for (const SchedulerInfo& info : kRegistry)
    if (info.name == name) return &info;
  return nullptr;
}

std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (const SchedulerInfo& info : kRegistry) names.emplace_back(info.name);
  return names;
}

}  // namespace topsim
