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
// free slots (slices, down to the slice level) first until the pods are covered, the last one
// the smallest that holds the rest (Kueue's descent, Descent below). Inside a node the NVIDIA
// device plugin gives the lowest free GPU ids; pods share their node's network (host network /
// RDMA, as TAS users run multi-node training), so across nodes the ring uses the NICs. Not
// modelled: ResourceFlavors and quotas (admission is immediate when the domain fits), pod-set
// groups and leader pods, balanced placement (alpha), node affinity scores, node hot swap.
// Serves nodes labelled `default`.
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
    if (ask.slice_level < 0) return no_domain_holds(view, job, ask.level, kRequired);
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
    for (const char* key : {kRequired, kPreferred}) {
      if (!annotations->count(key)) continue;
      const auto level = fabric_level_of(view.cluster(), key, annotations->at(key));
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
    const auto slice_level = fabric_level_of(view.cluster(), kSliceRequired, annotations->at(kSliceRequired));
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
      const auto level = fabric_level_of(view.cluster(), at + ".topology", layer.topology);
      if (!level) return level.error();
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

  // Nodes in the order pods go to them, with the pods each takes; empty when they do not hold it.
  TierOrder node_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    const ClusterState& cluster = view.cluster();
    const int workers = view.job(job).workers;
    if (ask.level < 0) {  // LeastFreeCapacity: the fullest nodes with room first
      std::vector<int> all(static_cast<size_t>(cluster.node_count()));
      std::iota(all.begin(), all.end(), 0);
      std::erase_if(all, [&](int n) { return pod_slots(view, job, n, kServing) == 0; });
      std::stable_sort(all.begin(), all.end(),
                       [&](int a, int b) { return pod_slots(view, job, a, kServing) < pod_slots(view, job, b, kServing); });
      return {std::move(all), {}};
    }
    const Descent descent(view, job, ask);
    const int top = ask.required ? ask.level : cluster.fabric().level_count() - 1;
    const int needed = workers / ask.slice_size;  // pods, or slices
    for (int level = ask.level; level <= top; ++level) {
      // BestFit (Kueue's findBestFitDomainForSlices): one domain when the roomiest holds it, the
      // smallest that does.
      std::vector<Share> fit = descent.distribute(descent.domains_of(level), needed);
      if (fit.size() == 1 && fit.front().second == needed) return descent.down(std::move(fit));
    }
    if (ask.required) return {};
    // None holds it: the top level's domains, as many as it takes.
    return descent.down(descent.distribute(descent.domains_of(cluster.fabric().level_count() - 1), needed));
  }

  // A domain of the descent: group `group` of fabric level `level`, or node `group` (level -1).
  struct Domain {
    int level;
    int group;
  };
  using Share = std::pair<Domain, int>;  // a domain and the units it takes

  // Kueue's descent (kubernetes-sigs/kueue pkg/cache/scheduler/tas_flavor_snapshot.go,
  // findTopologyAssignment and updateCountsToMinimumGeneric): level by level down from the chosen
  // domain, the domains below take the count, those with the most free room first (then the
  // fewest free pods, then by index), the last one being the smallest that holds the rest
  // (BestFit). Above the slice level (all levels without slices) the sub-domains of all chosen
  // domains are pooled and take the count in slices (pods); from the slice level down each
  // domain's pods go to its own sub-domains, in whole slices of the inner layer at their level.
  class Descent {
   public:
    Descent(const SchedulingView& view, uint32_t job, const TierAsk& ask) : fabric_(view.cluster().fabric()), ask_(ask) {
      const int levels = fabric_.level_count();
      for (int n = 0; n < view.cluster().node_count(); ++n) slots_.push_back(pod_slots(view, job, n, kServing));
      std::vector<std::vector<int>> rooms =
          ask.slice_level >= 0 ? layer_rooms(view, job, ask, kServing) : std::vector<std::vector<int>>{};
      for (int l = 0; l < levels; ++l) {
        pods_.push_back(l < static_cast<int>(rooms.size()) ? std::move(rooms[static_cast<size_t>(l)])
                                                           : group_slots(view, job, l, kServing));
        children_.emplace_back(static_cast<size_t>(fabric_.group_count(l)));
      }
      for (int n = 0; n < view.cluster().node_count(); ++n) {
        if (slots_[static_cast<size_t>(n)] == 0) continue;
        for (int l = 0; l < levels; ++l) {
          std::vector<int>& under = children_[static_cast<size_t>(l)][static_cast<size_t>(fabric_.group(l, n))];
          const int child = l == 0 ? n : fabric_.group(l - 1, n);
          if (under.empty() || under.back() != child) under.push_back(child);  // nodes come in order within groups
        }
      }
      for (auto& level : children_)
        for (std::vector<int>& under : level) {
          std::sort(under.begin(), under.end());
          under.erase(std::unique(under.begin(), under.end()), under.end());
        }
      // Whole slices: a slice-level domain's pods / slice size, summed up the levels above.
      slices_.resize(static_cast<size_t>(levels));
      for (int l = std::max(ask.slice_level, 0); ask.slice_level >= 0 && l < levels; ++l) {
        std::vector<int>& whole = slices_[static_cast<size_t>(l)];
        whole.assign(static_cast<size_t>(fabric_.group_count(l)), 0);
        for (int g = 0; g < fabric_.group_count(l); ++g)
          if (l == ask.slice_level) {
            whole[static_cast<size_t>(g)] = pods_[static_cast<size_t>(l)][static_cast<size_t>(g)] / ask.slice_size;
          } else {
            for (int child : children_[static_cast<size_t>(l)][static_cast<size_t>(g)])
              whole[static_cast<size_t>(g)] += slices_[static_cast<size_t>(l - 1)][static_cast<size_t>(child)];
          }
      }
    }

    // Pods per unit of a count at `level`: the slice size at and above the slice level, the inner
    // layer's size below it (1 without slices and on nodes).
    int unit_at(int level) const {
      if (ask_.slice_level < 0 || level < 0) return 1;
      return level >= ask_.slice_level ? ask_.slice_size : layer_size_at(ask_, level);
    }
    // Free room of `d` in units of its level.
    int units(Domain d) const {
      if (d.level < 0) return slots_[static_cast<size_t>(d.group)];
      if (ask_.slice_level >= 0 && d.level >= ask_.slice_level)
        return slices_[static_cast<size_t>(d.level)][static_cast<size_t>(d.group)];
      return pods_of(d) / unit_at(d.level);
    }

    // The groups of `level`.
    std::vector<Domain> domains_of(int level) const {
      std::vector<Domain> all;
      for (int g = 0; g < fabric_.group_count(level); ++g) all.push_back({level, g});
      return all;
    }

    // `count` units over `domains`: the most room first, the last the smallest that holds the
    // rest; fewer units than `count` when they do not hold it.
    std::vector<Share> distribute(std::vector<Domain> domains, int count) const {
      std::stable_sort(domains.begin(), domains.end(), [&](Domain a, Domain b) {
        if (units(a) != units(b)) return units(a) > units(b);
        if (pods_of(a) != pods_of(b)) return pods_of(a) < pods_of(b);
        return a.group < b.group;
      });
      std::vector<Share> taken;
      for (size_t i = 0; i < domains.size() && count > 0; ++i) {
        Domain d = domains[i];
        if (units(d) >= count) {
          for (size_t j = i + 1; j < domains.size(); ++j)
            if (units(domains[j]) >= count && units(domains[j]) < units(d)) d = domains[j];
          taken.push_back({d, count});
          return taken;
        }
        if (units(d) > 0) taken.push_back({d, units(d)});
        count -= units(d);
      }
      return taken;
    }

    // The nodes under `shares`, with the pods each takes; empty when they do not hold the count.
    TierOrder down(std::vector<Share> shares) const {
      int level = shares.empty() ? -1 : shares.front().first.level;
      for (; level >= 0; --level) {
        const int below = level - 1;
        std::vector<Share> next;
        if (ask_.slice_level < 0 || below >= ask_.slice_level) {  // pooled, in the same units
          std::vector<Domain> pool;
          int count = 0;
          for (const auto& [d, units] : shares) {
            for (int child : children_[static_cast<size_t>(d.level)][static_cast<size_t>(d.group)])
              pool.push_back({below, child});
            count += units;
          }
          next = distribute(std::move(pool), count);
          if (total(next) != count) return {};
        } else {  // each domain's pods to its own sub-domains
          for (const auto& [d, units] : shares) {
            std::vector<Domain> under;
            for (int child : children_[static_cast<size_t>(d.level)][static_cast<size_t>(d.group)])
              under.push_back({below, child});
            const int count = units * unit_at(level) / unit_at(below);
            std::vector<Share> part = distribute(std::move(under), count);
            if (total(part) != count) return {};
            next.insert(next.end(), part.begin(), part.end());
          }
        }
        shares = std::move(next);
      }
      TierOrder order;
      for (const auto& [node, pods] : shares) order.nodes.push_back(node.group), order.caps.push_back(pods);
      return order;
    }

   private:
    int pods_of(Domain d) const {
      return d.level < 0 ? slots_[static_cast<size_t>(d.group)]
                         : pods_[static_cast<size_t>(d.level)][static_cast<size_t>(d.group)];
    }
    static int total(const std::vector<Share>& shares) {
      int sum = 0;
      for (const Share& s : shares) sum += s.second;
      return sum;
    }

    const Fabric& fabric_;
    const TierAsk& ask_;
    std::vector<int> slots_;                               // pod slots per node
    std::vector<std::vector<int>> pods_;                   // per level, per group: free pods (whole inner slices)
    std::vector<std::vector<int>> slices_;                 // per level at and above the slice level: whole slices
    std::vector<std::vector<std::vector<int>>> children_;  // per level, per group: its sub-groups (level 0: nodes) with room
  };
};

}  // namespace

std::unique_ptr<Scheduler> make_kueue_tas_scheduler(const SchedulerContext& context) {
  return std::make_unique<KueueTas>(context);
}

}  // namespace topsim
