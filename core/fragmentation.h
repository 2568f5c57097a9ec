// GPU fragmentation as defined by FGD ("Beware of Fragmentation: Scheduling GPU-Sharing
// Workloads with Fragmentation Gradient Descent", USENIX ATC '23; REFERENCE.md):
//
// - the target workload M is the set of distinct task specs (CPU, per-card GPU share d_m, GPU
//   count, allowed GPU types, node modes, memory share) of a trace, with popularity p_m; the most
//   popular specs covering 95% of the tasks are kept and their popularities renormalised;
// - for a node n with free share R_g on each card g and a spec m: if m cannot run on n at all
//   (node mode, GPU type, free CPU, fewer than count_m cards m can use, or m asks no GPU)
//   F_n(m) = sum_g R_g, else F_n(m) = sum_g R_g * [m cannot use g];
// - F_n(M) = sum_m p_m F_n(m); the cluster's F = sum_n F_n(M); the fragmentation rate is F
//   divided by the cluster's unallocated GPU share.
//
// Node modes partition a cluster (`ack.node.gpu.schedule`: whole-GPU topology nodes, memory-share
// nodes, ...): the operator, not the placements, decides that a share node never serves a
// whole-GPU job. So F_n(M) measures node n against the part of M its mode serves: the specs
// whose mode_mask allows the node's mode (mask 0: every mode), with popularities renormalised
// within that part (p_m = count_m / W_mode); a node whose mode serves no spec has F_n(M) = 0 (its
// free share still counts as unusable). An idle partitioned cluster then has F = 0. Within one
// mode, and so for the trace's single-mode clusters, this is FGD's definition exactly; F_n(m)
// of a single spec (task_fragmentation_milli) keeps the definition's "cannot run: all of it".
//
// "m can use card g": R_g >= d_m, except for memory shares (mem_gib > 0), which need the card's
// free memory in GiB >= mem_gib, and on core_mem nodes also R_g >= d_m (the compute share).
// Memory is compared in GiB because R_g on share nodes is floor(1000 x free GiB / card GiB)
// while d_m is ceil(1000 x GiB / card GiB): comparing those in thousandths loses exact fits.
//
// Arithmetic is exact: popularity is kept as integer counts, so F_n(M) is stored as
// "weighted milli" = sum_m count_m * F_n(m) over the specs the node's mode serves (thousandths
// of a GPU times occurrences); divide by W_mode * 1000 for GPUs (W_mode = weight_total on a
// single-mode cluster). Equal fragmentation growths on nodes of one mode therefore tie exactly.
//
// FragmentationTracker keeps F_n(M) per node and updates only the node a placement changed
// (never a cluster rescan). F_n(M) is memoised by node state: (mode, GPU type, card memory, the
// free CPU reduced to "which specs' CPU fits", the sorted (free share, free GiB) of the cards;
// free GiB only on share / core_mem nodes) — many nodes share a state.
// The tracker also answers FGD's question, how much F grows when a pod goes to a node (trying
// every card for a share), memoised by (node state, pod shape, CPU after placement) on every
// node mode: a state holds what a card's fit and its free share and GiB after the pod depend on.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/gpu_share.h"

namespace topsim {

struct TaskSpec {
  int64_t cpu_milli = 0;
  int gpu_milli = 0;           // per-card share d_m, 1..1000; 0 for CPU-only specs
  int gpu_count = 0;           // cards; 0 for CPU-only specs
  uint32_t gpu_type_mask = 0;  // allowed GPU types (bit t); 0 = any
  // Memory shares: GiB each card must have free (decides the fit on share / core_mem nodes;
  // gpu_milli is then only the compute share on core_mem nodes). Default 0: not a memory share.
  int mem_gib = 0;
  // Node modes where the spec can run: bit (1u << static_cast<int>(NodeMode)). Default 0: any.
  uint8_t mode_mask = 0;
  auto operator<=>(const TaskSpec&) const = default;
};

// The spec of a pod: its per-card share as ask_card_milli(pod.gpu, card_mem_gib), the node
// modes that accept its GPU ask (mode_accepts; 0 = any for CPU-only pods) and, for memory
// shares, its GiB.
TaskSpec task_spec(const PodRequest& pod, int card_mem_gib = 0);

struct TargetWorkload {
  std::vector<TaskSpec> specs;   // most popular first (ties: ascending spec)
  std::vector<int64_t> weights;  // occurrences of each spec in the trace
  int64_t weight_total = 0;      // sum of weights (p_m = weights[m] / weight_total)
  int64_t tasks_seen = 0;        // tasks the workload was derived from
  double popularity(size_t m) const { return static_cast<double>(weights[m]) / static_cast<double>(weight_total); }
  // W_mode: the occurrences of the specs that can run on nodes of this mode (see above).
  int64_t mode_weight(NodeMode mode) const;
};

// Counts distinct specs, sorts them by occurrences (descending, ties by spec) and keeps the
// shortest prefix covering at least `coverage` of the tasks (FGD: 0.95).
TargetWorkload derive_target_workload(const std::vector<TaskSpec>& tasks, double coverage = 0.95);

// Reference (unmemoised) forms of the definition, for tests and one-off reports.
// F_n(m) in thousandths of a GPU.
int64_t task_fragmentation_milli(const ShareNode& node, const TaskSpec& spec);
// Whether nodes of this mode serve the spec (mode_mask 0: every mode).
bool spec_serves_mode(const TaskSpec& spec, NodeMode mode);
// F_n(M) in GPUs, against the part of M the node's mode serves (see above).
double node_fragmentation_gpus(const ShareNode& node, const TargetWorkload& workload);

class FragmentationTracker {
 public:
  // What a tracker learns about its target workload: the node states it has met, each with its
  // F_n(M), and FGD's growth of each (state, pod shape). A pure function of the workload, so the
  // tracker of a later run against the same workload can start from it (a plan's replays, one
  // thread after another: not thread-safe). Opaque outside the tracker.
  struct Memo;

