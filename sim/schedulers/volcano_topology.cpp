// Volcano's network-topology-aware scheduling (volcano.sh/en/docs/network_topology_aware_scheduling/,
// Volcano v1.11+): HyperNodes are the fabric's groups, tier 1 the lowest level (tier t = level
// t - 1). A job's spec.networkTopology, given here as the annotations
//   volcano.sh/network-topology-mode: hard | soft               (hard when absent: the CRD default)
//   volcano.sh/network-topology-highest-tier-allowed: <tier>    (highestTierAllowed; Volcano's pod
//                                                                annotation volcano.sh/network-
//                                                                topology-highest-tier alike)
//   volcano.sh/network-topology-highest-tier-name: <level>      (highestTierName: a HyperNode
//                                                                spec.tierName, here a fabric level)
// hard with a tier: all pods inside one HyperNode of tier <= it, or the job stays pending. hard
// without one sets no limit: Volcano's scheduler takes a job as hard only when highestTierAllowed
// is set (JobInfo.IsHardTopologyMode, pkg/scheduler/api/job_info.go, Volcano @ ed72c7c8; a tier
// name is translated into it at session start, framework/session.go adjustNetworkTopologySpec),
// so such a job is placed as one without the annotations. soft: Volcano turns it into hard at the
// cluster's top tier (convertSoftToHardTopology; a tier given is replaced), so one HyperNode if one
// fits, lowest tier first, else anywhere. A tier number and a tier name together are refused, as
// Volcano's admission webhook refuses them. The network-topology-aware plugin's HyperNode
// bin-packing prefers the lowest tier (its `fading` weight < 1 favours lower tiers) and, within
// a tier, the HyperNode already most used (GPUs in use / GPUs, then the lower index); inside it
// Volcano's binpack node order (most allocated node first, lower index on ties) and the NVIDIA
// device plugin's lowest free GPU ids, all pods of the gang at once. Pods share their node's
// network (host network / RDMA), so across nodes the ring uses the NICs. Without the annotations
// the job is gang-placed by binpack over the whole cluster.
// A task's partitionPolicy (the SubGroup affinity policy, docs/user-guide/
// how_to_use_network_topology_aware_scheduling.md, "partitionPolicy"), as the annotations
//   volcano.sh/partition-size: <pods>                          (partitionSize; totalPartitions =
//                                                               pods / size, as Volcano's webhook
//                                                               requires replicas = total x size)
//   volcano.sh/partition-network-topology-mode: hard | soft
//   volcano.sh/partition-highest-tier-allowed: <tier>          (or -highest-tier-name: <level>)
// puts each partition inside one HyperNode of tier <= that, the job's HyperNode holding them all;
// partitions go to the most used HyperNodes first (HyperNode bin-packing: two partitions share an
// already used HyperNode before an idle one is opened). Hard partitions without a tier set no
// limit (SubJobInfo.IsHardTopologyMode, as the job's): placed as without partitions. Soft
// partitions (tier 1 unless one is given): placed so when they fit, else as without partitions.
// Not modelled: minPartitions (a partial start), HyperNode discovery, preemption. Serves nodes
// labelled `default`.
#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>

#include "sim/schedulers/registry.h"
#include "sim/schedulers/support.h"
#include "sim/schedulers/tier_support.h"

namespace topsim {
namespace {

constexpr const char* kMode = "volcano.sh/network-topology-mode";
constexpr const char* kHighestTier = "volcano.sh/network-topology-highest-tier-allowed";
constexpr const char* kPodHighestTier = "volcano.sh/network-topology-highest-tier";  // Volcano's topology/v1alpha1 labels.go
constexpr const char* kHighestTierName = "volcano.sh/network-topology-highest-tier-name";
// A job asks for a network topology with any of these (Volcano: spec.networkTopology is set).
constexpr const char* kJobKeys[] = {kMode, kHighestTier, kPodHighestTier, kHighestTierName};
constexpr const char* kPartitionSize = "volcano.sh/partition-size";
constexpr const char* kPartitionMode = "volcano.sh/partition-network-topology-mode";
constexpr const char* kPartitionTier = "volcano.sh/partition-highest-tier-allowed";
constexpr const char* kPartitionTierName = "volcano.sh/partition-highest-tier-name";

class VolcanoTopology final : public TierGangScheduler {
 public:
  using TierGangScheduler::TierGangScheduler;

 private:
  using Annotations = std::map<std::string, std::string>;

