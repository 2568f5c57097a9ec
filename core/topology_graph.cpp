#include "core/topology_graph.h"

#include <algorithm>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/property_map.hpp>
#include <cassert>
#include <limits>

namespace topsim::detail {
namespace {

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
  boost::filtered_graph<HardwareGraph, PcieEdgesOnly, NoThirdDevice> view(graph, PcieEdgesOnly{&graph},
                                                                          NoThirdDevice{&graph, from, to});
  width.assign(boost::num_vertices(graph), 0.0);
  predecessor.resize(boost::num_vertices(graph));
  auto index = boost::get(boost::vertex_index, graph);
  boost::dijkstra_shortest_paths(view, from,
                                 boost::weight_map(boost::get(&HardwareEdge::bandwidth_gbps, graph))
                                     .distance_map(boost::make_iterator_property_map(width.begin(), index))
                                     .predecessor_map(boost::make_iterator_property_map(predecessor.begin(), index))
                                     .distance_compare(std::greater<double>())
                                     .distance_combine([](double a, double b) { return std::min(a, b); })
                                     .distance_inf(0.0)
                                     .distance_zero(std::numeric_limits<double>::infinity()));
}

}  // namespace

TopologyGraph::TopologyGraph(const NodeModel& m) {
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
    bridge_vertex_.push_back(
        boost::add_vertex({host ? VertexKind::HostBridge : VertexKind::Switch, static_cast<int>(i)}, graph_));
    const Vertex up = host ? numa_vertex_[b.numa] : bridge_vertex_[b.parent];
    add_edge(bridge_vertex_[i], up, EdgeKind::Pcie, pcie_gbps(b.pcie_gen, b.pcie_width));
  }
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const Gpu& g = m.gpus[i];
    gpu_vertex_.push_back(boost::add_vertex({VertexKind::Gpu, static_cast<int>(i)}, graph_));
    add_edge(gpu_vertex_[i], bridge_vertex_[g.bridge], EdgeKind::Pcie, pcie_gbps(g.pcie_gen, g.pcie_width));
  }
  for (size_t i = 0; i < m.nics.size(); ++i) {
    const Nic& n = m.nics[i];
    nic_vertex_.push_back(boost::add_vertex({VertexKind::Nic, static_cast<int>(i)}, graph_));
    add_edge(nic_vertex_[i], bridge_vertex_[n.bridge], EdgeKind::Pcie, pcie_gbps(n.pcie_gen, n.pcie_width));
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
    add_edge(gpu_vertex_[i], nvswitch(), EdgeKind::NvSwitchLink, g.nvswitch_links * nvlink_gbps_per_link(g.sm), g.nvswitch_links);
  }
}

void TopologyGraph::add_edge(Vertex a, Vertex b, EdgeKind kind, double bandwidth_gbps, int nvlinks) {
  const int id = static_cast<int>(boost::num_edges(graph_));
  boost::add_edge(a, b, HardwareEdge{kind, bandwidth_gbps, nvlinks, id}, graph_);
  directed_edge_gbps_.insert(directed_edge_gbps_.end(), 2, bandwidth_gbps);
}

Vertex TopologyGraph::endpoint(int endpoint) const {
  const int gpus = static_cast<int>(gpu_vertex_.size());
  return endpoint < gpus ? gpu_vertex_[endpoint] : nic_vertex_[endpoint - gpus];
}

double TopologyGraph::widest_pcie_gbps(int endpoint_a, int endpoint_b) const {
  const Vertex to = endpoint(endpoint_b);
  std::vector<double> width;
  std::vector<Vertex> predecessor;
  widest_pcie_paths(graph_, endpoint(endpoint_a), to, width, predecessor);
  return width[to];
}

std::vector<Vertex> TopologyGraph::pcie_route(int endpoint_a, int endpoint_b) const {
  const Vertex from = endpoint(endpoint_a), to = endpoint(endpoint_b);
  std::vector<double> width;
  std::vector<Vertex> predecessor;
  widest_pcie_paths(graph_, from, to, width, predecessor);
  std::vector<Vertex> route{to};
  while (route.back() != from) route.push_back(predecessor[route.back()]);
  std::reverse(route.begin(), route.end());
  return route;
}

std::vector<int> TopologyGraph::directed_route(const std::vector<Vertex>& vertices) const {
  std::vector<int> route;
  for (size_t i = 0; i + 1 < vertices.size(); ++i) {
    const Vertex from = vertices[i], to = vertices[i + 1];
    auto [edge, found] = boost::edge(from, to, graph_);
    assert(found && "route step without an edge");
    route.push_back(2 * graph_[edge].id + (from < to ? 0 : 1));
  }
  return route;
}

}  // namespace topsim::detail