  // Computes every node's F_n(M). REQUIRES: `workload` outlives the tracker and has at least
  // one spec. Not thread-safe (memo tables): one tracker per simulation. With `memo` (from
  // memo() of a tracker against the same workload, not in use elsewhere), what it knows is not
  // computed again; a memo of another workload is not used.
  FragmentationTracker(const TargetWorkload& workload, const ShareCluster& cluster, std::shared_ptr<Memo> memo = nullptr);

  // The tracker's memo tables, for a later tracker against the same workload on this thread.
  std::shared_ptr<Memo> memo() const { return memo_; }
  // Node states known (each one's F_n(M) computed once).
  size_t states_known() const;

  // Call after `cluster.nodes[node]` changed (placement or release). O(cards) + memo lookup.
  void update_node(const ShareCluster& cluster, int node);

  double fragmentation_gpus() const;                           // cluster F
  double fragmentation_rate() const;                           // F / unallocated GPU share; 0 when nothing is free
  double fragmentation_rate(double fragmentation_gpus) const;  // the same, given F (fragmentation_gpus())
  double free_gpus() const;                                    // unallocated GPU share
  int64_t free_milli() const { return total_free_; }           // the same in thousandths of a GPU
  // Free share on cards that no spec of the target workload can use on their node
  // (m cannot use the card or cannot run there, for every m): GPU share stranded for typical pods.
  double unusable_gpus() const;
  int idle_cards() const;  // cards without any pod
  // Sum of the nodes' weighted milli (each in its mode's units: divide by W_mode; on a
  // single-mode cluster the whole sum divides by that mode's weight).
  int64_t weighted_milli() const { return total_weighted_; }
  int64_t node_weighted_milli(int node) const { return nodes_[static_cast<size_t>(node)].weighted; }
  int64_t weight_total() const;

  // FGD: the growth of F_n(M) (weighted milli, in the units of the node's mode) if `pod` were
  // placed on `node` with the card choice that grows it least; nullopt when the pod does not fit
  // there. A pod fits the nodes of the modes accepting it — one mode for every ask kind except
  // plain whole GPUs, which default and milli nodes both take; topsim's clusters have one of the two.
  // REQUIRES: update_node was called for every change of `cluster` since construction.
  std::optional<int64_t> placement_growth(const ShareCluster& cluster, int node, const PodRequest& pod);
  // The cards of that least-growth choice (ties: lowest card index); empty for CPU-only pods.
  // REQUIRES: placement_growth(cluster, node, pod) has a value.
  std::vector<int> least_growth_cards(const ShareCluster& cluster, int node, const PodRequest& pod);

  // The log of node changes (update_node calls), positions counting from construction: entries
  // [change_log_begin(), change_log_end()) are held, older ones are dropped once the log is
  // a few times the node count. A caller caching per-node answers re-evaluates the nodes
  // changed since its last look, or everything when that part of the log is gone.
  uint64_t change_log_begin() const { return log_begin_; }
  uint64_t change_log_end() const { return log_begin_ + change_log_.size(); }
  int changed_node(uint64_t position) const { return change_log_[static_cast<size_t>(position - log_begin_)]; }

 private:
  struct NodeFacts {
    int state = -1;
    int mode = 0;  // static_cast<int>(NodeMode) of the state
    int64_t weighted = 0;
    int64_t unusable = 0;
    int64_t free = 0;
    int idle = 0;
  };

  std::shared_ptr<Memo> memo_;  // holds the target workload too
  std::vector<NodeFacts> nodes_;
  std::vector<int> change_log_;  // nodes updated, from position log_begin_
  uint64_t log_begin_ = 0;
  int64_t total_weighted_ = 0, total_unusable_ = 0, total_free_ = 0;
  static constexpr int kModes = 5;               // NodeMode values
  std::array<int64_t, kModes> mode_weighted_{};  // sum of weighted milli of the nodes of each mode
  int total_idle_ = 0;
};

}  // namespace topsim
