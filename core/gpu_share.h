// Shared GPU scheduling: what a pod asks of a GPU node (whole cards, a memory share with an
// optional compute share, or a share in thousandths), which nodes may serve it (node modes), and
// the per-card accounting a placement changes.
//
// Semantics (BRIEF.md section 3, the managed Kubernetes service's GPU sharing):
// - a pod asks `aliyun.com/gpu-mem: <GiB>` and optionally `aliyun.com/gpu-core.percentage: <p>`;
//   p is a multiple of 5, at least 5, at most 100, and the memory is at most one card's; any
//   other value makes the submission fail with a reason (`validate_request`), never rounded;
// - node label `ack.node.gpu.schedule` = `core_mem` (memory + compute isolation) or `share`
//   (memory only); memory-only pods run only on `share` nodes and memory+compute pods only on
//   `core_mem` nodes, so the two kinds never share a node; `topology` nodes serve only
//   topology-aware whole-GPU jobs and `default` nodes only regular whole-GPU requests;
// - the Alibaba 2023 trace (FGD, "Beware of Fragmentation", USENIX ATC '23) expresses a share as
//   `gpu_milli` thousandths of one card; its nodes host shares and whole-GPU pods side by side.
//   topsim calls that node mode `milli` (a topsim name, not one of the service's label values).
// Multi-GPU pods need whole free cards on one node.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

inline constexpr int kMilliPerGpu = 1000;  // gpu_milli of one whole card
inline constexpr std::string_view kNodeModeLabel = "ack.node.gpu.schedule";

enum class NodeMode { Default, Topology, Share, CoreMem, Milli };
template <>
struct EnumNames<NodeMode> {
  static constexpr std::array<EnumName<NodeMode>, 5> table{{{NodeMode::Default, "default"},
                                                            {NodeMode::Topology, "topology"},
                                                            {NodeMode::Share, "share"},
                                                            {NodeMode::CoreMem, "core_mem"},
                                                            {NodeMode::Milli, "milli"}}};
};
// Parses a label value; the error lists the accepted values.
Expected<NodeMode> parse_node_mode(std::string_view value);
// The mode named by `ack.node.gpu.schedule` in `labels`; `default` when the label is absent.
Expected<NodeMode> node_mode_from_labels(const std::map<std::string, std::string>& labels);

enum class GpuAskKind {
  None,   // CPU-only pod
  Whole,  // `count` whole cards (nvidia.com/gpu, or aliyun.com/gpu for topology-aware jobs)
  Mem,    // a share of one card: `mem_gib` GiB, optionally `core_percent` of its compute
  Milli,  // `count` cards with `milli` thousandths each (count > 1 needs milli = 1000)
};

struct GpuAsk {
  GpuAskKind kind = GpuAskKind::None;
  int count = 0;                    // Whole / Milli: cards on one node; Mem: 1
  int mem_gib = 0;                  // Mem: aliyun.com/gpu-mem, GiB
  std::optional<int> core_percent;  // Mem: aliyun.com/gpu-core.percentage; absent = memory only
  int milli = 0;                    // Milli: thousandths of each card; Whole: 1000
  bool topology_aware = false;      // Whole: a topology-aware (gang) job, served by topology nodes

  static GpuAsk none() { return {}; }
  static GpuAsk whole(int cards, bool topology_aware = false);
  static GpuAsk mem(int gib, std::optional<int> core_percent = std::nullopt);
  static GpuAsk milli_share(int milli, int cards = 1);
};

struct PodRequest {
  int64_t cpu_milli = 0;   // CPU, thousandths of a core
  int64_t memory_mib = 0;  // host memory, MiB
  GpuAsk gpu;
  uint32_t gpu_type_mask = 0;  // allowed GPU types, bit t = type t (ShareNode::gpu_type); 0 = any
};

// Submission check of a request, before any placement. `max_card_mem_gib` is the largest card
// memory in the cluster (a memory share above it can never run). The error is the reason the
// submission fails, e.g. "aliyun.com/gpu-core.percentage 7 is not a multiple of 5".
Status validate_request(const PodRequest& pod, int max_card_mem_gib);

// The share of one card the ask takes, in thousandths, on a card of `card_mem_gib` GiB:
// whole cards and multi-card asks 1000, `milli` shares their value, memory+compute shares
// 10 x core percent, memory-only shares ceil(1000 x GiB / card GiB) (1000 if card_mem_gib is 0).
int ask_card_milli(const GpuAsk& ask, int card_mem_gib);
// Total GPU share the ask requests, in thousandths (count x per-card share); 0 for CPU-only.
int64_t ask_total_milli(const GpuAsk& ask, int card_mem_gib);

struct CardState {
  int mem_total_gib = 0;  // card memory (0 when the node does not account memory)
  int mem_used_gib = 0;
  int core_used_percent = 0;  // sum of compute shares (core_mem nodes)
  int milli_used = 0;         // sum of thousandths (default, topology and milli nodes)
  int tasks = 0;              // pods using this card
  int demand_milli = 0;       // per-card share of its pods when all equal; 0 = idle; -1 = mixed
};

