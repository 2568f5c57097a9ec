#include "sim/cluster.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>

#include "sim/thread_caches.h"

namespace topsim {
namespace {

// The NIC fabric a scenario's network asks for: plain TCP uses every NIC as Ethernet, RoCE
// every NIC as RoCE; InfiniBand keeps the NICs' own fabric.
void apply_network(NodeModel& model, const NetworkSpec& network) {
  for (Nic& nic : model.nics) {
    if (network.nic_speed_gbit > 0) nic.speed_gbit = network.nic_speed_gbit;
    if (network.transport == NetworkTransport::Tcp) nic.transport = NicTransport::Ethernet;
    if (network.transport == NetworkTransport::Roce) nic.transport = NicTransport::RoCE;
  }
}

std::shared_ptr<const NodeType> trace_type(const TraceNode& node) {
  auto type = std::make_shared<NodeType>();
  type->gpus = node.gpu_count;
  type->name = node.gpu_count == 0 ? std::string("cpu")
                                   : std::string(alibaba_gpu_type_name(node.gpu_type)) + " x" + std::to_string(node.gpu_count);
  return type;
}

}  // namespace

NodeModel model_on_network(const NodeModel& model, const NetworkSpec& network) {
  NodeModel out = model;
  apply_network(out, network);
  return out;
}

Expected<std::shared_ptr<const NodeType>> modelled_type(const NodeGroupSpec& group, const NetworkSpec& network) {
  return node_type_of(model_on_network(group.model, network));
}

Expected<std::shared_ptr<const NodeType>> node_type_of(NodeModel model) {
  auto topology = Topology::build(std::move(model));
  if (!topology) return topology.error();
  auto type = std::make_shared<NodeType>();
  type->topology = std::make_unique<Topology>(std::move(topology).value());
  type->allocator = std::make_unique<Allocator>(*type->topology);
  type->name = type->topology->name();
  type->gpus = type->topology->gpu_count();
  type->card_mem_gib = card_mem_gib(type->topology->model());
  type->gpu = pace_gpu(type->topology->model());
  if (!type->topology->model().nics.empty()) type->primary_nic_gbit = type->topology->model().nics.front().speed_gbit;
  return std::shared_ptr<const NodeType>(std::move(type));
}

const GpuModel* pace_gpu(const NodeModel& model) {
  // A box that mixes cards (topo import --gpu-model 0-1=rtx5090,2-4=rtx4090) paces a gang by its
  // slowest member, as card_mem_gib takes the smallest card.
  const GpuModel* slowest = nullptr;
  for (const Gpu& g : model.gpus)
    if (const GpuModel* spec = find_gpu_model(g.model);
        spec && (!slowest || spec->default_precision_tflops() < slowest->default_precision_tflops()))
      slowest = spec;
  return slowest;
}

int card_mem_gib(const NodeModel& model) {
  if (model.gpus.empty()) return 0;
  double smallest = model.gpus.front().memory_gib;
  for (const Gpu& gpu : model.gpus) smallest = std::min(smallest, gpu.memory_gib);
  return static_cast<int>(std::floor(smallest));
}

ClusterState::ClusterState(const ClusterState& other)
    : types_(other.types_),
      nodes_(other.nodes_),
      network_(other.network_),
      fabric_(other.fabric_),
      measured_(other.measured_),
      modelled_(other.modelled_),
      mixes_gpu_models_(other.mixes_gpu_models_),
      total_gpus_(other.total_gpus_),
      free_gpus_(other.free_gpus_),
      out_of_service_gpus_(other.out_of_service_gpus_),
      spare_gpus_(other.spare_gpus_),
      index_(other.index_),
      prepared_(other.prepared_),
      label_facts_(other.label_facts_),
      shares_(other.shares_),
      target_(other.target_) {
  if (target_) tracker_ = std::make_unique<FragmentationTracker>(*target_, shares_);
}

ClusterState& ClusterState::operator=(const ClusterState& other) {
  if (this != &other) *this = ClusterState(other);
  return *this;
}

void ClusterState::add_type(std::shared_ptr<const NodeType> type) {
  if (type->gpu && !types_.empty())
    for (const auto& other : types_)
      if (other->gpu && other->gpu != type->gpu) mixes_gpu_models_ = true;
  types_.push_back(std::move(type));
}

void ClusterState::add_node(int type, NodeMode label, bool pinned, ShareNode twin) {
  SimNode node;
  node.type = type;
  node.label = label;
  node.label_pinned = pinned;
  node.free = all_gpus(this->type(type).gpus);
  nodes_.push_back(node);
  shares_.nodes.push_back(std::move(twin));
  total_gpus_ += this->type(type).gpus;
}

Expected<ClusterState> ClusterState::build(const ClusterSpec& spec, ThreadCaches* caches) {
  ClusterState cluster;
  cluster.network_ = spec.network;
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const NodeGroupSpec& group = spec.groups[g];
    const std::string where = "/cluster/nodes/" + std::to_string(g);
    if (group.count < 1) return Error{where + "/count: must be at least 1, got " + std::to_string(group.count)};
    auto type = caches ? caches->node_type(group, spec.network) : modelled_type(group, spec.network);
    if (!type) return Error{where + "/model: " + type.error().message};
    const int type_index = cluster.type_count();
    cluster.add_type(std::move(type).value());
    const NodeType& t = cluster.type(type_index);
    if (!group.names.empty() && static_cast<int>(group.names.size()) != group.count)
      return Error{where + "/names: " + std::to_string(group.names.size()) + " names for " + std::to_string(group.count) +
                   " nodes"};
    for (int i = 0; i < group.count; ++i) {
      std::string name =
          group.names.empty() ? "node-" + std::to_string(cluster.node_count()) : group.names[static_cast<size_t>(i)];
      cluster.add_node(type_index, group.label, group.label_pinned,
                       make_share_node(std::move(name), group.label, type_index, t.gpus, t.card_mem_gib, 0, 0));
    }
  }
  if (!spec.trace_nodes.empty()) {
    if (!spec.groups.empty()) return Error{"/cluster: node groups and a trace's node list cannot be mixed"};
    cluster.modelled_ = false;
    std::map<std::pair<int, int>, int> type_of;  // (GPU type, count) -> type index
    for (const TraceNode& node : spec.trace_nodes) {
      auto [it, fresh] = type_of.emplace(std::make_pair(node.gpu_type, node.gpu_count), cluster.type_count());
      if (fresh) cluster.add_type(trace_type(node));
      cluster.add_node(it->second, NodeMode::Milli, true, trace_share_node(node));
    }
  }
  if (cluster.nodes_.empty()) return Error{"/cluster/nodes: the cluster has no nodes"};
  if (!spec.network.fabric.empty()) {
    if (!spec.trace_nodes.empty()) return Error{"/cluster/network/levels: a trace's node list has no network to place"};
    if (auto built = cluster.build_fabric(spec); !built) return built.error();
  }
  if (!spec.network.measured.empty())
    if (auto built = cluster.build_measured(spec.network); !built) return built.error();
  cluster.free_gpus_ = cluster.total_gpus_;
  return cluster;
}

