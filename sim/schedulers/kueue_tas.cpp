// Kueue's Topology Aware Scheduling (TAS), as documented for Kueue v0.14+
// (kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/): a gang admitted onto the fabric's
// topology domains by the pod-set annotations
//   kueue.x-k8s.io/podset-required-topology: <level>   all pods in one domain of that level, or wait;
//   kueue.x-k8s.io/podset-preferred-topology: <level>  one domain of that level if one fits, else
//     the levels above one by one, else spread over the top level's domains;
//   kueue.x-k8s.io/podset-slice-required-topology: <level> with
//   kueue.x-k8s.io/podset-slice-size: <pods>           the pods in slices of that many, each slice
//     inside one domain of that level (at or below the pod set's level; alone: preferred at the
//     top level), as Kueue's KEP-2724 "PodSet slices" (v0.13+): a domain's room counts whole
//     slices only;
//   kueue.x-k8s.io/podset-slice-required-topology-constraints: [{"topology": <level>, "size": <pods>}, ...]
//     the same in up to three layers, outermost first (TASMultiLayerTopology, Kueue v0.18+; e.g.
//     slices of 32 pods in a block, each made of slices of 16 in a rack): every domain of an inner
//     layer's level, and of the levels between it and the layer above, counts whole slices of
//     that layer only (Kueue's fillInCounts / buildSliceSizeAtLevel);
// no annotation: pods anywhere, the nodes with the least free capacity first (the
// LeastFreeCapacity profile Kueue uses for unconstrained pod sets since v0.15, TASProfileMixed).
// A level is named by the fabric level's name or its node label (Kueue's Topology levels are
// node labels). Domain choice, BestFit (Kueue's default for required/preferred placement):
// among the domains of the level that fit the whole pod set, the one with the fewest free pod
// slots (slices); then, going down the levels inside it, each time the sub-domains with the most
// free slots (slices, down to the slice level) first until the pods are covered (Kueue's greedy
// descent). Inside a node the NVIDIA device plugin gives the lowest free GPU ids; pods share
// their node's network (host network / RDMA, as TAS users run multi-node training), so across
// nodes the ring uses the NICs. Not modelled: ResourceFlavors and quotas (admission is immediate
// when the domain fits), pod-set groups, balanced placement (alpha), node
// hot swap. Serves nodes labelled `default`.
#include <algorithm>
#include <numeric>

#include "sim/schedulers/registry.h"
#include "sim/schedulers/slice_layers.h"
#include "sim/schedulers/support.h"
#include "sim/schedulers/tier_support.h"

namespace topsim {
namespace {

constexpr const char* kRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr const char* kPreferred = "kueue.x-k8s.io/podset-preferred-topology";
constexpr const char* kSliceRequired = "kueue.x-k8s.io/podset-slice-required-topology";
constexpr const char* kSliceSize = "kueue.x-k8s.io/podset-slice-size";
constexpr const char* kSliceLayers = "kueue.x-k8s.io/podset-slice-required-topology-constraints";

class KueueTas final : public TierGangScheduler {
 public:
  using TierGangScheduler::TierGangScheduler;

 private:
  std::string tier_wait(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    const Fabric& fabric = view.cluster().fabric();
    const int workers = view.job(job).workers;
    if (ask.slice_level < 0)
      return "no " + fabric.level(ask.level).name + " has room for all " + std::to_string(workers) + " pods (" + kRequired + ")";
    const int count = workers / ask.slice_size;
    std::string slices = std::to_string(count) + (count == 1 ? " slice of " : " slices of ") + std::to_string(ask.slice_size) +
                         " pods, each within one " + fabric.level(ask.slice_level).name;
    for (const TierAsk::Layer& layer : ask.inner)
      slices += ", in slices of " + std::to_string(layer.size) + " within one " + fabric.level(layer.level).name;
    slices += std::string(" (") +
              (ask.inner.empty() && !view.annotations(job)->count(kSliceLayers) ? kSliceRequired : kSliceLayers) + ")";
    if (ask.required) return "no " + fabric.level(ask.level).name + " has room for its " + slices;
    // Preferred: the whole cluster's room in slices holds it back when its pods would fit.
    const SliceRoom room = slice_room(view, job, ask, kServing);
    if (room.pods < workers) return "";
    return "room for " + std::to_string(room.slices) + " of its " + slices;
  }

