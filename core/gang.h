// Multi-node gang placement: a job of W workers x G GPUs (identical requests) placed
// all-or-nothing on candidate nodes, and the job-wide all-reduce bandwidth model it is ranked by.
//
// Placement. Workers on one node are packed together: the node's Allocator chooses all k x G
// GPUs in one `place` call (so they form one well-connected set), and the set's ring order is
// cut into k workers of G consecutive GPUs. Node choice by policy:
// - pack: fewest nodes. Nodes that can take the most workers first; ties: the better node
//   bandwidth (below), then the lower node index. Each node is filled before the next one
//   (consolidation: the last node keeps its spare GPUs together).
// - spread: as many distinct nodes as possible (one worker per node while nodes remain, never a
//   node without room), the nodes with the most free GPUs first, then workers dealt round-robin.
// - best-fit: fewest nodes, then the highest job bus bandwidth, then the fewest free GPUs left
//   on the used nodes, then the lower node index. Exact for gangs that fit on one node. Across
//   nodes, a greedy search: every node is rated by its bandwidth when holding as many workers
//   as it can; the highest rating T whose nodes rated >= T can hold the gang on the fewest
//   nodes wins; among those, three node sets are tried: the tightest that hold the gang, the
//   roomiest (most workers, then rating), and the tightest rated at least the bandwidth
//   actually reached (ratings assume full nodes). Each set's workers are split to maximise the
//   job bandwidth, exactly for that set (with one NIC per GPU, 5 + 5 GPUs beat 8 + 2); the
//   best (bandwidth, then leftover) wins. A development check against exhaustive search on
//   1,497 random 3-5-node clusters found the same bandwidth in 1,496 (worst 0.85 of it) and
//   the same leftover too in 1,482; it is a heuristic, not exact.
// - rail alignment (GangRequest::prefer_rail_aligned, a rail-optimised fabric, core/fabric.h):
//   when the policy's choice spans m nodes whose GPUs use different NIC sets, traffic between
//   rails climbs above the rail switches. The planner then looks for a rail-aligned placement on
//   m nodes: W / m workers each (W divisible by m), every node's GPUs chosen among those whose
//   NIC (network_nic) is in one target set T, and every node using exactly T. Targets are the NIC
//   sets the candidates' own W / m-worker placements use, in candidate order; for each, the
//   nodes with the best bandwidth, then the lower index are taken.
//   The aligned placement with the highest job bandwidth replaces the choice when that
//   bandwidth is no lower and no node drops a constraint its own placement keeps.
// - measured pairs (GangRequest::measured): a choice whose nodes include a pair measured slower
//   than its model bandwidth is bounded by that pair (any pair of its nodes: NCCL's ring order
//   across nodes is the launcher's). The planner then chooses again without one node of the
//   slowest pair (each is tried, the better kept), and keeps the new choice when its bound is
//   higher on no more nodes; at most twice as many rounds as the choice has nodes.
// Cost: O(n log n) in the candidates plus one `place` call per distinct (allocator, free set,
// workers) probe, memoised within a call: give GangNodes of one model the same Allocator.
// Verification: a node whose placement fails its per-node constraints (relaxing off) is
// dropped, one whose placed GPUs fall below min-network is kept for single-node use only, and
// the choice is made again, so the result never breaks a limit.
//
// Bandwidth model (job-wide predicted all-reduce bus bandwidth, GB/s):
// - one node: the RingPlan bus bandwidth of the node's GPU set (0 for one GPU);
// - several nodes: each channel of the job ring visits every node once, its GPUs contiguous,
//   so it crosses the network once per node boundary (the fewest crossings possible). Bus
//   bandwidth = min over used nodes of min(intra-node bus bandwidth of that node's GPU set
//   (skipped for one GPU), that node's network bandwidth).
// - A node's network bandwidth: node_network_gbps, model in network_model.h. A node without
//   NICs cannot take part in a multi-node gang.
// This ring figure ranks placements; what NCCL runs on the chosen one (NVLS, NVLSTree, multi-node
// NVLink domains) is core/throughput.h gang_comm_path's (core/nccl_algo.h).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/allocator.h"
#include "core/gpu_set.h"
#include "core/measured_links.h"
#include "core/network_model.h"
#include "core/ring.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

// One candidate node. REQUIRES: `allocator` non-null and outliving the call; `free` within
// the node's GPUs. Nodes of one model should share one Allocator (its memo tables are reused).
struct GangNode {
  const Allocator* allocator = nullptr;  // allocator->topology() is the node
  GpuSet free;                           // GPUs free for this job
  std::string name;                      // used in errors and `relaxed`
  // Multi-node NVLink domain (core/nccl_algo.h): nodes with the same id >= 0 share one NVLink
  // switch fabric (GB200 NVL72: 18 trays); default -1 = the node's own NVLink only.
  int nvlink_domain = -1;
};