namespace {

// Each node's group per level from its group's labels: a group is the nodes with the same value
// under the same upper groups; groups are numbered in order of first appearance.
Expected<std::vector<std::vector<int>>> groups_by_labels(const ClusterSpec& spec) {
  const std::vector<FabricLevelSpec>& levels = spec.network.fabric.levels;
  std::vector<std::vector<std::string>> keys(levels.size());  // [level][node]: the path from the top
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const NodeGroupSpec& group = spec.groups[g];
    std::string path;
    std::vector<std::string> at_level(levels.size());
    for (size_t l = levels.size(); l-- > 0;) {
      const auto it = group.labels.find(levels[l].label);
      if (it == group.labels.end())
        return Error{"/cluster/nodes/" + std::to_string(g) + ": no label " + levels[l].label + " (the fabric's level '" +
                     levels[l].name + "' reads it; label every GPU node or place the level by \"fanout\")"};
      path += '\n' + it->second;
      at_level[l] = path;
    }
    for (size_t l = 0; l < levels.size(); ++l) keys[l].insert(keys[l].end(), static_cast<size_t>(group.count), at_level[l]);
  }
  std::vector<std::vector<int>> groups(levels.size());
  for (size_t l = 0; l < levels.size(); ++l) {
    std::map<std::string, int> index;
    for (const std::string& key : keys[l]) groups[l].push_back(index.emplace(key, static_cast<int>(index.size())).first->second);
  }
  return groups;
}

}  // namespace

