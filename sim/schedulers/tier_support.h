// What the fabric-tier plug-ins (Kueue TAS, Volcano network-topology-aware) share: a job's tier
// ask from its annotations, the free pod slots of the fabric's groups, and a gang bound pod by
// pod onto an ordered node list (device-plugin GPU ids) that starts with host networking.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/scheduler.h"

namespace topsim {

// A fabric level a job must (or would like to) fit in: its index (levels lowest first).
struct TierAsk {
  int level = -1;  // -1: no ask
  bool required = false;
  // Slices (Kueue TAS pod-set slices, Volcano partitions): the pods come in slices of
  // `slice_size`, each inside one domain of `slice_level` (<= level when level >= 0); -1: none.
  // Not `slices_required` (Volcano's soft partitions): placed without slices when they do not fit.
  int slice_level = -1;
  int slice_size = 1;
  bool slices_required = true;
  // Finer slice layers inside each slice (Kueue's multi-layer slices), outermost first: each at a
  // lower level than the one before, its size dividing that one's.
  struct Layer {
    int level = -1;
    int size = 1;
  };
  std::vector<Layer> inner{};
  // KAI's preferred placement: the lowest level tried (below `level` when that is required too)
  // and, inside a chosen domain above it, the level the pods are gathered by; -1: none.
  int preferred = -1;
  // What the plug-in made of the annotations when it is not what they read (JobRecord::placement_note).
  std::string note{};
};

// The nodes a gang's pods go to, in order, and with slices the most pods each may take.
struct TierOrder {
  std::vector<int> nodes;  // short, or empty, when they do not hold the gang
  std::vector<int> caps;   // empty: each node as many pods as it has room for
};

// The fabric level named `name` (a level's name or its node label); nullopt when none.
std::optional<int> fabric_level_named(const ClusterState& cluster, const std::string& name);
// Level names of the cluster's fabric, for messages ("rack, block"; "(no fabric)").
std::string fabric_level_list(const ClusterState& cluster);
// Why a gang waits whose required level `level` has no domain with room for all its pods, the
// annotation `key` asking it: "no rack has room for all 5 pods (key)".
std::string no_domain_holds(const SchedulingView& view, uint32_t job, int level, const std::string& key);
// fabric_level_named for an annotation's value: the error names the field and lists the levels.
Expected<int> fabric_level_of(const ClusterState& cluster, const std::string& field, const std::string& name);

// Pods of `gpus` GPUs that node `node` can still take (serving label `serving`, a type the job fits).
int pod_slots(const SchedulingView& view, uint32_t job, int node, NodeMode serving);
// Per group of `level`: the pods of the job's size its nodes can take.
std::vector<int> group_slots(const SchedulingView& view, uint32_t job, int level, NodeMode serving);

// Free room of each group of `level` in the ask's units: pod slots, or with slices whole slices
// at and above the slice level (each slice-level domain's pod slots / slice size, summed up).
// With inner layers a slice-level domain's pod slots count whole inner slices only (layer_rooms).
std::vector<int> group_units(const SchedulingView& view, uint32_t job, const TierAsk& ask, int level, NodeMode serving);
// With slices: the size a domain of `level` gives its parent its pods in (the slice size at the
// slice level, an inner layer's size from its level up to the layer above, else 1), and per
// level from 0 to the slice level, per group, the pods it can take counted so (each child's
// rounded down to its size, then its own).
int layer_size_at(const TierAsk& ask, int level);
std::vector<std::vector<int>> layer_rooms(const SchedulingView& view, uint32_t job, const TierAsk& ask, NodeMode serving);
// With slices (one layer: Volcano's partitions), what each of `nodes` (in order) may take so that
// each slice-level domain takes whole slices only (its nodes share its room in whole slices);
// empty without slices.
std::vector<int> slice_caps(const SchedulingView& view, uint32_t job, const TierAsk& ask, const std::vector<int>& nodes,
                            NodeMode serving);

// The cluster's free room for a sliced ask (slice_level >= 0): whole slices over the slice
// level's domains, and pods.
struct SliceRoom {
  int slices = 0;
  int pods = 0;
};
SliceRoom slice_room(const SchedulingView& view, uint32_t job, const TierAsk& ask, NodeMode serving);

// A slice size annotation's value (`key`: the annotation, `text`: its value): a whole number of
// pods >= 1 dividing `workers` (`whose`: "the pod set's", "the job's"); an error names the key.
Expected<int> slice_size_of(const char* key, const std::string& text, int workers, const char* whose);

// The comm path of a gang on `pods` whose pods share their nodes' network: gang.h's bandwidth
// model over the GPUs each node holds (core/throughput.h gang_comm_path).
CommPath host_network_path(const ClusterState& cluster, const std::vector<PodBinding>& pods, const NetworkModel& net);

// Binds every pod of `job` onto `nodes` in order (each node as many pods as it takes, at most
// caps[i] on nodes[i] when `caps` is given; lowest free GPU ids as the NVIDIA device plugin gives
// them) and starts it with host networking (RDMA or TCP across nodes, NVLink/PCIe inside) and
// `placement_note` (JobRecord::placement_note): false, binding nothing, when they cannot take it.
bool bind_gang_in_order(const SchedulingView& view, uint32_t job, const std::vector<int>& nodes, NodeMode serving,
                        const NetworkModel& network, Binder& binder, const std::vector<int>& caps = {},
                        const std::string& placement_note = "");

// A gang scheduler that places by fabric tier on nodes labelled `default`: admission, shape,
// queue and binding are shared; a plug-in says what a job asks (its annotations), in what order
// its pods go to nodes, and why a job whose required tier has no room waits.
class TierGangScheduler : public Scheduler {
 public:
  explicit TierGangScheduler(const SchedulerContext& context) : context_(context) {}

  std::string admission_problem(const SchedulingView& view, uint32_t job) const override;
  ShapeKey shape(const SchedulingView& view, uint32_t job) const override;
  std::string wait_reason(const SchedulingView& view, uint32_t job) const override;
  bool try_place(const SchedulingView& view, uint32_t job, Binder& binder) override;
  bool blocks_queue() const override { return !context_.backfill; }

 protected:
  static constexpr NodeMode kServing = NodeMode::Default;
  // The job's ask from its annotations; an error names the annotation.
  virtual Expected<TierAsk> tier_ask(const SchedulingView& view, uint32_t job) const = 0;
  // Nodes in the order the pods go to them, with their caps.
  virtual TierOrder node_order(const SchedulingView& view, uint32_t job, const TierAsk& ask) const = 0;
  // Why a job waits whose ask is required or sliced; "" when its tier ask is not what holds it
  // (then the general reason, training_wait_reason).
  virtual std::string tier_wait(const SchedulingView& view, uint32_t job, const TierAsk& ask) const = 0;

  SchedulerContext context_;
};

}  // namespace topsim
