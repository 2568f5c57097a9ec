#include "core/topology.h"

#include <algorithm>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/property_map.hpp>
#include <limits>
#include <map>

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
  static const std::map<std::string_view, LinkClass, std::less<>> kFixed = {
      {"X", LinkClass::Self}, {"PIX", LinkClass::PIX},   {"PXB", LinkClass::PXB},
      {"PHB", LinkClass::PHB}, {"NODE", LinkClass::Node}, {"SYS", LinkClass::Sys}};
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

using Vertex = HardwareGraph::vertex_descriptor;
using Edge = HardwareGraph::edge_descriptor;

// Widest-path search runs over PCIe and CPU edges only, and never through a device other than
// the two ends (NCCL routes P2P through bridges and CPUs, not through other GPUs or NICs).
struct PcieEdgesOnly {
  const HardwareGraph* graph = nullptr;
  bool operator()(Edge e) const {
    const EdgeKind kind = (*graph)[e].kind;
    return kind == EdgeKind::Pcie || kind == EdgeKind::CpuInterconnect;
  }
};
struct NoThirdDevice {
  const HardwareGraph* graph = nullptr;
  Vertex from = 0, to = 0;
  bool operator()(Vertex v) const {
    const VertexKind kind = (*graph)[v].kind;
    return v == from || v == to || (kind != VertexKind::Gpu && kind != VertexKind::Nic);
  }
};

// Widest (max-bottleneck) path from `from` to every vertex over PCIe/CPU edges; fills the
// bottleneck widths and the predecessor of each vertex on its widest path.
void widest_pcie_paths(const HardwareGraph& graph, Vertex from, Vertex to, std::vector<double>& width,
                       std::vector<Vertex>& predecessor) {
  boost::filtered_graph<HardwareGraph, PcieEdgesOnly, NoThirdDevice> view(
      graph, PcieEdgesOnly{&graph}, NoThirdDevice{&graph, from, to});
  width.assign(boost::num_vertices(graph), 0.0);
  predecessor.resize(boost::num_vertices(graph));
  auto index = boost::get(boost::vertex_index, graph);
  boost::dijkstra_shortest_paths(
      view, from,
      boost::weight_map(boost::get(&HardwareEdge::bandwidth_gbps, graph))
          .distance_map(boost::make_iterator_property_map(width.begin(), index))
          .predecessor_map(boost::make_iterator_property_map(predecessor.begin(), index))
          .distance_compare(std::greater<double>())
          .distance_combine([](double a, double b) { return std::min(a, b); })
          .distance_inf(0.0)
          .distance_zero(std::numeric_limits<double>::infinity()));
}

double widest_pcie_path_gbps(const HardwareGraph& graph, Vertex from, Vertex to) {
  std::vector<double> width;
  std::vector<Vertex> predecessor;
  widest_pcie_paths(graph, from, to, width, predecessor);
  return width[to];
}

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
  topo.build_graph();
  topo.compute_pairs();
  return topo;
}

void Topology::add_edge(Vertex a, Vertex b, EdgeKind kind, double bandwidth_gbps, int nvlinks) {
  const int id = static_cast<int>(boost::num_edges(graph_));
  boost::add_edge(a, b, HardwareEdge{kind, bandwidth_gbps, nvlinks, id}, graph_);
}

std::vector<Vertex> Topology::pcie_route(int endpoint_a, int endpoint_b) const {
  const Vertex from = endpoint_vertex(endpoint_a), to = endpoint_vertex(endpoint_b);
  std::vector<double> width;
  std::vector<Vertex> predecessor;
  widest_pcie_paths(graph_, from, to, width, predecessor);
  std::vector<Vertex> route{to};
  while (route.back() != from) route.push_back(predecessor[route.back()]);
  std::reverse(route.begin(), route.end());
  return route;
}