Status ClusterState::build_fabric(const ClusterSpec& spec) {
  const FabricSpec& fabric = spec.network.fabric;
  const bool by_label = !fabric.levels.front().label.empty();
  for (size_t l = 0; l < fabric.levels.size(); ++l)
    if (fabric.levels[l].label.empty() == by_label)
      return Error{"/cluster/network/levels/" + std::to_string(l) +
                   ": every level is placed by \"label\" or every level by \"fanout\", not a mix"};
  auto groups = by_label ? groups_by_labels(spec) : Fabric::groups_by_order(fabric, node_count());
  if (!groups) return Error{(by_label ? "" : "/cluster/network/") + groups.error().message};
  auto built = Fabric::build(fabric, std::move(groups).value());
  if (!built) return Error{"/cluster/network/" + built.error().message};
  const Fabric& f = *built;
  for (int t = 0; t < type_count(); ++t)
    if (f.rails() > 0 && type(t).topology && f.rails() > type(t).topology->nic_count())
      return Error{"/cluster/network/rails: " + std::to_string(f.rails()) + " rails, but " + type(t).name + " has " +
                   std::to_string(type(t).topology->nic_count()) + " NICs (a rail is one NIC of every node)"};
  if (f.has_nvlink()) {
    std::vector<const GpuModel*> gpu_of(static_cast<size_t>(f.group_count(0)), nullptr);
    for (int n = 0; n < node_count(); ++n) {
      const GpuModel*& first = gpu_of[static_cast<size_t>(f.group(0, n))];
      if (first && first != type_of(n).gpu)
        return Error{"/cluster/network/levels/0: NVLink " + f.level(0).name + " " + std::to_string(f.group(0, n)) +
                     " mixes GPU models (" + first->name + " and " + (type_of(n).gpu ? type_of(n).gpu->name : "none") +
                     "); one NVLink domain holds one GPU model"};
      first = type_of(n).gpu;
    }
  }
  fabric_ = std::make_shared<const Fabric>(std::move(built).value());
  return {};
}

Status ClusterState::build_measured(const NetworkSpec& network) {
  std::map<std::string, int> by_name;
  for (int n = 0; n < node_count(); ++n) by_name.emplace(node_name(n), n);
  auto measured = std::make_shared<std::map<std::pair<int, int>, MeasuredLink>>();
  for (const NetworkSpec::MeasuredPair& pair : network.measured) {
    int ends[2] = {-1, -1};
    for (int e = 0; e < 2; ++e) {
      const std::string& name = e == 0 ? pair.a : pair.b;
      const auto it = by_name.find(name);
      if (it == by_name.end()) return Error{(e == 0 ? pair.a_at : pair.b_at) + ": no node named '" + name + "' in the cluster"};
      ends[e] = it->second;
    }
    if (ends[0] == ends[1]) return Error{pair.b_at + ": a pair of two different nodes, got '" + pair.b + "' twice"};
    const auto key = std::minmax(ends[0], ends[1]);
    if (!measured->emplace(std::make_pair(key.first, key.second), MeasuredLink{pair.bus_gbps, pair.latency_us}).second)
      return Error{pair.at + ": the pair " + pair.a + " / " + pair.b + " is measured twice"};
  }
  measured_ = std::move(measured);
  return {};
}

MeasuredLink ClusterState::measured(int a, int b) const {
  if (measured_->empty()) return {};
  const auto it = measured_->find(std::minmax(a, b));
  return it == measured_->end() ? MeasuredLink{} : it->second;
}

