// gang_comm_path (core/throughput.h): a gang's communication path by NVLink domain.
#include <algorithm>
#include <limits>
#include <map>

#include "core/nccl_algo.h"
#include "core/throughput.h"

namespace topsim {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// The gang's GPUs on one of its NVLink domains.
struct DomainShare {
  int nodes = 0;
  int ranks = 0;
  int sm = std::numeric_limits<int>::max();
  double link_gbps = kUnbounded;  // least NVLink bandwidth into the switch (0: a GPU off it)
  double ring_gbps = kUnbounded;  // least NVLink ring rate of its nodes (unbounded: single GPUs)
  double network_gbps = 0;        // achieved NIC bandwidth of its nodes
  int nics = 0;
  bool nvlink_only = true;
};

// Per entry of placement.nodes, its GPUs in the gang.
std::vector<std::vector<int>> gpus_per_slot(const GangPlacement& placement) {
  std::vector<std::vector<int>> gpus(placement.nodes.size());
  for (const WorkerPlacement& w : placement.workers) {
    const auto slot = std::find(placement.nodes.begin(), placement.nodes.end(), w.node) - placement.nodes.begin();
    gpus[static_cast<size_t>(slot)].insert(gpus[static_cast<size_t>(slot)].end(), w.gpus.begin(), w.gpus.end());
  }
  return gpus;
}

// The gang's domains in node order: a node alone, or the nodes of one nvlink_domain id (a node
// whose GPUs are not on an NVSwitch fabric stays alone, whatever its id).
std::vector<DomainShare> domain_shares(const GangPlacement& placement, const std::vector<GangNode>& nodes) {
  const std::vector<std::vector<int>> gpus = gpus_per_slot(placement);
  std::vector<DomainShare> domains;
  std::map<int, size_t> by_id;
  for (size_t slot = 0; slot < placement.nodes.size(); ++slot) {
    const GangNode& node = nodes[static_cast<size_t>(placement.nodes[slot])];
    const Topology& topo = node.allocator->topology();
    const int id = nvswitch_link_gbps(topo, gpus[slot]) > 0 ? node.nvlink_domain : -1;
    if (id < 0 || !by_id.count(id)) {
      if (id >= 0) by_id[id] = domains.size();
      domains.emplace_back();
    }
    DomainShare& d = id < 0 ? domains.back() : domains[by_id[id]];
    const RingPlan& ring = placement.node_rings[slot];
    ++d.nodes;
    d.ranks += static_cast<int>(gpus[slot].size());
    d.sm = std::min(d.sm, min_sm(topo, gpus[slot]));
    d.link_gbps = std::min(d.link_gbps, nvswitch_link_gbps(topo, gpus[slot]));
    if (gpus[slot].size() > 1) d.ring_gbps = std::min(d.ring_gbps, ring.bus_bandwidth_gbps);
    d.nvlink_only = d.nvlink_only && (gpus[slot].size() < 2 || ring.nvlink_only);
    d.network_gbps += placement.node_network_gbps[slot];
    d.nics += static_cast<int>(placement.nics_per_node[slot].size());
  }
  // Between multi-node NVLink domains NCCL crosses the network through at most
  // kNcclMnnvlNetNics of a domain's NICs (each node's NICs carry the same share).
  for (DomainShare& d : domains)
    if (d.nodes > 1 && d.nics > kNcclMnnvlNetNics) {
      d.network_gbps *= static_cast<double>(kNcclMnnvlNetNics) / d.nics;
      d.nics = kNcclMnnvlNetNics;
    }
  return domains;
}

// The ring rate inside a domain: its nodes' rings, and across its nodes the link into the switch.
double domain_ring_gbps(const DomainShare& d) { return d.nodes > 1 ? std::min(d.ring_gbps, d.link_gbps) : d.ring_gbps; }

// Several nodes in one NVLink domain: NCCL sees one host whose GPUs all meet at the switch.
CommPath one_domain_path(const DomainShare& d) {
  CommPath path;
  path.ranks = d.ranks;
  path.nvlink_hops = true;
  path.transport = CommTransport::NvLinkP2p;
  choose_algorithm(path, {domain_ring_gbps(d), nvls_bus_gbps(d.sm, d.link_gbps, d.ranks), NcclAlgorithm::NVLS});
  return path;
}

CommPath several_domains_path(const std::vector<DomainShare>& domains) {
  CommPath path;
  path.hosts = static_cast<int>(domains.size());
  path.ranks = 0;
  double ring = kUnbounded;
  int sm = std::numeric_limits<int>::max();
  std::vector<NvlsDomain> tree;
  for (const DomainShare& d : domains) {
    path.ranks += d.ranks;
    ring = std::min({ring, domain_ring_gbps(d), d.network_gbps});
    sm = std::min(sm, d.sm);
    tree.push_back({d.ranks, d.link_gbps, d.network_gbps, d.nics});
  }
  path.nvlink_hops = std::all_of(domains.begin(), domains.end(), [](const DomainShare& d) { return d.nvlink_only; });
  choose_algorithm(path, {ring, nvls_tree_bus_gbps(sm, tree), NcclAlgorithm::NVLSTree});
  return path;
}

}  // namespace

CommPath gang_comm_path(const GangPlacement& placement, const std::vector<GangNode>& nodes) {
  if (!placement.multi_node()) return placement.node_rings.empty() ? CommPath{} : ring_plan_path(placement.node_rings.front());
  const std::vector<DomainShare> domains = domain_shares(placement, nodes);
  CommPath path = domains.size() == 1 ? one_domain_path(domains.front()) : several_domains_path(domains);
  if (domains.size() == 1) return path;
  path.transport = CommTransport::Rdma;
  for (size_t i = 0; i < placement.nodes.size(); ++i) {
    const auto& nics = nodes[static_cast<size_t>(placement.nodes[i])].allocator->topology().model().nics;
    for (int nic : placement.nics_per_node[i])
      if (nics[nic].transport == NicTransport::Ethernet) path.transport = CommTransport::Tcp;
  }
  return path;
}

}  // namespace topsim
