#include "core/llm_links.h"

#include <algorithm>
#include <map>

#include "core/domain_comm.h"
#include "core/nccl_algo.h"

namespace topsim {
namespace {

using Group = std::vector<int>;  // ranks

// The groups of each kind, in Megatron-Core's rank order (header comment).
struct Groups {
  std::vector<Group> tp, cp, dp, ep, pp;
};

Groups make_groups(const ParallelConfig& c) {
  Groups g;
  const int tp = c.tp, cp = c.cp, dp = c.dp, pp = c.pp;
  const int stage = tp * cp * dp;  // ranks per pipeline stage
  for (int p = 0; p < pp; ++p)
    for (int d = 0; d < dp; ++d)
      for (int k = 0; k < cp; ++k) {
        Group group;
        for (int t = 0; t < tp; ++t) group.push_back(t + tp * (k + cp * d) + stage * p);
        g.tp.push_back(group);
      }
  for (int p = 0; p < pp; ++p)
    for (int t = 0; t < tp; ++t) {
      Group dpcp;  // the DP x CP group of (t, p): cp fastest, then dp
      for (int i = 0; i < cp * dp; ++i) dpcp.push_back(t + tp * i + stage * p);
      for (int d = 0; d < dp; ++d) g.cp.emplace_back(dpcp.begin() + d * cp, dpcp.begin() + (d + 1) * cp);
      for (int e = 0; e + c.ep <= cp * dp; e += c.ep) g.ep.emplace_back(dpcp.begin() + e, dpcp.begin() + e + c.ep);
      g.dp.push_back(std::move(dpcp));
    }
  for (int r = 0; r + stage < c.gpus(); ++r) g.pp.push_back({r, r + stage});
  return g;
}

class LinkPlanner {
 public:
  LinkPlanner(const std::vector<RankSite>& ranks, const std::vector<LinkNode>& nodes, const LinkOptions& options)
      : ranks_(ranks), nodes_(nodes), options_(options) {}

  // The slowest path among `groups` (all of one kind, running at once). `one_at_a_time`: each
  // rank takes part in one of its groups at a time (count_nic_users).
  Expected<CommPath> slowest(const std::vector<Group>& groups, bool one_at_a_time = false) {
    count_nic_users(groups, one_at_a_time);
    CommPath worst;
    bool first = true;
    for (const Group& group : groups) {
      if (group.size() < 2) continue;
      auto path = path_of(group);
      if (!path) return path.error();
      if (first || path->bus_bandwidth_gbps < worst.bus_bandwidth_gbps) worst = *path;
      first = false;
    }
    return worst;
  }

 private:
  const Topology& topology(int node) const { return nodes_[node].allocator->topology(); }

  // Per (node, NIC): how many groups cross the network through it at once - every group through
  // it, or with `one_at_a_time` (a rank in one of its groups at a time) the ranks behind it that
  // are in such groups.
  void count_nic_users(const std::vector<Group>& groups, bool one_at_a_time) {
    users_.clear();
    if (!options_.host_network) return;
    std::vector<std::pair<std::pair<int, int>, int>> members;  // (NIC, group or rank) crossing through it
    for (size_t g = 0; g < groups.size(); ++g) {
      if (!spans_nodes(groups[g]) || one_domain(groups[g])) continue;
      for (int r : groups[g])
        members.push_back(
            {{ranks_[r].node, network_nic(topology(ranks_[r].node), ranks_[r].gpu)}, one_at_a_time ? r : static_cast<int>(g)});
    }
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    for (const auto& [nic, member] : members) ++users_[nic];
  }

  bool spans_nodes(const Group& group) const {
    return std::any_of(group.begin(), group.end(), [&](int r) { return ranks_[r].node != ranks_[group[0]].node; });
  }
  // Every rank of `group` on nodes of one multi-node NVLink domain whose GPUs are on its switch.
  bool one_domain(const Group& group) const {
    const int id = nodes_[ranks_[group[0]].node].nvlink_domain;
    return options_.host_network && id >= 0 && std::all_of(group.begin(), group.end(), [&](int r) {
             const int node = ranks_[r].node;
             return nodes_[node].nvlink_domain == id && nvswitch_link_gbps(topology(node), {ranks_[r].gpu}) > 0;
           });
  }
  bool one_host(const Group& group) const {
    if (options_.host_network) return !spans_nodes(group);
    return std::all_of(group.begin(), group.end(), [&](int r) { return ranks_[r].pod == ranks_[group[0]].pod; });
  }

  Expected<CommPath> path_of(const Group& group) {
    if (one_host(group)) {
      std::vector<int> gpus;
      for (int r : group) gpus.push_back(ranks_[r].gpu);
      return ring_plan_path(nodes_[ranks_[group[0]].node].allocator->ring_plan(to_gpu_set(gpus)));
    }
    return options_.host_network ? domains_path(group) : socket_path(group);
  }