  std::string tier_wait(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    const Fabric& fabric = view.cluster().fabric();
    const int workers = view.job(job).workers;
    auto tier = [&](int level) { return "tier <= " + std::to_string(level + 1) + " (" + fabric.level(level).name + ")"; };
    const bool partitions = ask.slice_level >= 0 && ask.slices_required;  // soft ones fall back
    const std::string what = !partitions ? "all " + std::to_string(workers) + " pods"
                                         : "its " + std::to_string(workers / ask.slice_size) +
                                               (workers / ask.slice_size == 1 ? " partition of " : " partitions of ") +
                                               std::to_string(ask.slice_size) + " pods, each within one HyperNode of " +
                                               tier(ask.slice_level);
    if (ask.required) {
      const auto* annotations = view.annotations(job);
      const bool said = annotations && annotations->count(kMode);
      return "no HyperNode of " + tier(ask.level) + " has room for " + what + " (" +
             (said ? std::string(kMode) + ": hard" : "hard mode, Volcano's default") + ")";
    }
    // Hard partitions alone: the whole cluster's room in partitions holds it back when its pods would fit.
    const SliceRoom room = slice_room(view, job, ask, kServing);
    if (room.pods < workers) return "";
    return "room for " + std::to_string(room.slices) + " of " + what + " (" + kPartitionMode + ": hard)";
  }

  Expected<TierAsk> tier_ask(const SchedulingView& view, uint32_t job) const override {
    TierAsk ask;
    const Annotations* annotations = view.annotations(job);
    if (!annotations) return ask;
    if (Status job_asked = job_topology(view.cluster(), *annotations, ask); !job_asked) return job_asked.error();
    if (!annotations->count(kPartitionMode)) {
      for (const char* key : {kPartitionSize, kPartitionTier, kPartitionTierName})
        if (annotations->count(key)) return Error{std::string(key) + ": may not be set without " + kPartitionMode};
      return ask;
    }
    if (Status parted = partitions(view, job, *annotations, ask); !parted) return parted.error();
    return ask;
  }

  // The job's spec.networkTopology into `ask`: hard with a tier holds it to that tier; hard
  // without one holds it to none (noted); soft is hard at the top tier (a tier given, noted).
  static Status job_topology(const ClusterState& cluster, const Annotations& annotations, TierAsk& ask) {
    const auto asked =
        std::find_if(std::begin(kJobKeys), std::end(kJobKeys), [&](const char* k) { return annotations.count(k); });
    if (asked == std::end(kJobKeys)) return Status::success();
    auto hard = mode_of(cluster, annotations, kMode, *asked);
    if (!hard) return hard.error();
    auto tier = tier_of(cluster, annotations, {kHighestTier, kPodHighestTier}, kHighestTierName);
    if (!tier) return tier.error();
    const int levels = cluster.fabric().level_count();
    if (!*hard) {
      ask.level = levels - 1;
      if (*tier)
        ask.note = std::string(kMode) + ": soft with a highest tier: Volcano replaces it with the cluster's top tier " +
                   std::to_string(levels) + " (the lowest tier that holds the job, else anywhere)";
    } else if (*tier) {
      ask.level = **tier;
      ask.required = true;
    } else {
      ask.note = std::string(kMode) + ": hard without a highest tier (" + kHighestTier + " or " + kHighestTierName +
                 "): Volcano holds the job to no tier";
    }
    return Status::success();
  }

  // The partitionPolicy into `ask` (REQUIRES: its mode is given); hard partitions without a tier
  // are held to none (noted).
  static Status partitions(const SchedulingView& view, uint32_t job, const Annotations& annotations, TierAsk& ask) {
    auto hard = mode_of(view.cluster(), annotations, kPartitionMode, kPartitionMode);
    if (!hard) return hard.error();
    const auto size = annotations.find(kPartitionSize);
    if (size == annotations.end()) return Error{std::string(kPartitionSize) + ": must be set with " + kPartitionMode};
    // Volcano's webhook: replicas = totalPartitions x partitionSize.
    auto pods = slice_size_of(kPartitionSize, size->second, view.job(job).workers, "the job's");
    if (!pods) return pods.error();
    auto tier = tier_of(view.cluster(), annotations, {kPartitionTier}, kPartitionTierName);
    if (!tier) return tier.error();
    if (*hard && !*tier) {
      ask.note += std::string(ask.note.empty() ? "" : "; ") + kPartitionMode + ": hard without a highest tier (" +
                  kPartitionTier + " or " + kPartitionTierName + "): Volcano holds the partitions to no tier";
      return Status::success();
    }
    const int level = tier->value_or(0);  // soft: tier 1 unless given
    if (ask.required && level > ask.level)
      return Error{std::string(annotations.count(kPartitionTier) ? kPartitionTier : kPartitionTierName) + ": tier " +
                   std::to_string(level + 1) + " is above the job's tier " + std::to_string(ask.level + 1)};
    ask.slice_level = level;
    ask.slice_size = *pods;
    ask.slices_required = *hard;
    return Status::success();
  }

  // hard? `key` absent: hard, the CRD's default; `asked` names the annotation that asks.
  static Expected<bool> mode_of(const ClusterState& cluster, const Annotations& annotations, const char* key, const char* asked) {
    const auto it = annotations.find(key);
    const std::string mode = it == annotations.end() ? "hard" : it->second;
    if (mode != "hard" && mode != "soft") return Error{std::string(key) + ": '" + mode + "' is not one of hard, soft"};
    if (cluster.fabric().level_count() == 0)
      return Error{std::string(asked) + ": the cluster has no fabric levels (HyperNode tiers) to place by"};
    return mode == "hard";
  }

