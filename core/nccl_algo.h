// NCCL's all-reduce algorithms beyond the ring: NVLS (NVLink SHARP) inside one NVLink domain and
// NVLSTree (NVLS inside each domain, a tree over the network between domains), the bus bandwidth
// each reaches on a set of GPUs, and which algorithm NCCL's tuner runs for a message size.
//
// An NVLink domain is a set of GPUs behind one NVLink switch fabric: the GPUs of one NVSwitch
// node (HGX H100, H200, B200), or the GPUs of several nodes sharing one (GB200 NVL72: 18 trays).
//
// Model (NCCL src/graph/tuning.cc, search.cc, src/transport/nvls.cc; docs/throughput-model.md):
// - Ring: the RingModel's bus bandwidth (core/ring.h), or gang.h's across nodes.
// - NVLS over the n GPUs of one domain (Hopper and later, every GPU on the switch fabric): the
//   switch reduces, through h = min(n, 32) head GPUs (NCCL_MAX_NVLS_ARITY, device.h; the NVLS
//   graph has one channel per head, search.cc ncclTopoCompute). Every GPU copies its data into
//   its share of the multicast buffer; each head's multimem load-reduce of its 1/h shard makes the
//   switch read that shard from every GPU, and its multimem store of the reduced shard is
//   multicast to all n (device/all_reduce.h, NVLS oneNode path: only heads reduce). Per
//   direction a GPU's NVLink carries S for an all-reduce of S bytes, a head's S + S/h (the
//   (h + 1) charge NCCL's search puts on a GPU-to-NVSwitch link, search.cc
//   ncclTopoSearchTryNvls). The switch path reaches NCCL's nvlsEfficiency of the link (tuning.cc
//   v2.28+: Hopper 0.85, Blackwell 0.74). So algBw = eff x L x h/(h+1), L the GPU's NCCL NVLink
//   bandwidth into the switch, and the bus bandwidth nccl-tests reports is algBw x 2(n-1)/n; up
//   to 32 GPUs, eff x L x 2(n-1)/(n+1). On Blackwell the NVLink 5 switch's own reduction rate
//   bounds it too: each reduced byte takes n - 1 additions in the switch, spread over the n x
//   links ports the domain's GPUs use, each adding a fixed share of its link's bandwidth
//   (nccl_algo.cpp, calibrated on one GB200 NVL72 rack): algBw <= rho x L x n/(n-1). At 8 GPUs
//   both bounds meet (8 x B200); at 72 the switch's binds (the rack's plateau).
// - NVLSTree over D domains: NVLS inside each, a tree between domains over the NICs. On two
//   domains each sends and receives S per direction over its NICs (NCCL doubles bwInter for
//   nNodes <= 2, tuning.cc v2.28+); beyond two, the busiest domain carries the flows of NCCL's
//   double binary tree between them (connect.cc builds the NVLSTree's network tree with the Tree's
//   ncclGetDtree; see Tree below): 1.5 on 3 domains, 2 from 4 on, where the tuner counts 2 from 3
//   on (bwInter not doubled, tuning.cc v2.23 NVLSTree). algBw = min over domains of
//   min(eff x L x k/(k+1) for its k heads, net / flows), net the domain's
//   achieved NIC bandwidth (core/network_model.h) over at most kNcclMnnvlNetNics of its NICs
//   when it spans several nodes; the bus bandwidth is also at most channels x
//   NCCL's per-channel ceiling perChMaxNVLSTreeBw (tuning.cc v2.28+), one channel per NIC head,
//   at most NCCL's NVLS channel count (nvls.cc v2.25+: 16 on Hopper, 32 on Blackwell).
// - The choice, per message: NCCL's time per call, latency + S / algBw, minimum over algorithm and
//   protocol (enqueue.cc, ncclTopoGetAlgoTime). Ring: ring.h allreduce_time (LL, LL128, Simple).
//   NVLS and NVLSTree run Simple only; latency (tuning.cc v2.30.7 hwLat): NVLS 25 us (NVLink,
//   NVLS, Simple), NVLSTree 25 + 2 log2(D) x 20.9 us (NET, NVLSTree, Simple).
// - Tree between hosts (NCCL trees.cc, a double binary tree over the hosts, each host a chain
//   from the GPU nearest the NIC through its GPUs; sjeaugey nccl#545): an all-reduce of S bytes
//   reduces up the trees and broadcasts down, each tree carrying S/2. A host sends its tree's
//   share once to its parent and once to each child, so per direction it carries S/2 x (its
//   links in both trees): a flow is S. On 2 hosts each host roots one tree and is the other's
//   child: 1 flow, against the ring's 2(k-1)/k S, "up to ~2x the network speed" (sjeaugey
//   nccl#946), which 2 x DGX A100 reach (nccl#812). On 3 hosts each tree is a chain (the second
//   the first shifted by one host), so the busiest host is a chain's middle in one tree and its
//   root or leaf in the other: 1.5 flows. From 4 hosts on a host is interior (a parent, 2
//   children) in one tree and a leaf in the other: 2 flows (tree_network_flows; a test builds
//   NCCL's trees and counts). NCCL's tuner counts 2 beyond 2 hosts (bwInter not doubled, ratio
//   0.5, tuning.cc), so on 3 hosts it chooses by a Tree and an NVLSTree 3/4 as fast across the
//   network as they run: the model chooses by the tuner's figures (AllReduceAlgos' tuner
//   fields) and times what runs at the carried ones. Beyond two hosts the ring keeps large
//   messages ("beyond two nodes, the same effect will not be present", AddyLaddy nccl#812) and
//   Tree wins small ones by latency. Inside a
//   host the chain's middle GPUs send S up and S down: the chain runs at half the host's ring bus
//   bandwidth from 3 GPUs on, at the ring's with 2, unbounded with 1. Bus bandwidth = 0.92 (the
//   tuner's Tree term, tuning.cc) x min over hosts of min(network / flows, chain) x 2(k-1)/k over
//   the k ranks. NCCL's further x 0.85 for the one-GPU-per-node tree pattern on Hopper and later
//   is not applied: forced trees on GB200 partitions (nccl#1801, NCCL 2.27.3) show no such loss
//   against their own rings. Time (tuning.cc v2.30.7): base {6.8, 14, 8.4} us + 2 x ((k/D - 1) x
//   intra + floor(log2 D) x net), hop latencies per protocol LL / LL128 / Simple NVLink {0.6,
//   1.25, 4.0}, PCI {1.0, 1.9, 4.0}, NET {5, 8.5, 14} (+ a measured pair's latency, twice for
//   Simple, as the ring); LL at busBw / 3.8, LL128 x 120/128; below 512 MiB the tuner's
//   treeCorrectionFactor per protocol and size (ncclTopoGetAlgoTime).
// - Not modelled: CollNet (SHARP in the network switches), PAT, Tree's per-channel ceilings
//   (perChMaxTreeBws; the model has no channel count across hosts), NCCL's
//   tuner figure for NVLS (heads x per-head speed from its search, tuning.cc: 476 GB/s on
//   8 x H100, 300 on 5 x H100, 720 on 8 x B200, 917.6 on an NVL72 rack; measured 480, 420, 830+
//   and 841: the per-link rule above is the better predictor up to 8 GPUs, see the validation
//   table), a reduction rate of Hopper's NVSwitch (no Hopper run reaches one).
#pragma once

