#include "sim/cluster.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace topsim {

const char* node_label_name(NodeLabel label) {
  switch (label) {
    case NodeLabel::Topology: return "topology";
    case NodeLabel::Default: return "default";
    case NodeLabel::Share: return "share";
    case NodeLabel::CoreMem: return "core_mem";
  }
  return "default";
}

NodeMode node_label_mode(NodeLabel label) {
  switch (label) {
    case NodeLabel::Topology: return NodeMode::Topology;
    case NodeLabel::Default: return NodeMode::Default;
    case NodeLabel::Share: return NodeMode::Share;
    case NodeLabel::CoreMem: return NodeMode::CoreMem;
  }
  return NodeMode::Default;
}

int card_mem_gib(const NodeModel& model) {
  if (model.gpus.empty()) return 0;
  double smallest = model.gpus.front().memory_gib;
  for (const Gpu& gpu : model.gpus) smallest = std::min(smallest, gpu.memory_gib);
  return static_cast<int>(std::floor(smallest));
}

NodeLabel share_label(const JobSpec& job) { return job.gpu_core_percent > 0 ? NodeLabel::CoreMem : NodeLabel::Share; }

GpuAsk share_ask(const JobSpec& job) {
  return GpuAsk::mem(job.gpu_mem_gib, job.gpu_core_percent > 0 ? std::optional<int>(job.gpu_core_percent) : std::nullopt);
}

const char* network_transport_name(NetworkTransport transport) {
  switch (transport) {
    case NetworkTransport::Tcp: return "tcp";
    case NetworkTransport::Roce: return "roce";
    case NetworkTransport::InfiniBand: return "ib";
  }
  return "tcp";
}

Expected<ClusterState> ClusterState::build(const ClusterSpec& spec) {
  ClusterState cluster;
  cluster.network_ = spec.network;
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const NodeGroupSpec& group = spec.groups[g];
    const std::string where = "/cluster/nodes/" + std::to_string(g);
    if (group.count < 1) return Error{where + "/count: must be at least 1, got " + std::to_string(group.count)};
    NodeModel model = group.model;
    // Plain TCP networking uses every NIC as Ethernet; RDMA keeps the NICs' own fabric.
    for (Nic& nic : model.nics) {
      if (spec.network.nic_speed_gbit > 0) nic.speed_gbit = spec.network.nic_speed_gbit;
      if (spec.network.transport == NetworkTransport::Tcp) nic.transport = NicTransport::Ethernet;
      if (spec.network.transport == NetworkTransport::Roce) nic.transport = NicTransport::RoCE;
    }
    auto topology = Topology::build(std::move(model));
    if (!topology) return Error{where + "/model: " + topology.error().message};
    auto type = std::make_shared<NodeType>();
    type->topology = std::make_unique<Topology>(std::move(topology).value());
    type->allocator = std::make_unique<Allocator>(*type->topology);
    if (!type->topology->model().nics.empty()) type->primary_nic_gbit = type->topology->model().nics.front().speed_gbit;
    const int type_index = static_cast<int>(cluster.types_.size());
    const int gpus = type->topology->gpu_count();
    cluster.types_.push_back(std::move(type));
    for (int i = 0; i < group.count; ++i) {
      SimNode node;
      node.type = type_index;
      node.label = group.label;
      node.label_pinned = group.label_pinned;
      const int index = static_cast<int>(cluster.nodes_.size());
      node.rack = spec.network.nodes_per_rack > 0 ? index / spec.network.nodes_per_rack : 0;
      node.free = all_gpus(gpus);
      cluster.nodes_.push_back(node);
      cluster.total_gpus_ += gpus;
    }
  }
  if (cluster.nodes_.empty()) return Error{"/cluster/nodes: the cluster has no nodes"};
  cluster.free_gpus_ = cluster.total_gpus_;
  return cluster;
}

void ClusterState::relabel_unpinned(NodeLabel label) {
  for (SimNode& n : nodes_)
    if (!n.label_pinned) n.label = label;
}

int ClusterState::max_card_mem_gib(NodeLabel label) const {
  int best = 0;
  for (const SimNode& n : nodes_)
    if (n.label == label) best = std::max(best, card_mem_gib(types_[n.type]->topology->model()));
  return best;
}

int ClusterState::max_node_gpus(NodeLabel label) const {
  int best = 0;
  for (const SimNode& n : nodes_)
    if (n.label == label) best = std::max(best, types_[n.type]->topology->gpu_count());
  return best;
}

int ClusterState::label_gpus(NodeLabel label) const {
  int total = 0;
  for (const SimNode& n : nodes_)
    if (n.label == label) total += types_[n.type]->topology->gpu_count();
  return total;
}

void ClusterState::take(int node, const std::vector<int>& gpus) {
  for (int g : gpus) {
    assert(nodes_[node].free.test(g) && "taking a GPU that is not free");
    nodes_[node].free.reset(g);
  }
  free_gpus_ -= static_cast<int>(gpus.size());
}

void ClusterState::release(int node, const std::vector<int>& gpus) {
  for (int g : gpus) {
    assert(!nodes_[node].free.test(g) && "releasing a GPU that is free");
    nodes_[node].free.set(g);
  }
  free_gpus_ += static_cast<int>(gpus.size());
}

}  // namespace topsim
