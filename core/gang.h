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
// - A node's network bandwidth is the sum over the distinct NICs its chosen GPUs use of
//   network_gbps(speed) x NetworkModel::efficiency(transport), each capped by the widest
//   GPU-to-NIC PCIe/CPU path among the GPUs using it (NCCL's GPU-to-NET path bandwidth: DGX-1
//   GPU 5 reaches mlx5_0 across QPI at 6 GB/s). Each GPU uses one of its nearest NICs (best
//   link class, then bandwidth); GPUs that share the same nearest NICs are spread over them by
//   their rank in that group, as NCCL's ncclTopoGetLocalNet does (search.cc, without its bit
//   mirroring), so DGX A100 GPUs 0 and 1 use mlx5_0 and mlx5_1. PXN / rail-optimised routing
//   is not modelled. A node without NICs cannot take part in a multi-node gang.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/allocator.h"
#include "core/expected.h"
#include "core/gpu_set.h"
#include "core/ring.h"

namespace topsim {

// One candidate node. REQUIRES: `allocator` non-null and outliving the call; `free` within
// the node's GPUs. Nodes of one model should share one Allocator (its memo tables are reused).
struct GangNode {
  const Allocator* allocator = nullptr;  // allocator->topology() is the node
  GpuSet free;                           // GPUs free for this job
  std::string name;                      // used in errors and `relaxed`
};

enum class MultiNodePolicy { Pack, Spread, BestFit };
std::string_view multi_node_policy_name(MultiNodePolicy policy);  // "pack", "spread", "best-fit"
std::optional<MultiNodePolicy> parse_multi_node_policy(std::string_view name);
std::vector<std::string> multi_node_policy_names();

// Achieved fraction of NIC line rate for NCCL's inter-node ring traffic (large messages).
// InfiniBand: NCCL ring all-reduce bus bandwidth measured against NIC line rate: 12.2 of 12.5
// GB/s on one EDR NIC (nccl-tests#29), ~47 of 50 on DGX-1's 4 x EDR (nccl#307), 192 of 200 on
// DGX A100's 8 x HDR (nccl#1576): 0.94-0.98; the lower end is taken (multi-switch fabrics).
inline constexpr double kInfiniBandEfficiency = 0.94;
// RoCE v2 carries the same verbs traffic in Ethernet framing: per 4096-byte payload IB adds 26
// bytes (LRH 8, BTH 12, ICRC 4, VCRC 2), RoCE v2 82 (Ethernet 14 + FCS 4 + preamble/gap 20,
// IPv4 20, UDP 8, BTH 12, ICRC 4), so RoCE reaches (4096 + 26) / (4096 + 82) of IB's rate.
inline constexpr double kRoceFramingRatio = (4096.0 + 26.0) / (4096.0 + 82.0);
inline constexpr double kRoceEfficiency = kInfiniBandEfficiency * kRoceFramingRatio;  // ~0.927
// NCCL's socket transport (TCP, default 1 thread x 1 socket per peer) is CPU- and
// single-flow-bound: at most ~60% of wire speed on 32 Gb/s (nccl#209), 4-6 GB/s bus bandwidth
// on 100 Gb/s, i.e. 0.32-0.48 (nccl#450); half the line rate is taken.
inline constexpr double kTcpSocketEfficiency = 0.5;

// How much of each NIC's line rate inter-node traffic achieves, by transport.
struct NetworkModel {
  double infiniband_efficiency = kInfiniBandEfficiency;  // default 0.94
  double roce_efficiency = kRoceEfficiency;              // default ~0.927
  double tcp_socket_efficiency = kTcpSocketEfficiency;   // Ethernet NICs (TCP sockets); default 0.5

  double efficiency(NicTransport transport) const;
  // Achieved GB/s of one NIC: network_gbps(speed) x efficiency(transport).
  double nic_gbps(const Nic& nic) const;
};

// The NIC each GPU uses for inter-node traffic (model above); -1 when the node has no NIC.
// REQUIRES: 0 <= gpu < node.gpu_count()
int network_nic(const Topology& node, int gpu);
// The distinct NICs used by `gpus`, ascending; empty when the node has no NIC.
std::vector<int> network_nics(const Topology& node, const std::vector<int>& gpus);
// Achieved inter-node bandwidth of those NICs (model above), GB/s; 0 without NICs.
double node_network_gbps(const Topology& node, const std::vector<int>& gpus, const NetworkModel& net);

struct GangRequest {
  int workers = 1;              // W, at least 1
  int gpus_per_worker = 1;      // G, at least 1
  PlacementRequest per_node;    // policy and constraints for the GPUs chosen on each node; its
                                // `gpus` is ignored and its `must_include` must be empty
  MultiNodePolicy policy = MultiNodePolicy::Pack;
  int max_nodes = 0;            // at most this many nodes; default 0 = unlimited
  int min_gpus_per_node = 0;    // every used node gets at least this many GPUs; default 0 = none
  double min_network_gbps = 0;  // multi-node only: every used node's network bandwidth (GB/s)
                                // at least this; default 0 = none
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
  std::vector<WorkerPlacement> workers;  // rank order: along the job ring
  std::vector<int> nodes;                // distinct node indices in job-ring order (ascending)
  std::vector<RingPlan> node_rings;      // per entry of `nodes`: rings over that node's GPUs
  std::vector<std::vector<int>> nics_per_node;  // per entry of `nodes`: NICs used (empty on one node)
  std::vector<double> node_network_gbps;        // per entry of `nodes`: their achieved GB/s (0 on one node)
  double bus_bandwidth_gbps = 0;  // job-wide predicted all-reduce bus bandwidth (model above)
  double network_gbps = 0;        // min of node_network_gbps over nodes; 0 on one node
  // Ring edges between nodes per channel: 0 on one node, else one per node (the ring enters
  // and leaves every node once: 2 crossings for 2 nodes, 3 for 3). NCCL's latency model counts
  // 2(nodes - 1) network steps of the all-reduce instead (allreduce_time).
  int network_crossings = 0;
  std::vector<std::string> relaxed;  // per-node constraints dropped, as "<node name>: <constraint>"

  int gpu_count() const;             // W x G
  bool multi_node() const { return nodes.size() > 1; }
};

// Places the whole gang or nothing. Errors: "invalid gang request: ..." for a malformed request
// (counts, must-include, a per-node request the allocator rejects), and "cannot place gang:
// <reason>" naming the binding limit (capacity, max-nodes, min-gpus-per-node, min-network,
// nodes without NICs, per-node constraints that cannot be met).
Expected<GangPlacement> place_gang(const std::vector<GangNode>& nodes, const GangRequest& request,
                                   const NetworkModel& net = {});

// Predicted all-reduce time of `bytes` over the gang: core's allreduce_time (ring.h) with ranks
// = W x G, nodes = the number of nodes, and NVLink hop latency when every node's ring is
// NVLink-only. 0 for a single GPU.
double job_allreduce_time_us(const GangPlacement& placement, double bytes);

}  // namespace topsim
