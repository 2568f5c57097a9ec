#include "core/topology.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/topology_graph.h"

namespace topsim {

std::string link_code(LinkClass cls, int nvlinks) {
  switch (cls) {
    case LinkClass::Self: return "X";
    case LinkClass::NVLink: return "NV" + std::to_string(nvlinks);
    case LinkClass::PIX: return "PIX";
    case LinkClass::PXB: return "PXB";
    case LinkClass::PHB: return "PHB";
    case LinkClass::Node: return "NODE";
    case LinkClass::Sys: return "SYS";
  }
  return "SYS";
}

std::optional<LinkCode> parse_link_code(std::string_view code) {
  static const std::map<std::string_view, LinkClass, std::less<>> kFixed = {{"X", LinkClass::Self},    {"PIX", LinkClass::PIX},
                                                                            {"PXB", LinkClass::PXB},   {"PHB", LinkClass::PHB},
                                                                            {"NODE", LinkClass::Node}, {"SYS", LinkClass::Sys}};
  if (auto it = kFixed.find(code); it != kFixed.end()) return LinkCode{it->second, 0};
  if (code.size() > 2 && code.substr(0, 2) == "NV") {
    int count = 0;
    for (char c : code.substr(2)) {
      if (c < '0' || c > '9' || count > 1000) return std::nullopt;
      count = count * 10 + (c - '0');
    }
    if (count > 0) return LinkCode{LinkClass::NVLink, count};
  }
  return std::nullopt;
}

namespace {

// Bridges from a device's parent up to its host bridge.
std::vector<int> bridge_chain(const NodeModel& model, int bridge) {
  std::vector<int> chain{bridge};
  while (model.bridges[bridge].kind != BridgeKind::HostBridge) {
    bridge = model.bridges[bridge].parent;
    chain.push_back(bridge);
  }
  return chain;
}

}  // namespace

Expected<Topology> Topology::build(NodeModel model) {
  if (Status s = validate(model); !s) return s.error();
  Topology topo(std::move(model));
  topo.graph_ = std::make_shared<const detail::TopologyGraph>(topo.model_);
  topo.has_nvswitch_ = topo.graph_->has_nvswitch();
  topo.compute_numa();
  topo.compute_pairs();
  return topo;
}

const std::vector<double>& Topology::directed_edge_gbps() const { return graph_->directed_edge_gbps(); }

std::vector<int> Topology::gpu_route(int gpu_a, int gpu_b) const {
  const PairLink& link = gpu_pair(gpu_a, gpu_b);
  const detail::TopologyGraph& g = *graph_;
  if (link.cls != LinkClass::NVLink) return g.directed_route(g.pcie_route(gpu_a, gpu_b));
  if (!link.via_nvswitch) return g.directed_route({g.gpu(gpu_a), g.gpu(gpu_b)});
  return g.directed_route({g.gpu(gpu_a), g.nvswitch(), g.gpu(gpu_b)});
}

void Topology::compute_numa() {
  for (const Gpu& g : model_.gpus) gpu_numa_.push_back(bridge_numa(model_, g.bridge));
  for (const Nic& n : model_.nics) nic_numa_.push_back(bridge_numa(model_, n.bridge));
}

int Topology::endpoint_bridge(int endpoint) const {
  return endpoint < gpu_count() ? model_.gpus[endpoint].bridge : model_.nics[endpoint - gpu_count()].bridge;
}

PairLink Topology::pcie_pair(int a, int b) const {
  PairLink link;
  const std::vector<int> chain_a = bridge_chain(model_, endpoint_bridge(a));
  const std::vector<int> chain_b = bridge_chain(model_, endpoint_bridge(b));
  const int numa_a = model_.bridges[chain_a.back()].numa, numa_b = model_.bridges[chain_b.back()].numa;
  if (numa_a != numa_b) {
    link.cls = LinkClass::Sys;
  } else {
    link.cls = LinkClass::Node;  // same NUMA node, different host bridges
    for (size_t i = 0; i < chain_a.size(); ++i) {
      auto hit = std::find(chain_b.begin(), chain_b.end(), chain_a[i]);
      if (hit == chain_b.end()) continue;
      const bool host = model_.bridges[chain_a[i]].kind == BridgeKind::HostBridge;
      const bool single_switch = i == 0 && hit == chain_b.begin();
      link.cls = host ? LinkClass::PHB : (single_switch ? LinkClass::PIX : LinkClass::PXB);
      break;
    }
  }
  link.bandwidth_gbps = graph_->widest_pcie_gbps(a, b);
  const bool both_gpus = a < gpu_count() && b < gpu_count();
  const bool through_cpu = link.cls >= LinkClass::PHB;
  if (both_gpus && through_cpu && (is_intel(model_.numa_nodes[numa_a].cpu) || is_intel(model_.numa_nodes[numa_b].cpu)))
    link.bandwidth_gbps /= kIntelP2pOverhead;
  link.p2p = link.cls <= LinkClass::PXB;
  return link;
}

std::optional<PairLink> Topology::nvlink_pair(int a, int b) const {
  std::optional<PairLink> best;
  for (const NvLinkBond& l : model_.nvlinks) {
    if (std::minmax(l.gpu_a, l.gpu_b) != std::minmax(a, b)) continue;
    const int sm = std::min(model_.gpus[a].sm, model_.gpus[b].sm);
    best = PairLink{LinkClass::NVLink, l.count, false, l.count * nvlink_gbps_per_link(sm), true, LinkClass::Sys};
  }
  const Gpu& ga = model_.gpus[a];
  const Gpu& gb = model_.gpus[b];
  if (ga.nvswitch_links > 0 && gb.nvswitch_links > 0) {
    const double bw = std::min(ga.nvswitch_links * nvlink_gbps_per_link(ga.sm), gb.nvswitch_links * nvlink_gbps_per_link(gb.sm));
    if (!best || bw > best->bandwidth_gbps)
      best = PairLink{LinkClass::NVLink, std::min(ga.nvswitch_links, gb.nvswitch_links), true, bw, true, LinkClass::Sys};
  }
  return best;
}

void Topology::compute_pairs() {
  endpoints_ = gpu_count() + nic_count();
  pairs_.assign(static_cast<size_t>(endpoints_) * endpoints_, PairLink{});
  for (int a = 0; a < endpoints_; ++a) {
    pairs_[a * endpoints_ + a] = PairLink{LinkClass::Self, 0, false, 0, true, LinkClass::Self};
    for (int b = a + 1; b < endpoints_; ++b) {
      const PairLink pcie = pcie_pair(a, b);
      std::optional<PairLink> link;
      if (a < gpu_count() && b < gpu_count()) link = nvlink_pair(a, b);
      if (!link) link = pcie;
      link->pcie_cls = pcie.cls;
      pairs_[a * endpoints_ + b] = *link;
      pairs_[b * endpoints_ + a] = *link;
    }
  }
  for (int g = 0; g < gpu_count(); ++g) {
    int best = -1;
    for (int n = 0; n < nic_count(); ++n) {
      if (best < 0) {
        best = n;
        continue;
      }
      const PairLink& cand = gpu_nic(g, n);
      const PairLink& cur = gpu_nic(g, best);
      if (cand.cls < cur.cls || (cand.cls == cur.cls && cand.bandwidth_gbps > cur.bandwidth_gbps)) best = n;
    }
    nearest_nic_.push_back(best);
  }
  // The NIC each GPU's network traffic uses (network_nic(), core/network_model.h), once per
  // model: NCCL's ncclTopoGetLocalNet gives a GPU the NICs with the best link class to it, then
  // the widest among those, and picks one by the GPU's rank among the GPUs sharing that group.
  std::vector<std::vector<int>> groups;
  for (int g = 0; g < gpu_count(); ++g) {
    std::vector<int> group;
    for (int n = 0; n < nic_count(); ++n) {
      if (!group.empty()) {
        const PairLink& best = gpu_nic(g, group.front());
        const PairLink& cand = gpu_nic(g, n);
        const bool better = cand.cls < best.cls || (cand.cls == best.cls && cand.bandwidth_gbps > best.bandwidth_gbps + 1e-9);
        const bool equal = cand.cls == best.cls && std::abs(cand.bandwidth_gbps - best.bandwidth_gbps) <= 1e-9;
        if (better)
          group.clear();
        else if (!equal)
          continue;
      }
      group.push_back(n);
    }
    const auto rank = std::count(groups.begin(), groups.end(), group);
    network_nic_.push_back(group.empty() ? -1 : group[static_cast<size_t>(rank) % group.size()]);
    groups.push_back(std::move(group));
  }
}

}  // namespace topsim
