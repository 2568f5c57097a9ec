// The simulated cluster: node types (each a topology with its allocator, shared by all nodes of
// that type), the nodes with their labels and free GPUs, racks, and the network between nodes.
//
// ClusterState is the inventory only: schedulers decide placements with the allocator core and
// the simulation applies them with `take` / `release`. Copies share the node types (topologies
// and allocators, whose memo tables are not thread-safe): copy per thread by rebuilding.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/expected.h"
#include "core/gpu_set.h"
#include "core/gpu_share.h"
#include "core/node_model.h"
#include "sim/job.h"

namespace topsim {

// Value of the node label `ack.node.gpu.schedule` (BRIEF sections 1 and 3).
enum class NodeLabel : uint8_t {
  Topology,  // serves `aliyun.com/gpu` (topology-aware) requests only
  Default,   // serves plain `nvidia.com/gpu` requests
  Share,     // serves memory-only GPU shares (`aliyun.com/gpu-mem`)
  CoreMem,   // serves memory + compute shares (`aliyun.com/gpu-mem` + `gpu-core.percentage`)
};
inline constexpr int kNodeLabelCount = 4;
const char* node_label_name(NodeLabel label);  // "topology", "default", "share", "core_mem"
// The node mode of the share accounting (core/gpu_share.h) that a label stands for.
NodeMode node_label_mode(NodeLabel label);
// A node's card memory for share accounting: the smallest GPU's memory, whole GiB.
int card_mem_gib(const NodeModel& model);
// The label serving a share job's pod: CoreMem when it asks a compute share, else Share.
NodeLabel share_label(const JobSpec& job);
// A share job's ask: gpu_mem_gib GiB of one card, plus gpu_core_percent of its compute if > 0.
GpuAsk share_ask(const JobSpec& job);

enum class NetworkTransport : uint8_t {
  Tcp,         // NCCL socket transport over the node's NICs (Ethernet)
  Roce,        // RDMA over converged Ethernet
  InfiniBand,  // RDMA over InfiniBand
};
const char* network_transport_name(NetworkTransport transport);  // "tcp", "roce", "ib"

struct NetworkSpec {
  NetworkTransport transport = NetworkTransport::Tcp;  // default: plain Kubernetes pod networking
  double nic_speed_gbit = 0;        // overrides every node NIC's speed when > 0; default 0 (keep)
  int nodes_per_rack = 0;           // 0 = no rack level (default); nodes fill racks in order
  // Oversubscription of the rack uplinks (>= 1, default 1): a job whose nodes span racks gets
  // at most its per-node network bandwidth divided by this (its ring crosses the uplinks).
  double rack_oversubscription = 1;
};

struct NodeGroupSpec {
  NodeModel model;
  int count = 1;
  NodeLabel label = NodeLabel::Topology;
  bool label_pinned = false;  // true when the scenario fixed the label for this group
};

struct ClusterSpec {
  std::vector<NodeGroupSpec> groups;
  NetworkSpec network;
};

struct NodeType {
  std::unique_ptr<Topology> topology;
  std::unique_ptr<Allocator> allocator;
  double primary_nic_gbit = 0;   // the first NIC's line rate (the pod network's eth0), Gb/s; 0 without NICs
};

struct SimNode {
  int type = 0;       // index into ClusterState::types()
  NodeLabel label = NodeLabel::Topology;
  int rack = 0;
  bool label_pinned = false;
  GpuSet free;
};

class ClusterState {
 public:
  // Builds the node types and nodes; errors name the group (e.g. "cluster/nodes/1: ...").
  static Expected<ClusterState> build(const ClusterSpec& spec);

  int type_count() const { return static_cast<int>(types_.size()); }
  const NodeType& type(int index) const { return *types_[index]; }
  const std::vector<SimNode>& nodes() const { return nodes_; }
  const SimNode& node(int index) const { return nodes_[index]; }
  const NodeType& type_of(int node) const { return *types_[nodes_[node].type]; }
  const NetworkSpec& network() const { return network_; }
  int total_gpus() const { return total_gpus_; }
  int free_gpus() const { return free_gpus_; }
  int gpus_per_node(int node) const { return type_of(node).topology->gpu_count(); }

  // Relabels every node whose group did not pin its label.
  void relabel_unpinned(NodeLabel label);
  // Largest card memory (GiB) among nodes with this label (0 if none).
  int max_card_mem_gib(NodeLabel label) const;
  // Largest single-node GPU count among nodes with this label (0 if none).
  int max_node_gpus(NodeLabel label) const;
  // GPUs on all nodes with this label.
  int label_gpus(NodeLabel label) const;

  // REQUIRES: every GPU in `gpus` is free on `node` / taken on `node`.
  void take(int node, const std::vector<int>& gpus);
  void release(int node, const std::vector<int>& gpus);

 private:
  std::vector<std::shared_ptr<const NodeType>> types_;
  std::vector<SimNode> nodes_;
  NetworkSpec network_;
  int total_gpus_ = 0;
  int free_gpus_ = 0;
};

}  // namespace topsim
