// The simulated cluster: node types (each a topology with its allocator, shared by all nodes of
// that type), the nodes with their labels and free GPUs, racks, the network between nodes, and
// the per-card share accounting every placement updates (with FGD's fragmentation measure).
//
// ClusterState is the inventory only: schedulers read it and decide placements; the engine
// (or a test) applies them with `bind` / `unbind`. A cluster is either modelled nodes (node
// groups: built-in models or imported machines, with topology) or the nodes of a trace's node
// list (CPU, memory and typed GPUs, no topology: FGD's cluster). Copies share the node types
// (topologies and allocators, whose memo tables are not thread-safe): build one per thread.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/fabric.h"
#include "core/fragmentation.h"
#include "core/gpu_set.h"
#include "core/gpu_share.h"
#include "core/hardware.h"
#include "core/measured_links.h"
#include "core/node_model.h"
#include "sim/job.h"
#include "sim/node_index.h"
#include "sim/trace_node.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

// A node's card memory for share accounting: the smallest GPU's memory, whole GiB.
int card_mem_gib(const NodeModel& model);
// The catalog GPU that paces the node's jobs (NodeType::gpu): its slowest card's model, by the
// default precision's peak; null when no card is a catalog model.
const GpuModel* pace_gpu(const NodeModel& model);

enum class NetworkTransport : uint8_t {
  Tcp,         // NCCL socket transport over the node's NICs (Ethernet)
  Roce,        // RDMA over converged Ethernet
  InfiniBand,  // RDMA over InfiniBand
};
template <>
struct EnumNames<NetworkTransport> {
  static constexpr std::array<EnumName<NetworkTransport>, 3> table{
      {{NetworkTransport::Tcp, "tcp"}, {NetworkTransport::Roce, "roce"}, {NetworkTransport::InfiniBand, "ib"}}};
};

struct NetworkSpec {
  NetworkTransport transport = NetworkTransport::Tcp;  // default: plain Kubernetes pod networking
  double nic_speed_gbit = 0;                           // overrides every node NIC's speed when > 0; default 0 (keep)
  FabricSpec fabric;                                   // tiers above the nodes (core/fabric.h); default none
  // Measured bus bandwidth and latency between node pairs (an all-pairs nccl-tests run),
  // overriding the model for those pairs (core/measured_links.h).
  struct MeasuredPair {
    std::string a, b;       // node names (kubectl names, or node-<index>)
    double bus_gbps = 0;    // GB/s; 0 = not measured
    double latency_us = 0;  // what the pair adds to each network hop, us; default 0
    std::string at;         // JSON pointers for errors: the measurement, and where each name is given
    std::string a_at, b_at;
  };
  std::vector<MeasuredPair> measured;
};

struct NodeGroupSpec {
  NodeModel model;
  int count = 1;
  NodeMode label = NodeMode::Topology;  // `ack.node.gpu.schedule`
  bool label_pinned = false;            // true when the scenario fixed the label for this group
  // The nodes' labels a fabric placed by labels reads (level label -> value), e.g.
  // {"topology.k8s.aws/network-node-layer-3": "nn-3a"}; every node of the group shares them.
  std::map<std::string, std::string> labels;
  std::vector<std::string> names;  // the nodes' own names (kubectl), when known; else node-<index>
};

struct ClusterSpec {
  std::vector<NodeGroupSpec> groups;   // modelled nodes, or
  std::vector<TraceNode> trace_nodes;  // the nodes of a trace's node list (milli mode, no topology)
  NetworkSpec network;
};

struct NodeType {
  std::string name;  // the model's name, or "<GPU type> x<count>" (trace nodes)
  int gpus = 0;
  std::unique_ptr<Topology> topology;    // null for trace nodes
  std::unique_ptr<Allocator> allocator;  // null for trace nodes
  double primary_nic_gbit = 0;           // the first NIC's line rate (the pod network's eth0), Gb/s; 0 without NICs
  int card_mem_gib = 0;                  // share accounting's card memory (0 for trace nodes)
  const GpuModel* gpu = nullptr;         // the GPUs' catalog model for the throughput model (null for trace nodes)
};

// The node type of a group of modelled nodes on `network` (its NICs as the network asks):
// topology, allocator, and what the throughput model needs.
Expected<std::shared_ptr<const NodeType>> modelled_type(const NodeGroupSpec& group, const NetworkSpec& network);
// The same in two steps: the model with its NICs as `network` asks, and the type of a model.
NodeModel model_on_network(const NodeModel& model, const NetworkSpec& network);
Expected<std::shared_ptr<const NodeType>> node_type_of(NodeModel model);

class ThreadCaches;  // sim/thread_caches.h

struct SimNode {
  int type = 0;  // index into ClusterState::type()
  NodeMode label = NodeMode::Topology;
  bool label_pinned = false;
  GpuSet free;  // cards without any pod
};

class ClusterState {
 public:
  ClusterState() = default;
  // A copy tracks fragmentation on its own (the tracker is rebuilt for the copy's state).
  ClusterState(const ClusterState& other);
  ClusterState& operator=(const ClusterState& other);
  ClusterState(ClusterState&&) = default;
  ClusterState& operator=(ClusterState&&) = default;

  // Builds the node types and nodes; errors name the group (e.g. "/cluster/nodes/1/model: ...").
  // With `caches`, node types come from there (this thread's, built once for the runs that follow).
  [[nodiscard]] static Expected<ClusterState> build(const ClusterSpec& spec, ThreadCaches* caches = nullptr);

