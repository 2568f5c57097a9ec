// Renderer of one placement decision of `topsim allocate` as a machine-readable JSON document.
// Deterministic: fixed key order, rounded numbers.
#pragma once

#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/nccl_config.h"
#include "core/ring.h"
#include "core/throughput.h"
#include "core/topology.h"

namespace topsim {

// Everything `topsim allocate` reports about one placement.
struct PlacementReport {
  const Topology* topology = nullptr;  // the node
  std::vector<int> free;               // free GPUs offered to the allocator, ascending
  PlacementRequest request;
  Placement placement;
  double allreduce_bytes = 0;          // message size of the all-reduce estimate, bytes
  CommPath path;                       // ring_plan_path of the placement's ring: NCCL's algorithm and its bus bandwidth
  AllReduceEstimate allreduce;         // all-reduce of allreduce_bytes over the chosen GPUs (default for one GPU)
  std::vector<std::string> hop_codes;  // link class of ring hop i: order[i] -> order[i+1] (wrapping); none for one GPU
  std::vector<int> numa_ids;           // OS NUMA node ids of the chosen GPUs, ascending
  NcclConfig nccl;                     // env without NCCL_TOPO_FILE when no XML is written
  std::string topo_xml_path;           // "" when no NCCL topology XML is written
};

// JSON object (2-space indent, ends with a newline), keys in this order: node, node_gpus, free,
// request {gpus, policy, must_include, constraints {same_numa, require_nvlink, max_link_class
// ("NV", "PIX", ... or null), min_bandwidth_gbps}, allow_relax}, gpus, relaxed,
// fallback_reason (null when met as given), ring (empty for one GPU), hops [{from, to, link}],
// channels, channel_gbps, bus_bandwidth_gbps (of `algorithm`), algorithm (NCCL's for large
// messages: "Ring", "NVLS"; null for one GPU), ring_bus_gbps, nvlink_only, allreduce {bytes,
// time_us, protocol and algorithm (null for one GPU)}, numa_nodes, nccl_env, topo_xml (null when none). Bandwidths are GB/s
// rounded to 0.001, the time µs rounded to 0.1. REQUIRES: report.topology set.
std::string render_placement_json(const PlacementReport& report);

}  // namespace topsim