  Expected<TierAsk> tier_ask(const SchedulingView& view, uint32_t job) const override {
    TierAsk ask;
    const auto* annotations = view.annotations(job);
    if (!annotations) return ask;
    auto level_of = [&](const char* key) -> Expected<int> {
      const std::string& name = annotations->at(key);
      const auto level = fabric_level_named(view.cluster(), name);
      if (!level)
        return Error{std::string(key) + ": '" + name + "' is not a level of the cluster's fabric (" +
                     fabric_level_list(view.cluster()) + ")"};
      return *level;
    };
    for (const char* key : {kRequired, kPreferred}) {
      if (!annotations->count(key)) continue;
      auto level = level_of(key);
      if (!level) return level.error();
      ask = {*level, key == kRequired};
      break;
    }
    if (annotations->count(kSliceLayers)) {
      for (const char* key : {kSliceRequired, kSliceSize})
        if (annotations->count(key)) return Error{std::string(kSliceLayers) + ": may not be set with " + key};
      return with_layers(view, job, ask);
    }
    const bool sliced = annotations->count(kSliceRequired) > 0;
    if (!sliced) {
      if (annotations->count(kSliceSize)) return Error{std::string(kSliceSize) + ": may not be set without " + kSliceRequired};
      return ask;
    }
    const auto size = annotations->find(kSliceSize);
    if (size == annotations->end()) return Error{std::string(kSliceSize) + ": must be set with " + kSliceRequired};
    auto slice_level = level_of(kSliceRequired);
    if (!slice_level) return slice_level.error();
    // KEP-2724: the slice size has to divide the pod set.
    auto pods = slice_size_of(kSliceSize, size->second, view.job(job).workers, "the pod set's");
    if (!pods) return pods.error();
    return with_slices(view, ask, *slice_level, *pods,
                       std::string(kSliceRequired) + ": '" + annotations->at(kSliceRequired) + "'");
  }

  // The ask with its outer slice layer; `named`: the slice level as the annotation names it.
  static Expected<TierAsk> with_slices(const SchedulingView& view, TierAsk ask, int slice_level, int size,
                                       const std::string& named) {
    if (ask.level < 0) ask = {view.cluster().fabric().level_count() - 1, false};  // slices alone: preferred at the top
    if (slice_level > ask.level)
      return Error{named + " is above the pod set's level '" + view.cluster().fabric().level(ask.level).name + "'"};
    ask.slice_level = slice_level;
    ask.slice_size = size;
    return ask;
  }