  // Across nodes the group runs by NVLink domain, as a gang does (core/domain_comm.h): a node, or
  // the nodes of one multi-node domain. Each node gives the group its NICs' achieved bandwidth
  // divided among the groups of the same kind crossing the network through them
  // (count_nic_users).
  Expected<CommPath> domains_path(const Group& group) {
    std::vector<NodePart> parts;
    const std::vector<int> nodes = ring_nodes(group);
    bool ethernet = false;
    for (int node : nodes) {
      NodePart part;
      part.topology = &topology(node);
      for (int r : group)
        if (ranks_[r].node == node) part.gpus.push_back(ranks_[r].gpu);
      if (part.gpus.size() > 1) part.ring = &nodes_[node].allocator->ring_plan(to_gpu_set(part.gpus));
      const auto nics = network_nics(*part.topology, part.gpus);
      if (nics.empty() && nodes_[node].nvlink_domain < 0)
        return Error{"node " + std::to_string(node) + " has no NIC: a parallel group cannot span it and another node"};
      int sharing = 1;
      for (int nic : nics) {
        sharing = std::max(sharing, users_[{node, nic}]);
        ethernet = ethernet || part.topology->model().nics[nic].transport == NicTransport::Ethernet;
      }
      part.network_gbps = nics.empty() ? 0 : node_network_gbps(*part.topology, part.gpus, options_.net) / sharing;
      part.nics = static_cast<int>(nics.size());
      part.nvlink_domain = nodes_[node].nvlink_domain;
      parts.push_back(std::move(part));
    }
    CommPath path = domain_comm_path(parts);
    if (path.hosts == 1) return path;
    if (!(path.bus_bandwidth_gbps > 0)) return Error{"a parallel group spans NVLink domains and one of them has no NIC for it"};
    path.transport = ethernet ? CommTransport::Tcp : CommTransport::Rdma;
    apply_measured(path, nodes, options_.measured);
    return path;
  }

  // The group's nodes in rank order (its ring's order across nodes).
  std::vector<int> ring_nodes(const Group& group) const {
    std::vector<int> nodes;
    for (int r : group)
      if (std::find(nodes.begin(), nodes.end(), ranks_[r].node) == nodes.end()) nodes.push_back(ranks_[r].node);
    return nodes;
  }

  Expected<CommPath> socket_path(const Group& group) {
    // Consecutive ranks of one pod form one member of the socket ring.
    std::vector<std::pair<int, std::vector<int>>> pods;  // (rank site index, gpus)
    for (int r : group) {
      if (pods.empty() || ranks_[pods.back().first].pod != ranks_[r].pod) pods.push_back({r, {}});
      pods.back().second.push_back(ranks_[r].gpu);
    }
    std::vector<PodInRing> members;
    std::vector<double> nic_gbit(nodes_.size());
    for (size_t n = 0; n < nodes_.size(); ++n) nic_gbit[n] = nodes_[n].primary_nic_gbit;
    for (const auto& [site, gpus] : pods) {
      const int node = ranks_[site].node;
      const RingPlan* ring = gpus.size() > 1 ? &nodes_[node].allocator->ring_plan(to_gpu_set(gpus)) : nullptr;
      members.push_back({node, ring});
    }
    return pod_socket_path(members, nic_gbit, options_.net, options_.pod_socket_gbps);
  }

  const std::vector<RankSite>& ranks_;
  const std::vector<LinkNode>& nodes_;
  const LinkOptions& options_;
  std::map<std::pair<int, int>, int> users_;
};

}  // namespace

Expected<LlmLinks> llm_links(const ParallelConfig& config, const std::vector<RankSite>& ranks, const std::vector<LinkNode>& nodes,
                             const LinkOptions& options) {
  if (static_cast<int>(ranks.size()) != config.gpus())
    return Error::bug("llm_links: " + std::to_string(ranks.size()) + " rank sites for " + std::to_string(config.gpus()) +
                      " ranks");
  const Groups groups = make_groups(config);
  LinkPlanner planner(ranks, nodes, options);
  LlmLinks links;
  std::pair<CommPath*, const std::vector<Group>*> kinds[] = {{&links.tp, &groups.tp},
                                                             {&links.cp, &groups.cp},
                                                             {&links.dp, &groups.dp},
                                                             {&links.ep, &groups.ep},
                                                             {&links.pp, &groups.pp}};
  for (auto& [field, list] : kinds) {
    // Pipeline neighbours under plain 1F1B: a stage exchanges with the next stage after a forward
    // pass and with the previous one after a backward pass (Megatron-Core schedules.py,
    // send_forward_recv_backward / send_backward_recv_forward), one pair at a time; the
    // interleaved schedule sends to both at once (send_forward_backward_recv_forward_backward).
    auto path = planner.slowest(*list, list == &groups.pp && config.vpp == 1);
    if (!path) return path.error();
    *field = *path;
  }
  return links;
}

Expected<std::vector<RankSite>> idle_rank_sites(const Allocator& allocator, int gpus) {
  const int node_gpus = allocator.topology().gpu_count();
  std::vector<RankSite> sites;
  if (gpus <= node_gpus) {
    PlacementRequest request;
    request.gpus = gpus;
    auto placement = allocator.place(all_gpus(node_gpus), request);
    if (!placement) return placement.error();
    for (int gpu : placement->gpus) sites.push_back({0, gpu, 0});
    return sites;
  }
  for (int r = 0; r < gpus; ++r) sites.push_back({r / node_gpus, r % node_gpus, r / node_gpus});
  return sites;
}

}  // namespace topsim