void ClusterState::prepare(NodeMode unpinned_label, const TargetWorkload* target,
                           std::shared_ptr<FragmentationTracker::Memo> memo) {
  std::vector<int> type_gpus;
  for (const auto& type : types_) type_gpus.push_back(type->gpus);
  index_.reset(type_gpus, node_count());
  for (int n = 0; n < node_count(); ++n) {
    SimNode& node = nodes_[static_cast<size_t>(n)];
    if (!node.label_pinned) node.label = unpinned_label;
    shares_.nodes[static_cast<size_t>(n)].mode = node.label;
    index_.add(node.label, node.type, node.free, n);
  }
  for (size_t label = 0; label < label_facts_.size(); ++label) {
    label_facts_[label] = compute_label_facts(static_cast<NodeMode>(label));
    label_types_[label].assign(types_.size(), false);
  }
  for (const SimNode& n : nodes_) label_types_[static_cast<size_t>(n.label)][static_cast<size_t>(n.type)] = true;
  prepared_ = true;
  target_ = target && !target->specs.empty() ? target : nullptr;
  tracker_ = target_ ? std::make_unique<FragmentationTracker>(*target_, shares_, std::move(memo)) : nullptr;
}

ClusterState::LabelFacts ClusterState::compute_label_facts(NodeMode label) const {
  LabelFacts facts;
  for (const SimNode& n : nodes_) {
    if (n.label != label) continue;
    const NodeType& t = type(n.type);
    facts.max_card_mem_gib = std::max(facts.max_card_mem_gib, t.card_mem_gib);
    facts.max_node_gpus = std::max(facts.max_node_gpus, t.gpus);
    facts.gpus += t.gpus;
  }
  return facts;
}

bool ClusterState::label_has_type(NodeMode label, int type) const {
  if (prepared_) return label_types_[static_cast<size_t>(label)][static_cast<size_t>(type)];
  return std::any_of(nodes_.begin(), nodes_.end(), [&](const SimNode& n) { return n.label == label && n.type == type; });
}

ClusterState::LabelFacts ClusterState::label_facts(NodeMode label) const {
  return prepared_ ? label_facts_[static_cast<size_t>(label)] : compute_label_facts(label);
}

double ClusterState::allocated_gpus() const {
  if (tracker_) return total_gpus_ - out_of_service_gpus_ - tracker_->free_gpus();
  return total_gpus_ - out_of_service_gpus_ - free_gpus_;
}

void ClusterState::set_out_of_service(int node, bool out, bool spare) {
  const int gpus = gpus_per_node(node);
  PodRequest all;
  all.gpu = GpuAsk::whole(gpus);
  std::vector<int> cards(static_cast<size_t>(gpus));
  for (int g = 0; g < gpus; ++g) cards[static_cast<size_t>(g)] = g;
  if (out)
    bind(node, all, cards);
  else
    unbind(node, all, cards);
  out_of_service_gpus_ += out ? gpus : -gpus;
  if (spare) spare_gpus_ += out ? gpus : -gpus;
}

void ClusterState::set_free(int node, const GpuSet& cards, bool free) {
  if (cards.none()) return;
  SimNode& n = nodes_[static_cast<size_t>(node)];
  const GpuSet before = n.free;
  assert(((free ? n.free : ~n.free) & cards).none() && "card already in that state");
  if (free)
    n.free |= cards;
  else
    n.free &= ~cards;
  free_gpus_ += static_cast<int>(cards.count()) * (free ? 1 : -1);
  index_.update(n.label, n.type, node, before, n.free);
}

void ClusterState::bind(int node, const PodRequest& pod, const std::vector<int>& cards) {
  ShareNode& twin = shares_.nodes[static_cast<size_t>(node)];
  GpuSet were_idle;
  for (int card : cards)
    if (twin.cards[static_cast<size_t>(card)].tasks == 0) were_idle.set(static_cast<size_t>(card));
  apply_placement(twin, pod, cards);
  if (tracker_) tracker_->update_node(shares_, node);
  set_free(node, were_idle, false);
}

void ClusterState::unbind(int node, const PodRequest& pod, const std::vector<int>& cards) {
  ShareNode& twin = shares_.nodes[static_cast<size_t>(node)];
  release_placement(twin, pod, cards);
  if (tracker_) tracker_->update_node(shares_, node);
  GpuSet now_idle;
  for (int card : cards)
    if (twin.cards[static_cast<size_t>(card)].tasks == 0) now_idle.set(static_cast<size_t>(card));
  set_free(node, now_idle, true);
}

}  // namespace topsim