  // Readies the cluster for one run: nodes whose label the scenario did not pin take `label`,
  // the node index and share accounting are built, and FGD's fragmentation is tracked against
  // `target` when given, starting from `memo` (a tracker's against the same target, this thread's)
  // when given. REQUIRES: nothing bound yet; `target` outlives the cluster.
  void prepare(NodeMode unpinned_label, const TargetWorkload* target, std::shared_ptr<FragmentationTracker::Memo> memo = nullptr);

  int type_count() const { return static_cast<int>(types_.size()); }
  const NodeType& type(int index) const { return *types_[static_cast<size_t>(index)]; }
  const std::vector<SimNode>& nodes() const { return nodes_; }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  const SimNode& node(int index) const { return nodes_[static_cast<size_t>(index)]; }
  const NodeType& type_of(int node) const { return type(this->node(node).type); }
  const NetworkSpec& network() const { return network_; }
  // The tiers above the nodes (empty without a fabric); shared by copies.
  const Fabric& fabric() const { return *fabric_; }
  const std::string& node_name(int node) const { return shares_.nodes[static_cast<size_t>(node)].name; }
  // The measured link between two nodes (NetworkSpec::measured); {} when not measured.
  MeasuredLink measured(int a, int b) const;
  bool has_measured() const { return !measured_->empty(); }
  // Every measured pair: (lower node, higher node) -> its link.
  const std::map<std::pair<int, int>, MeasuredLink>& measured_pairs() const { return *measured_; }
  int total_gpus() const { return total_gpus_; }
  int free_gpus() const { return free_gpus_; }  // idle cards
  int gpus_per_node(int node) const { return type_of(node).gpus; }
  bool modelled() const { return modelled_; }  // node groups with topology (not a trace's node list)
  // Whether the modelled node types carry more than one GPU model (run times then differ by type).
  bool mixes_gpu_models() const { return mixes_gpu_models_; }

  // Over the nodes with this label: the largest card memory (GiB), the largest node (GPUs) and
  // all their GPUs; 0 when no node has the label. O(1) after prepare(), O(nodes) before.
  int max_card_mem_gib(NodeMode label) const { return label_facts(label).max_card_mem_gib; }
  int max_node_gpus(NodeMode label) const { return label_facts(label).max_node_gpus; }
  int label_gpus(NodeMode label) const { return label_facts(label).gpus; }
  // Whether a node of `type` has this label. O(1) after prepare(), O(nodes) before.
  bool label_has_type(NodeMode label, int type) const;

  // Valid after prepare().
  const NodeIndex& index() const { return index_; }
  const ShareCluster& shares() const { return shares_; }
  FragmentationTracker* fragmentation() const { return tracker_.get(); }  // null without a target
  double allocated_gpus() const;                                          // GPU share allocated

  // Binds one pod to `cards` of `node` / releases it. REQUIRES (bind): the pod fits there.
  // Cards going from idle to used (and back) leave (and rejoin) the free whole-GPU set.
  void bind(int node, const PodRequest& pod, const std::vector<int>& cards);
  void unbind(int node, const PodRequest& pod, const std::vector<int>& cards);

  // Takes a node out of service (failed, or a spare held back) or returns it: out of service,
  // every card is taken, so no scheduler places on it; its GPUs count as neither allocated nor
  // free. REQUIRES (out): no pod on the node; a node goes out and back in turn, `spare` the same
  // both ways.
  void set_out_of_service(int node, bool out, bool spare = false);
  int out_of_service_gpus() const { return out_of_service_gpus_; }  // spares included
  int spare_gpus() const { return spare_gpus_; }

 private:
  struct LabelFacts {
    int max_card_mem_gib = 0, max_node_gpus = 0, gpus = 0;
  };
  LabelFacts label_facts(NodeMode label) const;
  LabelFacts compute_label_facts(NodeMode label) const;

  void add_type(std::shared_ptr<const NodeType> type);
  void add_node(int type, NodeMode label, bool pinned, ShareNode twin);
  void set_free(int node, const GpuSet& cards, bool free);
  // Places the nodes in the fabric's groups (by order or by their labels) and checks it.
  Status build_fabric(const ClusterSpec& spec);
  Status build_measured(const NetworkSpec& network);

  std::vector<std::shared_ptr<const NodeType>> types_;
  std::vector<SimNode> nodes_;
  NetworkSpec network_;
  std::shared_ptr<const Fabric> fabric_ = std::make_shared<const Fabric>();
  std::shared_ptr<const std::map<std::pair<int, int>, MeasuredLink>> measured_ =
      std::make_shared<const std::map<std::pair<int, int>, MeasuredLink>>();  // (lower node, higher node)
  bool modelled_ = true;
  bool mixes_gpu_models_ = false;
  int total_gpus_ = 0;
  int free_gpus_ = 0;
  int out_of_service_gpus_ = 0;
  int spare_gpus_ = 0;
  NodeIndex index_;
  bool prepared_ = false;
  std::array<LabelFacts, NodeIndex::kLabels> label_facts_{};         // valid once prepared
  std::array<std::vector<bool>, NodeIndex::kLabels> label_types_{};  // [label][type], valid once prepared
  ShareCluster shares_;
  const TargetWorkload* target_ = nullptr;
  std::unique_ptr<FragmentationTracker> tracker_;
};

}  // namespace topsim
