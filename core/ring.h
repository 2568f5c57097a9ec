// NCCL ring model: ring order, channels and predicted all-reduce bus bandwidth for a set of GPUs
// on one node, and the all-reduce time for a message size.
//
// Model (NCCL src/graph/search.cc, tuning.cc; REFERENCE.md), and where it simplifies:
// - Every ordered GPU pair (a -> b) is a "hop" routed over directed edges of the hardware graph:
//   a direct NVLink bond, GPU -> NVSwitch -> GPU, or the widest PCIe/CPU path. Each directed
//   edge has the capacity of its link in that direction.
// - Direct NVLink (no NVSwitch), when a ring over NVLink alone exists: rings over single links,
//   as NCCL's search builds them at one link's speed. A bond of k NVLinks carries up to k rings
//   per direction, each ring hop takes one link, and the search finds the largest set of rings
//   that fits the links (exact packing by backtracking, within a step budget; greedy beyond).
//   Every ring then runs at one link's achieved rate (nvlink_achieved_gbps_per_link: 22.2 GB/s
//   on V100), so the bus bandwidth is rings x that rate. On the DGX-1 V100 hybrid cube-mesh, 8
//   GPUs get 6 rings that use all six NVLinks of every GPU in both directions: 133.3 GB/s.
// - Otherwise NCCL runs several rings (channels) at once. Channels are found greedily: the ring order
//   with the widest bottleneck over the residual capacities (exact dynamic programming over
//   subsets for up to 10 GPUs; nearest-neighbour plus 2-opt beyond), its rate is what every
//   edge it crosses can still carry (an edge crossed by two hops of one ring gives each half),
//   that rate is subtracted, and the search repeats, at most 16 channels. Like NCCL, all
//   channels stay on NVLink when an NVLink-only ring exists; only otherwise do they use PCIe.
//   On NVSwitch a GPU's links into the fabric are one edge, so every ring through the switch
//   shares the GPU's total NVLink bandwidth (the per-GPU figure, not per-pair x n).
// - Hops through an Intel CPU consume 1.2x their rate (NCCL INTEL_P2P_OVERHEAD).
// - Ring all-reduce moves 2(n-1)/n x S bytes per GPU; bus bandwidth is the sum of the channel
//   rates (what nccl-tests reports as busBw for large messages with the Simple protocol).
// - NCCL P2P read mode (A100: "Enable P2P Read for Ampere/NVLink only", NCCL src/graph/paths.cc
//   ncclTopoCheckP2p, both GPUs SM80 on an NVLink path): the Simple protocol's buffer sits on the
//   sender (src/transport/p2p.cc), and the receiver's loads pull every byte over NVLink. Per
//   chunk a rank runs 2n-1 steps (src/device/all_reduce.h, runRing: send, n-2 recvReduceSend,
//   recvReduceCopySend, n-2 recvCopySend, recv): 2(n-1) pull from the peer, the opening send only
//   stages the chunk in the rank's own buffer (a device-memory read and write). Two CTAs per NVLink
//   are what saturates a link (nccl#1703: NCCL runs 2 channels per link for large messages), so
//   no spare channel fills the link while one stages. A staging step takes f times a pull step:
//   the same bytes at a channel's share of device memory, counted twice (read + write), against
//   its share of the NVLink bandwidth, f = 2 x link / memory (the channel count cancels). Each
//   channel then runs at 2(n-1) / (2(n-1) + f) of its link rate: DGX A100 (240 GB/s NVLink,
//   1,555 GB/s HBM2, f = 0.31) 207.9 GB/s for 2 GPUs, 228.3 for 4, 234.8 for 8. Write mode (V100,
//   H100 and every non-NVLink path) posts its stores, so channels can outrun the link and fill
//   each other's local steps: no share (measured: H100 ring flat from 2 to 8 GPUs, nccl#1455).
// - NVLS (NVLink SHARP) is computed beside the ring when NCCL could run it (nvls_bus_gbps,
//   core/nccl_algo.h); the ring figures themselves are unchanged by it.
// - Not modelled: tree/CollNet algorithms, PXN, SM limits on channel count, and the
//   protocol's chunking; NCCL finds channels by a timed search, this model by the greedy above.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/gpu_set.h"
#include "core/topology.h"
#include "util/enum_names.h"

namespace topsim {

struct RingPlan {
  std::vector<int> order;                       // GPU ids of the first (widest) ring, starting at the lowest id
  std::vector<double> channel_gbps;             // rate of each channel found, GB/s
  std::vector<std::vector<int>> channel_rings;  // ring order of each channel (GPU ids)
  double bus_bandwidth_gbps = 0;                // sum of channel rates; 0 for fewer than 2 GPUs
  bool nvlink_only = false;                     // every hop of every channel is NVLink (direct or NVSwitch)
  LinkClass worst_hop = LinkClass::Self;        // worst link class among the ring's hops
  double p2p_read_share = 1.0;                  // share of a channel's time spent pulling (P2P read, above); 1 otherwise
  // NVLink SHARP (core/nccl_algo.h): the bus bandwidth NCCL's NVLS all-reduce reaches over these
  // GPUs, GB/s; 0 when NVLS is not possible (before Hopper, a GPU off the NVSwitch, one GPU).
  double nvls_bus_gbps = 0;
};

// Share of its time a channel moves data over NVLink in NCCL's P2P read mode (model in the header
// comment): 2(n-1) / (2(n-1) + 2 x link / memory) for `ranks` GPUs, `link_gbps` of NVLink per GPU
// and `memory_gbps` of device memory. 1 when ranks < 2 or memory_gbps <= 0 (not catalogued).
double p2p_read_share(int ranks, double link_gbps, double memory_gbps);

class RingModel {
 public:
  // REQUIRES: `topology` outlives the model.
  explicit RingModel(const Topology& topology);