struct ShareNode {
  std::string name;
  NodeMode mode = NodeMode::Milli;
  int gpu_type = 0;       // index into the caller's GPU type table (trace models, catalog)
  int64_t cpu_milli = 0;  // capacity
  int64_t cpu_used_milli = 0;
  int64_t memory_mib = 0;  // capacity
  int64_t memory_used_mib = 0;
  int pods = 0;  // pods placed on this node
  std::vector<CardState> cards;
  // Derived from `cards`, kept current by make_share_node / apply_placement /
  // release_placement (call refresh_card_summary after editing cards directly); lets a policy
  // reject a node in O(1).
  int64_t free_milli = 0;       // sum of card_free_milli
  int max_card_free_milli = 0;  // largest card_free_milli
  int idle_cards = 0;           // cards without any pod
};

ShareNode make_share_node(std::string name, NodeMode mode, int gpu_type, int gpu_count, int card_mem_gib, int64_t cpu_milli,
                          int64_t memory_mib);

// The node's extended resources as the service advertises them.
struct NodeAllocatable {
  int gpu_core_percentage = 0;  // aliyun.com/gpu-core.percentage = 100 x cards
  int gpu_mem_gib = 0;          // aliyun.com/gpu-mem = total card memory, GiB
  int gpu_count = 0;            // aliyun.com/gpu-count = cards
};
NodeAllocatable allocatable(const ShareNode& node);

// Free share of a card in thousandths, by node mode: share nodes by memory
// (floor(1000 x free GiB / card GiB)), core_mem nodes by compute (10 x free percent), others by
// milli (1000 - used).
inline int card_free_milli(NodeMode mode, const CardState& c) {
  switch (mode) {
    case NodeMode::Share: return c.mem_total_gib > 0 ? kMilliPerGpu * (c.mem_total_gib - c.mem_used_gib) / c.mem_total_gib : 0;
    case NodeMode::CoreMem: return 10 * (100 - c.core_used_percent);
    default: return kMilliPerGpu - c.milli_used;
  }
}
int card_free_milli(const ShareNode& node, int card);
// Recomputes the node's derived card summary (free_milli, max_card_free_milli, idle_cards).
void refresh_card_summary(ShareNode& node);
inline int node_idle_cards(const ShareNode& node) { return node.idle_cards; }

inline bool mode_accepts(NodeMode mode, const GpuAsk& ask) {
  switch (ask.kind) {
    case GpuAskKind::None: return true;
    case GpuAskKind::Whole:
      if (ask.topology_aware) return mode == NodeMode::Topology;
      return mode == NodeMode::Default || mode == NodeMode::Milli;
    case GpuAskKind::Mem: return mode == (ask.core_percent ? NodeMode::CoreMem : NodeMode::Share);
    case GpuAskKind::Milli: return mode == NodeMode::Milli;
  }
  return false;
}
inline bool type_allowed(const ShareNode& node, const PodRequest& pod) {
  if (pod.gpu.kind == GpuAskKind::None || pod.gpu_type_mask == 0) return true;
  return node.gpu_type >= 0 && node.gpu_type < 32 && ((pod.gpu_type_mask >> node.gpu_type) & 1u) != 0;
}
// Whether one card can take a single-card ask (Mem, or Milli / Whole with count 1); for
// multi-card asks, whether the card is idle.
bool card_fits(const ShareNode& node, int card, const GpuAsk& ask);
// Mode, GPU type, CPU, memory and enough fitting cards.
bool node_fits(const ShareNode& node, const PodRequest& pod);
// The `count` lowest-index idle cards (fewer if the node has fewer).
std::vector<int> lowest_idle_cards(const ShareNode& node, int count);

struct SharePlacement {
  int node = -1;
  std::vector<int> cards;  // ascending; empty for CPU-only pods
};

// Applies / undoes a placement on one node. REQUIRES (apply): the cards fit the ask and the
// node has the CPU and memory. `release` restores the counters; a card's demand_milli goes
// back to 0 when its last pod leaves (a card that held mixed demands stays mixed until then).
void apply_placement(ShareNode& node, const PodRequest& pod, const std::vector<int>& cards);
void release_placement(ShareNode& node, const PodRequest& pod, const std::vector<int>& cards);

struct ShareCluster {
  std::vector<ShareNode> nodes;
  int64_t capacity_milli() const;  // 1000 x cards
  int max_card_mem_gib() const;
};

// Why no node of `cluster` can take `pod` now, in words a user can act on (a pod still waiting
// when a run ends, or failed on arrival): how many nodes serve its ask (mode and GPU type), and
// of those how many lack only room on their GPUs, only CPU, only host memory, or several, and
// what every serving node lacks with the most any of them has free. "" when some node fits.
std::string no_node_fits_reason(const ShareCluster& cluster, const PodRequest& pod);
// Whether some node serving `pod` (mode and GPU type) has room on its GPUs for it, its CPU and
// host memory aside: false when the pod waits for GPU room itself, true when the GPU room exists
// only on nodes short of CPU or memory (or some node fits). Stops at the first such node.
bool gpu_room_somewhere(const ShareCluster& cluster, const PodRequest& pod);

}  // namespace topsim