  // Multi-layer slices (TASMultiLayerTopology): what Kueue's webhook refuses
  // (pkg/controller/jobframework/tas_validation.go: 1 to 3 layers, sizes >= 1, no level twice,
  // each size dividing the one before, the outermost within the pod set) and its scheduler
  // (tas_flavor_snapshot.go buildSliceSizeAtLevel: each layer at a lower level than the one
  // before), refused at submission; the outermost size also divides the pod set (KEP-2724).
  static Expected<TierAsk> with_layers(const SchedulingView& view, uint32_t job, const TierAsk& ask) {
    const std::string key = kSliceLayers;
    auto layers = parse_slice_constraints(view.annotations(job)->at(kSliceLayers));
    if (!layers) return Error{key + ": " + layers.error().message};
    if (layers->empty() || layers->size() > 3) return Error{key + ": 1 to 3 layers, not " + std::to_string(layers->size())};
    std::vector<int> levels;
    for (size_t i = 0; i < layers->size(); ++i) {
      const SliceConstraint& layer = (*layers)[i];
      const std::string at = key + "[" + std::to_string(i) + "]";
      if (layer.size < 1) return Error{at + ".size: " + std::to_string(layer.size) + " is not a number of pods of at least 1"};
      for (size_t j = 0; j < i; ++j)
        if ((*layers)[j].topology == layer.topology)
          return Error{at + ".topology: '" + layer.topology + "' is also layer " + std::to_string(j)};
      if (i > 0 && (*layers)[i - 1].size % layer.size != 0)
        return Error{at + ".size: " + std::to_string(layer.size) + " does not divide the layer above's " +
                     std::to_string((*layers)[i - 1].size)};
      const auto level = fabric_level_named(view.cluster(), layer.topology);
      if (!level)
        return Error{at + ".topology: '" + layer.topology + "' is not a level of the cluster's fabric (" +
                     fabric_level_list(view.cluster()) + ")"};
      if (i > 0 && *level >= levels.back())
        return Error{at + ".topology: '" + layer.topology + "' is not below the layer above's '" + (*layers)[i - 1].topology +
                     "'"};
      levels.push_back(*level);
    }
    auto pods =
        slice_size_of((key + "[0].size").c_str(), std::to_string(layers->front().size), view.job(job).workers, "the pod set's");
    if (!pods) return pods.error();
    auto sliced = with_slices(view, ask, levels.front(), *pods, key + "[0].topology: '" + layers->front().topology + "'");
    if (!sliced) return sliced;
    for (size_t i = 1; i < layers->size(); ++i) sliced->inner.push_back({levels[i], (*layers)[i].size});
    return sliced;
  }

  // Nodes in the order pods go to them; pods that do not fit there leave the list short.
  TierOrder node_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    const ClusterState& cluster = view.cluster();
    const int workers = view.job(job).workers;
    std::vector<int> all(static_cast<size_t>(cluster.node_count()));
    std::iota(all.begin(), all.end(), 0);
    if (ask.level < 0) {  // LeastFreeCapacity: the fullest nodes with room first
      std::erase_if(all, [&](int n) { return pod_slots(view, job, n, kServing) == 0; });
      std::stable_sort(all.begin(), all.end(),
                       [&](int a, int b) { return pod_slots(view, job, a, kServing) < pod_slots(view, job, b, kServing); });
      return {std::move(all), {}};
    }
    const int top = ask.required ? ask.level : cluster.fabric().level_count() - 1;
    const int needed = workers / ask.slice_size;  // pods, or slices
    for (int level = ask.level; level <= top; ++level) {
      const std::vector<int> units = group_units(view, job, ask, level, kServing);
      int best = -1;  // BestFit: the fitting domain with the least free room
      for (int g = 0; g < static_cast<int>(units.size()); ++g)
        if (units[static_cast<size_t>(g)] >= needed &&
            (best < 0 || units[static_cast<size_t>(g)] < units[static_cast<size_t>(best)]))
          best = g;
      if (best >= 0) return sliced(view, job, ask, descend(view, job, ask, level, best));
    }
    if (ask.required) return {};
    return sliced(view, job, ask, descend(view, job, ask, cluster.fabric().level_count(), 0));  // over the top domains
  }

  static TierOrder sliced(const SchedulingView& view, uint32_t job, const TierAsk& ask, std::vector<int> nodes) {
    std::vector<int> caps = slice_caps(view, job, ask, nodes, kServing);
    return {std::move(nodes), std::move(caps)};
  }

  // The nodes of domain `group` of `level` (level_count(): the whole cluster), level by level
  // down: the sub-domains with the most free room (group_units) first, nodes with the most free
  // slots likewise.
  std::vector<int> descend(const SchedulingView& view, uint32_t job, const TierAsk& ask, int level, int group) const {
    const ClusterState& cluster = view.cluster();
    const Fabric& fabric = cluster.fabric();
    std::vector<int> nodes;
    for (int n = 0; n < cluster.node_count(); ++n)
      if ((level >= fabric.level_count() || fabric.group(level, n) == group) && pod_slots(view, job, n, kServing) > 0)
        nodes.push_back(n);
    std::vector<std::vector<int>> slots;  // per level below: free room of each group
    for (int l = 0; l < std::min(level, fabric.level_count()); ++l) slots.push_back(group_units(view, job, ask, l, kServing));
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