#include <vector>

#include "core/ring.h"
#include "core/topology.h"

namespace topsim {

// NCCL tuning.cc (v2.28+) nvlsEfficiency: 0 before Hopper (no NVLS), 0.85 Hopper, 0.74 Blackwell.
double nvls_efficiency(int sm);
// NVLS channels NCCL runs (nvls.cc v2.25+ NCCL_NVLS_NCHANNELS default): 16 on SM90, 32 on SM100.
int nvls_channels(int sm);
// NCCL device.h NCCL_MAX_NVLS_ARITY: at most 32 GPUs of a domain are NVLS heads.
inline constexpr int kNcclMaxNvlsArity = 32;
// NICs NCCL uses between multi-node NVLink domains (its MNNVL cliques, each one NCCL node): 16 on
// GB200 from NCCL 2.27.3 (release notes v2.27.3-1, "MNNVL improvements": "Increase to 16 the
// number of NICs used to communicate between MNNVL domains"); a domain whose trays in the job hold
// fewer uses them all (nccl#1801, NCCL 2.27.3: rings between 3 partitions of 1 and 2 trays reach
// 4 and 8 NICs' bandwidth).
inline constexpr int kNcclMnnvlNetNics = 16;
// The NVLS heads of a domain with `ranks` of the job's GPUs: min(ranks, kNcclMaxNvlsArity).
int nvls_heads(int ranks);

// Which flows a tree's bus bandwidth is worked out for: those its busiest host carries (what the
// run reaches) or those NCCL's tuner counts (what it chooses by).
enum class TreeFlows { Carried, TunerCounted };

// The GPUs' NCCL NVLink bandwidth into the node's NVSwitch fabric (links x nvlink_gbps_per_link),
// the least among `gpus`, GB/s; 0 when any of them has no NVSwitch link.
double nvswitch_link_gbps(const Topology& node, const std::vector<int>& gpus);
// The lowest compute capability among `gpus`.
int min_sm(const Topology& node, const std::vector<int>& gpus);

// NVLS bus bandwidth over `ranks` GPUs of one domain, each with `link_gbps` into the switch
// (model above), GB/s; 0 when NVLS is impossible (sm before 90, fewer than 2 GPUs, no link).
double nvls_bus_gbps(int sm, double link_gbps, int ranks);

// One NVLink domain of an NVLSTree: its GPUs in the job, their NVLink bandwidth into the switch,
// the domain's achieved network bandwidth (GB/s) and the NICs it uses.
struct NvlsDomain {
  int ranks = 0;
  double link_gbps = 0;
  double network_gbps = 0;
  int nics = 0;
};
// NVLSTree bus bandwidth over `domains` (model above), GB/s; 0 when NVLS is impossible in one of
// them (fewer than 2 of the job's GPUs there, as NCCL needs 2 local ranks, a GPU off the switch,
// no NIC) or there is a single domain.
double nvls_tree_bus_gbps(int sm, const std::vector<NvlsDomain>& domains, TreeFlows counted = TreeFlows::Carried);

// Flows (the all-reduce's size, S) per direction through the busiest host of NCCL's double binary
// tree over `hosts` hosts (model above): 1 on 2 hosts, 1.5 on 3, 2 beyond.
double tree_network_flows(int hosts);
// The flows NCCL's tuner counts there (model above): 1 on 2 hosts, 2 beyond.
int tree_tuner_flows(int hosts);

// What `algorithm` at `bus_gbps` over `ranks` GPUs on `hosts` hosts sends per direction through
// the busiest host's NICs, GB/s: a ring its bus bandwidth; a Tree or NVLSTree its algorithm
// bandwidth, bus x k / 2(k-1), times tree_network_flows(hosts).
double host_network_demand_gbps(NcclAlgorithm algorithm, double bus_gbps, int ranks, int hosts);

// One host of a Tree: the job's GPUs there, their ring bus bandwidth (GB/s; read from 2 GPUs on)
// and the host's achieved network bandwidth for the job (GB/s).
struct TreeHost {
  int ranks = 0;
  double ring_gbps = 0;
  double network_gbps = 0;
};
// Tree bus bandwidth over `hosts` (model above), GB/s; 0 for fewer than 2 hosts or a host
// without network bandwidth.
double tree_bus_gbps(const std::vector<TreeHost>& hosts, TreeFlows counted = TreeFlows::Carried);

// What each algorithm offers one communicator: the bus bandwidth each reaches when it runs, and
// what NCCL's tuner expects of the tree-shaped ones where that differs (3 hosts: model above).
struct AllReduceAlgos {
  double ring_bus_gbps = 0;                       // ring bus bandwidth, GB/s
  double nvls_bus_gbps = 0;                       // NVLS or NVLSTree bus bandwidth; 0 = not possible
  NcclAlgorithm nvls_kind = NcclAlgorithm::NVLS;  // NVLS on one domain, NVLSTree on several
  double tree_bus_gbps = 0;                       // Tree between hosts; 0 = not possible (one host)
  // What NCCL's tuner expects of NVLS/NVLSTree and of Tree, GB/s, at most the figures above;
  // negative: the figure above. The tuner chooses by these; the chosen one runs at its figure above.
  double nvls_tuner_bus_gbps = -1;
  double tree_tuner_bus_gbps = -1;

  double nvls_tuner_gbps() const;
  double tree_tuner_gbps() const;
  // The algorithm NCCL runs for large messages: the one its tuner expects the highest bus
  // bandwidth of (ties: the ring, then NVLS or NVLSTree), and the bus bandwidth it reaches.
  NcclAlgorithm large_message_algorithm() const;
  double large_message_bus_gbps() const;
};

// Time of an all-reduce of `bytes` over `ranks` GPUs in `domains` NVLink domains (hosts, to
// NCCL), choosing algorithm and protocol as NCCL's tuner does (model above): the choice by the
// tuner's figures, the time at the chosen one's figure. `nvlink_hops` picks
// the ring's intra-domain hop latency; `net_latency_us` what the network adds to each
// inter-domain step (ring.h allreduce_time; NVLSTree pays it, twice as Simple, on each of its
// 2 log2(D) network steps, tuning.cc, and Tree on its 2 floor(log2 D)). REQUIRES: ranks >= 1, domains >= 1, a positive bandwidth
// for the ring when ranks > 1.
AllReduceEstimate allreduce_time(double bytes, int ranks, int domains, const AllReduceAlgos& algos, bool nvlink_hops,
                                 double net_latency_us = 0);

}  // namespace topsim
