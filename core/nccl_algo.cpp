#include "core/nccl_algo.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/hardware.h"

namespace topsim {
namespace {

// NCCL tuning.cc @v2.30.7-1 hwLat, Simple protocol, µs: NVLink NVLS / NVLSTree 25; NET NVLSTree 20.9.
constexpr double kNvlsIntraLatencyUs = 25.0;
constexpr double kNvlsTreeNetLatencyUs = 20.9;

// NCCL tuning.cc perChMaxNVLSTreeBws, GB/s per channel, columns 1 / 2 / 4+ nodes (0: no ceiling):
// Hopper 0 / 57.7 / 45.5 (v2.28.3-1..v2.30.7-1); Blackwell 0 / 96.0 / 80.0 (v2.30.4-1..v2.30.7-1;
// the 4+ column was 43.1 in v2.28.3-1 and 43.8 in v2.28.9-1..v2.29.7-1).
double nvls_tree_channel_ceiling_gbps(int sm, int domains) {
  if (domains < 2) return 0;
  if (sm >= 100) return domains == 2 ? 96.0 : 80.0;
  return domains == 2 ? 57.7 : 45.5;
}

// The NVLink 5 switch's reduction rate per GPU link, as a share of NCCL's figure for the link
// (40.1 GB/s on SM100, core/hardware.h): each switch port adds 0.5823 x 40.1 = 23.35 GB/s of
// operands. Calibrated on one run, CoreWeave's GB200 NVL72 rack (coreweave/nccl-tests README.md
// @ 0120901a, NCCL 2.26.2, 8 GiB: 834.57 / 846.82 GB/s bus bandwidth, mean 840.7, so algBw =
// 840.7 x 72 / 142 = 426.3 GB/s over 72 GPUs of 18 links each: 426.3 x 71 / (72 x 18) / 40.1 =
// 0.5823). Validated on others (tests/core/nccl_published.h): it leaves 8 x B200, 8 x B300 and two
// trays to the per-link rule (its bound there, 840.6 GB/s of bus bandwidth, is 1.2% above the
// rule's 830.9 and the measured 830+, 845, 811 and 840.4) and predicts 2 racks' NVLSTree at 846.5
// against 810-820 measured, and a GB300 NVL72 rack at 840.6 against 918.8 (16 GiB, still rising).
constexpr double kNvlink5SwitchReduceShare = 0.5823;

// Algorithm bandwidth of NVLS over `ranks` GPUs with `link_gbps` each (header model), GB/s: the
// least of the busiest link's, a head's at S + S/h per direction, h = nvls_heads(ranks), and on
// Blackwell the switch's reduction rate: every reduced byte takes ranks - 1 additions, spread
// over the ranks x links switch ports the domain's GPUs use.
double nvls_alg_gbps(int sm, double link_gbps, int ranks) {
  const double heads = nvls_heads(ranks);
  const double links = nvls_efficiency(sm) * link_gbps * heads / (heads + 1.0);
  if (sm < 100 || ranks < 2) return links;
  return std::min(links, kNvlink5SwitchReduceShare * link_gbps * ranks / (ranks - 1.0));
}

double bus_from_alg(double alg_gbps, int ranks) { return alg_gbps * 2.0 * (ranks - 1) / ranks; }

// NCCL tuning.cc @v2.30.7-1, Tree, µs per protocol {LL, LL128, Simple}: baseLatencies, and
// hwLatencies on NVLink, PCI and NET.
constexpr double kTreeBaseUs[] = {6.8, 14.0, 8.4};
constexpr double kTreeNvlinkHopUs[] = {0.6, 1.25, 4.0};
constexpr double kTreePcieHopUs[] = {1.0, 1.9, 4.0};
constexpr double kTreeNetHopUs[] = {5.0, 8.5, 14.0};
// tuning.cc: Tree all-reduce busBw x 0.92; LL at 1/3.8 of it, LL128 at 120/128 across nodes.
constexpr double kTreeBusShare = 0.92;
constexpr double kTreeProtocolShare[] = {1.0 / 3.8, 120.0 / 128.0, 1.0};
// tuning.cc treeCorrectionFactor[protocol][log2(bytes / 64)], for sizes below 512 MiB: the Tree
// bandwidth the tuner expects at each size, as a share of its large-message figure.
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// Tree all-reduce time of `bytes` over `ranks` GPUs on `hosts` hosts at `bus_gbps` (header
// model) with protocol `p` (0 LL, 1 LL128, 2 Simple).
double tree_time_us(double bytes, int ranks, int hosts, double bus_gbps, bool nvlink_hops, double net_latency_us, int p) {
  const int size_log = static_cast<int>(std::floor(std::log2(std::max(bytes / 64, 1.0))));
  const int per_host_hops = ranks / hosts - 1;  // NCCL: nRanks / nNodes, integer division
  const int net_hops = static_cast<int>(std::floor(std::log2(hosts)));
  const double moved_bytes = 2.0 * (ranks - 1) / ranks * bytes;
  const double net_hop = kTreeNetHopUs[p] + net_latency_us * (p == 2 ? 2 : 1);
  const double latency =
      kTreeBaseUs[p] + 2 * (per_host_hops * (nvlink_hops ? kTreeNvlinkHopUs[p] : kTreePcieHopUs[p]) + net_hops * net_hop);
  const double correction = bytes >= 64 && size_log < 23 ? kTreeCorrection[p][size_log] : 1.0;
  return latency + moved_bytes / (bus_gbps * kTreeProtocolShare[p] * correction * 1e3);
}

// The busiest host's flows per direction as `counted`: as the tree carries them or as NCCL's
// tuner counts them.
double flows(int hosts, TreeFlows counted) {
  return counted == TreeFlows::Carried ? tree_network_flows(hosts) : tree_tuner_flows(hosts);
}

// A candidate of NCCL's choice: the time its tuner expects, and the time the run takes.
struct Timed {
  double tuner_us = std::numeric_limits<double>::infinity();
  AllReduceEstimate run;
  void offer(double tuner_us_of, const AllReduceEstimate& run_of) {
    if (tuner_us_of < tuner_us) *this = {tuner_us_of, run_of};
  }
};

}  // namespace

double nvls_efficiency(int sm) {
  if (sm >= 100) return 0.74;  // NCCL tuning.cc v2.28+ nvlsEfficiency, Blackwell
  if (sm >= 90) return 0.85;   // Hopper
  return 0;                    // Volta, Ampere: no NVLink SHARP (nccl-tests#228)
}

int nvls_channels(int sm) { return sm >= 100 ? 32 : 16; }

int nvls_heads(int ranks) { return std::min(ranks, kNcclMaxNvlsArity); }

double nvswitch_link_gbps(const Topology& node, const std::vector<int>& gpus) {
  double link = std::numeric_limits<double>::infinity();
  for (int g : gpus) {
    const Gpu& gpu = node.model().gpus[g];
    link = std::min(link, gpu.nvswitch_links * nvlink_gbps_per_link(gpu.sm));
  }
  return gpus.empty() ? 0 : link;
}

int min_sm(const Topology& node, const std::vector<int>& gpus) {
  int sm = std::numeric_limits<int>::max();
  for (int g : gpus) sm = std::min(sm, node.model().gpus[g].sm);
  return gpus.empty() ? 0 : sm;
}

double nvls_bus_gbps(int sm, double link_gbps, int ranks) {
  if (ranks < 2 || !(link_gbps > 0) || nvls_efficiency(sm) <= 0) return 0;
  return bus_from_alg(nvls_alg_gbps(sm, link_gbps, ranks), ranks);
}

double nvls_tree_bus_gbps(int sm, const std::vector<NvlsDomain>& domains, TreeFlows counted) {
  const int count = static_cast<int>(domains.size());
  if (count < 2 || nvls_efficiency(sm) <= 0) return 0;
  double alg = std::numeric_limits<double>::infinity();
  double ceiling = std::numeric_limits<double>::infinity();
  int ranks = 0;
  for (const NvlsDomain& d : domains) {
    if (!(d.link_gbps > 0) || d.nics < 1 || d.ranks < 2) return 0;
    ranks += d.ranks;
    alg = std::min({alg, nvls_alg_gbps(sm, d.link_gbps, d.ranks), d.network_gbps / flows(count, counted)});
    ceiling = std::min(ceiling, std::min(d.nics, nvls_channels(sm)) * nvls_tree_channel_ceiling_gbps(sm, count));
  }
  return std::min(bus_from_alg(alg, ranks), ceiling);
}

double tree_network_flows(int hosts) {
  if (hosts <= 2) return 1;
  return hosts == 3 ? 1.5 : 2;
}

int tree_tuner_flows(int hosts) { return hosts <= 2 ? 1 : 2; }

double host_network_demand_gbps(NcclAlgorithm algorithm, double bus_gbps, int ranks, int hosts) {
  if ((algorithm != NcclAlgorithm::Tree && algorithm != NcclAlgorithm::NVLSTree) || ranks < 2) return bus_gbps;
  return bus_gbps * ranks / (2.0 * (ranks - 1)) * tree_network_flows(hosts);
}

double tree_bus_gbps(const std::vector<TreeHost>& hosts, TreeFlows counted) {
  const int count = static_cast<int>(hosts.size());
  if (count < 2) return 0;
  double alg = std::numeric_limits<double>::infinity();
  int ranks = 0;
  for (const TreeHost& h : hosts) {
    if (!(h.network_gbps > 0) || h.ranks < 1) return 0;
    ranks += h.ranks;
    const double chain = h.ranks > 2 ? h.ring_gbps / 2 : h.ranks == 2 ? h.ring_gbps : std::numeric_limits<double>::infinity();
    alg = std::min({alg, h.network_gbps / flows(count, counted), chain});
  }
  return kTreeBusShare * bus_from_alg(alg, ranks);
}

double AllReduceAlgos::nvls_tuner_gbps() const { return nvls_tuner_bus_gbps < 0 ? nvls_bus_gbps : nvls_tuner_bus_gbps; }

double AllReduceAlgos::tree_tuner_gbps() const { return tree_tuner_bus_gbps < 0 ? tree_bus_gbps : tree_tuner_bus_gbps; }

NcclAlgorithm AllReduceAlgos::large_message_algorithm() const {
  const double best = std::max({ring_bus_gbps, nvls_tuner_gbps(), tree_tuner_gbps()});
  if (ring_bus_gbps >= best) return NcclAlgorithm::Ring;
  return nvls_tuner_gbps() >= best ? nvls_kind : NcclAlgorithm::Tree;
}

double AllReduceAlgos::large_message_bus_gbps() const {
  const NcclAlgorithm chosen = large_message_algorithm();
  if (chosen == NcclAlgorithm::Ring) return ring_bus_gbps;
  return chosen == NcclAlgorithm::Tree ? tree_bus_gbps : nvls_bus_gbps;
}

AllReduceEstimate allreduce_time(double bytes, int ranks, int domains, const AllReduceAlgos& algos, bool nvlink_hops,
                                 double net_latency_us) {
  const AllReduceEstimate ring = allreduce_time(bytes, ranks, domains, algos.ring_bus_gbps, nvlink_hops, net_latency_us);
  if (ranks < 2 || bytes <= 0) return ring;
  Timed best;
  best.offer(ring.time_us, ring);
  if (domains > 1 && algos.tree_bus_gbps > 0) {
    for (int p = 0; p < 3; ++p) {
      const auto time = [&](double bus_gbps) {
        return tree_time_us(bytes, ranks, domains, bus_gbps, nvlink_hops, net_latency_us, p);
      };
      best.offer(time(algos.tree_tuner_gbps()), {time(algos.tree_bus_gbps), static_cast<NcclProtocol>(p), NcclAlgorithm::Tree});
    }
  }
  if (!(algos.nvls_bus_gbps > 0)) return best.run;
  double latency = kNvlsIntraLatencyUs;
  if (algos.nvls_kind == NcclAlgorithm::NVLSTree)
    latency += 2.0 * std::log2(std::max(domains, 1)) * (kNvlsTreeNetLatencyUs + 2 * net_latency_us);
  const double moved_bytes = 2.0 * (ranks - 1) / ranks * bytes;  // bus bandwidth counts these bytes
  const auto time = [&](double bus_gbps) { return latency + moved_bytes / (bus_gbps * 1e3); };
  best.offer(time(algos.nvls_tuner_gbps()), {time(algos.nvls_bus_gbps), NcclProtocol::Simple, algos.nvls_kind});
  return best.run;
}

}  // namespace topsim
