// INTERNAL to core's implementation: included only by core/topology.cpp and
// core/topology_graph.cpp, never by a public header, so Boost.Graph is parsed by those two
// translation units alone. Everything else reaches the graph through Topology (topology.h).
//
// The hardware graph of one node (Boost.Graph): a vertex per NUMA node, PCIe bridge, GPU and
// NIC, plus one for the NVSwitch fabric when any GPU has NVSwitch links; an undirected edge per
// CPU interconnect between NUMA nodes, PCIe link (device or bridge to its parent), NVLink bond
// and GPU-to-fabric bundle, each with its bandwidth in either direction.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <vector>

#include "core/node_model.h"

namespace topsim::detail {

enum class VertexKind { Numa, HostBridge, Switch, Gpu, Nic, NvSwitch };
struct HardwareVertex {
  VertexKind kind = VertexKind::Numa;
  int index = 0;  // into the NodeModel list of its kind (0 for the NVSwitch fabric)
};
enum class EdgeKind { Pcie, CpuInterconnect, NvLink, NvSwitchLink };
struct HardwareEdge {
  EdgeKind kind = EdgeKind::Pcie;
  double bandwidth_gbps = 0;  // capacity in each direction
  int nvlinks = 0;            // NVLink edges: bonded links
  int id = 0;                 // dense edge number, 0..num_edges-1
};
using HardwareGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, HardwareVertex, HardwareEdge>;
using Vertex = HardwareGraph::vertex_descriptor;

// Endpoints are numbered as in Topology: GPUs 0..G-1, then NICs G..G+N-1.
// A directed edge is 2 x edge id + (1 when walked from the higher to the lower vertex), so
// directed ids run 0..directed_edge_count()-1.
class TopologyGraph {
 public:
  // REQUIRES: validate(model) passed.
  explicit TopologyGraph(const NodeModel& model);

  const HardwareGraph& graph() const { return graph_; }
  Vertex gpu(int gpu) const { return gpu_vertex_[gpu]; }
  Vertex endpoint(int endpoint) const;
  bool has_nvswitch() const { return nvswitch_vertex_ >= 0; }
  // The NVSwitch fabric vertex. REQUIRES: has_nvswitch()
  Vertex nvswitch() const { return static_cast<Vertex>(nvswitch_vertex_); }

  // Bottleneck bandwidth (GB/s) of the widest PCIe/CPU path between two endpoints; the path
  // never passes through a third GPU or NIC.
  double widest_pcie_gbps(int endpoint_a, int endpoint_b) const;
  // Vertices of that widest path, both ends included.
  std::vector<Vertex> pcie_route(int endpoint_a, int endpoint_b) const;

  // Directed edges walked along `vertices`. REQUIRES: consecutive vertices are adjacent.
  std::vector<int> directed_route(const std::vector<Vertex>& vertices) const;
  // Capacity of every directed edge, GB/s, indexed by directed edge id.
  const std::vector<double>& directed_edge_gbps() const { return directed_edge_gbps_; }

 private:
  void add_edge(Vertex a, Vertex b, EdgeKind kind, double bandwidth_gbps, int nvlinks = 0);

  HardwareGraph graph_;
  std::vector<Vertex> gpu_vertex_, nic_vertex_, bridge_vertex_, numa_vertex_;
  long nvswitch_vertex_ = -1;
  std::vector<double> directed_edge_gbps_;
};

}  // namespace topsim::detail