void Topology::build_graph() {
  const NodeModel& m = model_;
  for (size_t i = 0; i < m.numa_nodes.size(); ++i)
    numa_vertex_.push_back(boost::add_vertex({VertexKind::Numa, static_cast<int>(i)}, graph_));
  for (size_t i = 0; i < m.numa_nodes.size(); ++i)
    for (size_t j = i + 1; j < m.numa_nodes.size(); ++j) {
      const double bw = std::min(cpu_interconnect_gbps(m.numa_nodes[i].cpu), cpu_interconnect_gbps(m.numa_nodes[j].cpu));
      add_edge(numa_vertex_[i], numa_vertex_[j], EdgeKind::CpuInterconnect, bw);
    }
  for (size_t i = 0; i < m.bridges.size(); ++i) {
    const PcieBridge& b = m.bridges[i];
    const bool host = b.kind == BridgeKind::HostBridge;
    bridge_vertex_.push_back(boost::add_vertex({host ? VertexKind::HostBridge : VertexKind::Switch, static_cast<int>(i)}, graph_));
    const Vertex up = host ? numa_vertex_[b.numa] : bridge_vertex_[b.parent];
    add_edge(bridge_vertex_[i], up, EdgeKind::Pcie, pcie_gbps(b.pcie_gen, b.pcie_width));
  }
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const Gpu& g = m.gpus[i];
    gpu_vertex_.push_back(boost::add_vertex({VertexKind::Gpu, static_cast<int>(i)}, graph_));
    add_edge(gpu_vertex_[i], bridge_vertex_[g.bridge], EdgeKind::Pcie, pcie_gbps(g.pcie_gen, g.pcie_width));
    gpu_numa_.push_back(bridge_numa(m, g.bridge));
  }
  for (size_t i = 0; i < m.nics.size(); ++i) {
    const Nic& n = m.nics[i];
    nic_vertex_.push_back(boost::add_vertex({VertexKind::Nic, static_cast<int>(i)}, graph_));
    add_edge(nic_vertex_[i], bridge_vertex_[n.bridge], EdgeKind::Pcie, pcie_gbps(n.pcie_gen, n.pcie_width));
    nic_numa_.push_back(bridge_numa(m, n.bridge));
  }
  for (const NvLinkBond& l : m.nvlinks) {
    const int sm = std::min(m.gpus[l.gpu_a].sm, m.gpus[l.gpu_b].sm);
    add_edge(gpu_vertex_[l.gpu_a], gpu_vertex_[l.gpu_b], EdgeKind::NvLink, l.count * nvlink_gbps_per_link(sm), l.count);
  }
  // NCCL merges the NVSwitch chips of a node into one fabric node (topo.cc); so does this model.
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const Gpu& g = m.gpus[i];
    if (g.nvswitch_links == 0) continue;
    if (nvswitch_vertex_ < 0) nvswitch_vertex_ = static_cast<long>(boost::add_vertex({VertexKind::NvSwitch, 0}, graph_));
    add_edge(gpu_vertex_[i], static_cast<Vertex>(nvswitch_vertex_), EdgeKind::NvSwitchLink,
             g.nvswitch_links * nvlink_gbps_per_link(g.sm), g.nvswitch_links);
  }
}

int Topology::endpoint_bridge(int endpoint) const {
  return endpoint < gpu_count() ? model_.gpus[endpoint].bridge : model_.nics[endpoint - gpu_count()].bridge;
}

Vertex Topology::endpoint_vertex(int endpoint) const {
  return endpoint < gpu_count() ? gpu_vertex_[endpoint] : nic_vertex_[endpoint - gpu_count()];
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
  link.bandwidth_gbps = widest_pcie_path_gbps(graph_, endpoint_vertex(a), endpoint_vertex(b));
  const bool both_gpus = a < gpu_count() && b < gpu_count();
  const bool through_cpu = link.cls >= LinkClass::PHB;
  if (both_gpus && through_cpu &&
      (is_intel(model_.numa_nodes[numa_a].cpu) || is_intel(model_.numa_nodes[numa_b].cpu)))
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
      if (best < 0) { best = n; continue; }
      const PairLink& cand = gpu_nic(g, n);
      const PairLink& cur = gpu_nic(g, best);
      if (cand.cls < cur.cls || (cand.cls == cur.cls && cand.bandwidth_gbps > cur.bandwidth_gbps)) best = n;
    }
    nearest_nic_.push_back(best);
  }
}

}  // namespace topsim