  // The level (tier - 1) a highestTierAllowed (one of `numbers`) or highestTierName (`name`, a
  // fabric level) annotation gives; nullopt when none is set. Two set are refused, as Volcano's
  // admission refuses highestTierAllowed and highestTierName together.
  static Expected<std::optional<int>> tier_of(const ClusterState& cluster, const Annotations& annotations,
                                              std::initializer_list<const char*> numbers, const char* name) {
    std::vector<const char*> set;
    for (const char* key : numbers)
      if (annotations.count(key)) set.push_back(key);
    if (annotations.count(name)) set.push_back(name);
    if (set.size() > 1)
      return Error{std::string(set[0]) + ": may not be set with " + set[1] + " (one highest tier, by number or by name)"};
    if (set.empty()) return std::optional<int>{};
    const std::string& text = annotations.at(set[0]);
    if (set[0] == name) {
      if (const auto level = fabric_level_named(cluster, text)) return std::optional<int>{*level};
      return Error{std::string(name) + ": '" + text + "' is not a tier name of the fabric (" + fabric_level_list(cluster) + ")"};
    }
    const int levels = cluster.fabric().level_count();
    const bool digits = !text.empty() && text.size() < 4 && std::all_of(text.begin(), text.end(), ::isdigit);
    const int tier = digits ? std::stoi(text) : 0;
    if (tier < 1 || tier > levels)
      return Error{std::string(set[0]) + ": '" + text + "' is not a tier of the fabric (1 .. " + std::to_string(levels) + ": " +
                   fabric_level_list(cluster) + ")"};
    return std::optional<int>{tier - 1};
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

  TierOrder node_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const override {
    if (ask.slice_level >= 0) {
      TierOrder partitioned = partition_order(view, job, ask);
      if (!partitioned.nodes.empty() || ask.slices_required) return partitioned;
    }
    return {whole_order(view, job, ask), {}};
  }

  // The gang's HyperNode: the lowest tier's most used one that holds it; else, not required, the cluster.
  std::vector<int> whole_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const {
    const ClusterState& cluster = view.cluster();
    const int workers = view.job(job).workers;
    for (int level = 0; level <= ask.level; ++level) {  // lower tiers first
      const std::vector<int> slots = group_slots(view, job, level, kServing);
      const int best = most_used_fitting(cluster, slots, level, workers);
      if (best >= 0) return binpacked(view, job, [&](int n) { return cluster.fabric().group(level, n) == best; });
    }
    if (ask.required) return {};
    return binpacked(view, job, [](int) { return true; });
  }

  // Partitions: the job's HyperNode as whole_order's, its room counted in whole partitions (from
  // the partitions' tier up); inside it the partitions' HyperNodes most used first, binpack nodes
  // inside each; each takes whole partitions (slice_caps). Empty when they do not fit.
  TierOrder partition_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const {
    const ClusterState& cluster = view.cluster();
    const Fabric& fabric = cluster.fabric();
    const int partitions = view.job(job).workers / ask.slice_size;
    int level = ask.slice_level, best = -1;
    for (; level <= ask.level && best < 0; ++level)
      best = most_used_fitting(cluster, group_units(view, job, ask, level, kServing), level, partitions);
    --level;
    if (best < 0) {
      if (ask.required) return {};
      if (slice_room(view, job, ask, kServing).slices < partitions) return {};
      level = fabric.level_count();  // the whole cluster
    }
    std::vector<int> nodes =
        binpacked(view, job, [&](int n) { return level >= fabric.level_count() || fabric.group(level, n) == best; });
    const std::vector<double> used = group_used(cluster, ask.slice_level);
    std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) {
      const int ga = fabric.group(ask.slice_level, a), gb = fabric.group(ask.slice_level, b);
      if (ga == gb) return false;
      const double ua = used[static_cast<size_t>(ga)], ub = used[static_cast<size_t>(gb)];
      return ua != ub ? ua > ub : ga < gb;
    });
    std::vector<int> caps = slice_caps(view, job, ask, nodes, kServing);
    return {std::move(nodes), std::move(caps)};
  }

  // The most used group of `level` whose room (`room`, in the ask's units) holds `needed`; -1: none.
  static int most_used_fitting(const ClusterState& cluster, const std::vector<int>& room, int level, int needed) {
    const std::vector<double> used = group_used(cluster, level);
    int best = -1;
    for (int g = 0; g < static_cast<int>(room.size()); ++g)
      if (room[static_cast<size_t>(g)] >= needed && (best < 0 || used[static_cast<size_t>(g)] > used[static_cast<size_t>(best)]))
        best = g;
    return best;
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