  // Plans the rings for `gpus` (distinct node GPU ids, any order).
  RingPlan plan(const std::vector<int>& gpus) const;
  // Bus bandwidth of plan(gpus), GB/s.
  double bus_bandwidth_gbps(const std::vector<int>& gpus) const { return plan(gpus).bus_bandwidth_gbps; }

  const Topology& topology() const { return *topology_; }

 private:
  struct Hop {
    std::vector<int> route;    // directed edges, as Topology::gpu_route numbers them
    double cost_factor = 1.0;  // capacity consumed per unit of rate (Intel P2P overhead)
    bool nvlink = false;
  };
  const Hop& hop(int a, int b) const { return hops_[a * topology_->gpu_count() + b]; }
  void route_hops();
  // Widest-bottleneck ring over `gpus` given residual directed capacities; empty if none.
  std::vector<int> widest_ring(const std::vector<int>& gpus, const std::vector<double>& residual, bool nvlink_only) const;
  double hop_capacity(int a, int b, const std::vector<double>& residual, bool nvlink_only) const;
  bool all_through_nvswitch(const std::vector<int>& gpus) const;
  bool any_through_nvswitch(const std::vector<int>& gpus) const;
  // The largest set of rings over single direct NVLinks among `gpus` (model above); node ids.
  std::vector<std::vector<int>> link_rings(const std::vector<int>& gpus) const;
  // The channel set of link_rings, when it finds any: one channel per ring at one link's rate.
  bool plan_link_rings(const std::vector<int>& gpus, RingPlan& plan) const;
  // Scales `plan`'s channels by p2p_read_share when NCCL would run them in P2P read mode.
  void apply_p2p_read(const std::vector<int>& gpus, RingPlan& plan) const;

  const Topology* topology_;
  std::vector<Hop> hops_;  // gpu_count x gpu_count
};

enum class NcclProtocol { LL, LL128, Simple };
template <>
struct EnumNames<NcclProtocol> {
  static constexpr std::array<EnumName<NcclProtocol>, 3> table{
      {{NcclProtocol::LL, "LL"}, {NcclProtocol::LL128, "LL128"}, {NcclProtocol::Simple, "Simple"}}};
};

// NCCL's all-reduce algorithms topsim models (core/nccl_algo.h); names as NCCL_ALGO spells them.
enum class NcclAlgorithm { Ring, NVLS, NVLSTree, Tree };
template <>
struct EnumNames<NcclAlgorithm> {
  static constexpr std::array<EnumName<NcclAlgorithm>, 4> table{{{NcclAlgorithm::Ring, "Ring"},
                                                                 {NcclAlgorithm::NVLS, "NVLS"},
                                                                 {NcclAlgorithm::NVLSTree, "NVLSTree"},
                                                                 {NcclAlgorithm::Tree, "Tree"}}};
};

struct AllReduceEstimate {
  double time_us = 0;
  NcclProtocol protocol = NcclProtocol::Simple;
  NcclAlgorithm algorithm = NcclAlgorithm::Ring;
};

// Ring all-reduce time for `bytes` over `ranks` GPUs on `nodes` nodes with the given bus
// bandwidth (GB/s), choosing the fastest protocol as NCCL's tuner does:
// time = latency + 2(n-1)/n x S / (busBw x efficiency), efficiency LL 0.5, LL128 0.92,
// Simple 1.0; latency = base + (2(n-1) - nInter) x intra-hop + nInter x inter-hop,
// nInter = 2(nodes-1) (NCCL tuning.cc constants in REFERENCE.md). `nvlink_hops` picks the
// NVLink or PCIe intra-node hop latency. `net_latency_us` (default 0) is what the network adds to
// each inter-node step beyond those constants, as NCCL adds its network plugin's reported
// latency (tuning.cc: interLat += graph->latencyInter, once more for Simple's flush; the IB and
// socket transports report 0, AWS's EFA plugin 75 us on p4d): a measured pair's latency_us.
// REQUIRES: ranks >= 1, nodes >= 1, bus_bandwidth_gbps > 0 when ranks > 1, net_latency_us >= 0.
AllReduceEstimate allreduce_time(double bytes, int ranks, int nodes, double bus_bandwidth_gbps, bool nvlink_hops,
                                 double net_latency_us = 0);

}  // namespace topsim
