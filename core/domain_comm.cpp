#include "core/domain_comm.h"

#include <algorithm>
#include <limits>
#include <map>

#include "core/nccl_algo.h"

namespace topsim {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// The group's GPUs on one of its NVLink domains.
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

// The group's domains in part order: a node alone, or the nodes of one nvlink_domain id.
std::vector<DomainShare> domain_shares(const std::vector<NodePart>& parts) {
  std::vector<DomainShare> domains;
  std::map<int, size_t> by_id;
  for (const NodePart& part : parts) {
    const Topology& topo = *part.topology;
    const int id = nvswitch_link_gbps(topo, part.gpus) > 0 ? part.nvlink_domain : -1;
    if (id < 0 || !by_id.count(id)) {
      if (id >= 0) by_id[id] = domains.size();
      domains.emplace_back();
    }
    DomainShare& d = id < 0 ? domains.back() : domains[by_id[id]];
    ++d.nodes;
    d.ranks += static_cast<int>(part.gpus.size());
    d.sm = std::min(d.sm, min_sm(topo, part.gpus));
    d.link_gbps = std::min(d.link_gbps, nvswitch_link_gbps(topo, part.gpus));
    if (part.gpus.size() > 1) {
      d.ring_gbps = std::min(d.ring_gbps, part.ring->bus_bandwidth_gbps);
      d.nvlink_only = d.nvlink_only && part.ring->nvlink_only;
    }
    d.network_gbps += part.network_gbps;
    d.nics += part.nics;
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
  std::vector<NvlsDomain> nvls_tree;
  std::vector<TreeHost> tree;
  for (const DomainShare& d : domains) {
    const double nvlink_ring = domain_ring_gbps(d);
    path.ranks += d.ranks;
    ring = std::min({ring, nvlink_ring, d.network_gbps});
    sm = std::min(sm, d.sm);
    nvls_tree.push_back({d.ranks, d.link_gbps, d.network_gbps, d.nics});
    tree.push_back({d.ranks, nvlink_ring, d.network_gbps});
  }
  path.nvlink_hops = std::all_of(domains.begin(), domains.end(), [](const DomainShare& d) { return d.nvlink_only; });
  choose_algorithm(path,
                   {ring, nvls_tree_bus_gbps(sm, nvls_tree), NcclAlgorithm::NVLSTree, tree_bus_gbps(tree),
                    nvls_tree_bus_gbps(sm, nvls_tree, TreeFlows::TunerCounted), tree_bus_gbps(tree, TreeFlows::TunerCounted)});
  return path;
}

}  // namespace

CommPath domain_comm_path(const std::vector<NodePart>& parts) {
  const std::vector<DomainShare> domains = domain_shares(parts);
  return domains.size() == 1 ? one_domain_path(domains.front()) : several_domains_path(domains);
}

}  // namespace topsim
