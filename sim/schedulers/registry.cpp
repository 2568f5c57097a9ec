#include "sim/schedulers/registry.h"

#include "util/enum_names.h"
#include "util/text.h"

namespace topsim {
namespace {

constexpr unsigned kSharePolicyHandles = kHandlesPods | kHandlesShares | kHandlesTracePods;

const std::vector<SchedulerInfo> kRegistry = {
    {"topology-aware",
     "gang all-or-nothing; the GPU set with the best predicted ring bandwidth; fewest nodes; host IPC, so pods of a node use "
     "NVLink",
     kHandlesGangs, NodeMode::Topology, "sim/schedulers/topology_aware.cpp", make_topology_aware_scheduler},
    {"default",
     "kube-scheduler LeastAllocated (spreads) + NVIDIA device plugin GPU ids; pods one at a time, no gang; pods talk over "
     "sockets",
     kHandlesPods, NodeMode::Default, "sim/schedulers/kube_default.cpp", make_kube_default_scheduler},
    {"binpack",
     "Volcano-style: gang all-or-nothing, most-allocated node first, lowest free GPU ids (topology-blind); shares on the fullest "
     "card",
     kHandlesGangs | kHandlesShares | kHandlesTracePods, NodeMode::Default, "sim/schedulers/binpack.cpp", make_binpack_scheduler},
    {"spread", "gpushare spread: the card, then the node, with the most free share", kSharePolicyHandles, NodeMode::Default,
     "sim/schedulers/spread.cpp", make_spread_scheduler},
    {"best-fit", "FGD baseline: the least weighted CPU + GPU leftover (0.5 / 0.5), then the fullest card", kSharePolicyHandles,
     NodeMode::Default, "sim/schedulers/best_fit.cpp", make_best_fit_scheduler},
    {"dot-product", "FGD baseline (Tetris): the best alignment of request and free CPU / GPU, then the fullest card",
     kSharePolicyHandles, NodeMode::Default, "sim/schedulers/dot_product.cpp", make_dot_product_scheduler},
    {"gpu-packing", "FGD baseline: a shared card first, then an idle card on a used node, then an idle node", kSharePolicyHandles,
     NodeMode::Default, "sim/schedulers/gpu_packing.cpp", make_gpu_packing_scheduler},
    {"gpu-clustering", "FGD baseline: cards whose pods ask the same share first, then idle cards", kSharePolicyHandles,
     NodeMode::Default, "sim/schedulers/gpu_clustering.cpp", make_gpu_clustering_scheduler},
    {"random", "FGD baseline: a uniformly drawn fitting node and card (seeded)", kSharePolicyHandles, NodeMode::Default,
     "sim/schedulers/random.cpp", make_random_scheduler},
    {"fgd", "FGD (USENIX ATC '23): the node and card where the cluster's fragmentation grows least", kSharePolicyHandles,
     NodeMode::Default, "sim/schedulers/fgd.cpp", make_fgd_scheduler},
    {"fgd-pack", "topsim's: FGD's growth as the artifact's integer score; ties: shared card, used node, idle node, then seeded",
     kSharePolicyHandles, NodeMode::Default, "sim/schedulers/fgd_pack.cpp", make_fgd_pack_scheduler},
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