enum class MultiNodePolicy { Pack, Spread, BestFit };
template <>
struct EnumNames<MultiNodePolicy> {
  static constexpr std::array<EnumName<MultiNodePolicy>, 3> table{
      {{MultiNodePolicy::Pack, "pack"}, {MultiNodePolicy::Spread, "spread"}, {MultiNodePolicy::BestFit, "best-fit"}}};
};

struct GangRequest {
  int workers = 1;            // W, at least 1
  int gpus_per_worker = 1;    // G, at least 1
  PlacementRequest per_node;  // policy and constraints for the GPUs chosen on each node; its
                              // `gpus` is ignored and its `must_include` must be empty
  MultiNodePolicy policy = MultiNodePolicy::Pack;
  int max_nodes = 0;            // at most this many nodes; default 0 = unlimited
  int min_gpus_per_node = 0;    // every used node gets at least this many GPUs; default 0 = none
  double min_network_gbps = 0;  // multi-node only: every used node's network bandwidth (GB/s)
                                // at least this; default 0 = none
  // Multi-node only: prefer a placement whose nodes all use the same NICs (rail-aligned, model
  // above); default false.
  bool prefer_rail_aligned = false;
  // Measured links between the candidates (indices into `nodes`, core/measured_links.h): a
  // multi-node choice is moved off pairs measured slower than its model bandwidth when it can
  // be (model above); default none.
  MeasuredLinks measured;
};

// Maps the gang annotations of the topology-aware scheduler onto a request:
// `gpu.topology/multi-node-policy` = pack | spread | best-fit, `gpu.topology/max-nodes`,
// `gpu.topology/min-gpus-per-node` (integers >= 0), and the per-node keys via
// apply_annotations (allocator.h). Bad values are errors naming the annotation.
Status apply_gang_annotations(const std::map<std::string, std::string>& annotations, GangRequest& request);

struct WorkerPlacement {
  int node = 0;           // index into the `nodes` given to place_gang
  std::vector<int> gpus;  // node GPU ids, ascending; consecutive in the node's ring
};

struct GangPlacement {
  std::vector<WorkerPlacement> workers;         // rank order: along the job ring
  std::vector<int> nodes;                       // distinct node indices in job-ring order (ascending)
  std::vector<RingPlan> node_rings;             // per entry of `nodes`: rings over that node's GPUs
  std::vector<std::vector<int>> nics_per_node;  // per entry of `nodes`: NICs used (empty on one node)
  std::vector<double> node_network_gbps;        // per entry of `nodes`: their achieved GB/s (0 on one node)
  double bus_bandwidth_gbps = 0;                // job-wide predicted all-reduce bus bandwidth (model above)
  double network_gbps = 0;                      // min of node_network_gbps over nodes; 0 on one node
  // Ring edges between nodes per channel: 0 on one node, else one per node (the ring enters
  // and leaves every node once: 2 crossings for 2 nodes, 3 for 3). NCCL's latency model counts
  // 2(nodes - 1) network steps of the all-reduce instead (allreduce_time).
  int network_crossings = 0;
  std::vector<std::string> relaxed;  // per-node constraints dropped, as "<node name>: <constraint>"

  int gpu_count() const;  // W x G
  bool multi_node() const { return nodes.size() > 1; }
};

// Places the whole gang or nothing. Errors: "invalid gang request: ..." for a malformed request
// (counts, must-include, a per-node request the allocator rejects), and "cannot place gang:
// <reason>" naming the binding limit (capacity, max-nodes, min-gpus-per-node, min-network,
// nodes without NICs, per-node constraints that cannot be met).
Expected<GangPlacement> place_gang(const std::vector<GangNode>& nodes, const GangRequest& request, const NetworkModel& net = {});

// The placement of GPU sets chosen elsewhere (a device plugin's ids, node by node): `gpus[i]`
// (ascending) on `nodes[i]`, workers as given (WorkerPlacement::node indexes `nodes`), with
// the rings, NICs and bandwidth model place_gang gives its own placements.
GangPlacement gang_placement_of(const std::vector<GangNode>& nodes, const std::vector<std::vector<int>>& gpus,
                                std::vector<WorkerPlacement> workers, const NetworkModel& net = {});

// Predicted all-reduce time of `bytes` over the gang: core's allreduce_time (ring.h) with ranks
// = W x G, nodes = the number of nodes, and NVLink hop latency when every node's ring is
// NVLink-only. 0 for a single GPU.
double job_allreduce_time_us(const GangPlacement& placement, double bytes);

}  // namespace topsim
