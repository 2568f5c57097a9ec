// The "cluster" section of a scenario: node groups (built-in models or node files) with their
// network, or the nodes of a trace's node list.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "formats/hardware/node_source.h"
#include "formats/traces/alibaba_trace.h"
#include "scenario/scenario_sections.h"
#include "util/suggest.h"

namespace topsim {
namespace {

constexpr int64_t kMaxClusterNodes = 1'000'000;  // over all node groups

namespace fs = std::filesystem;

}  // namespace

void read_network(JsonErrors& errors, const JsonAt& at, NetworkSpec& net, NetworkModel& model) {
  JsonObject o(errors, at,
               {"transport", "nic_speed_gbit", "tcp_efficiency", "rdma_efficiency", "nodes_per_rack", "rack_oversubscription"});
  if (auto t = o.string("transport")) {
    if (auto transport = parse_enum<NetworkTransport>(*t))
      net.transport = *transport;
    else
      o.fail("transport", "'" + *t + "' is not one of " + join_names(enum_name_list<NetworkTransport>()));
  }
  if (auto v = o.number("nic_speed_gbit", 0.001, 1e6)) net.nic_speed_gbit = *v;
  if (auto v = o.number("tcp_efficiency", 0.01, 1)) model.tcp_socket_efficiency = *v;
  if (auto v = o.number("rdma_efficiency", 0.01, 1)) {
    model.infiniband_efficiency = *v;
    model.roce_efficiency = *v * kRoceFramingRatio;
  }
  if (auto v = o.integer("nodes_per_rack", 0, 100000)) net.nodes_per_rack = static_cast<int>(*v);
  if (auto v = o.number("rack_oversubscription", 1, 1000)) net.rack_oversubscription = *v;
}

namespace {

// The labels a node group may pin, in the order errors list them (`milli` is the trace nodes'
// own mode, not a label).
constexpr std::array<NodeMode, 4> kGroupLabels = {NodeMode::Topology, NodeMode::Default, NodeMode::Share, NodeMode::CoreMem};

std::string group_label_list() {
  std::vector<std::string> names;
  for (const NodeMode label : kGroupLabels) names.emplace_back(enum_name(label));
  return join_names(names);
}

}  // namespace

void read_node_group(JsonErrors& errors, const JsonAt& at, const std::string& base_dir, ClusterSpec& cluster,
                     const std::vector<std::string>& extra_keys) {
  std::vector<std::string> keys = {"model", "count", "label", "gpu_model"};
  keys.insert(keys.end(), extra_keys.begin(), extra_keys.end());
  JsonObject o(errors, at, keys);
  if (!o.is_object() || !o.require("model")) return;
  NodeGroupSpec group;
  const auto model = o.string("model");
  if (!model) return;
  NodeLoadOptions load;
  if (auto g = o.string("gpu_model")) {
    if (!find_gpu_model(*g)) return o.fail("gpu_model", unknown_name("GPU model", *g, gpu_model_names()));
    load.topo_m.gpu_model = *g;
  }
  std::string spec = builtin_model(*model) ? *model : resolve_path(base_dir, *model);
  // A bare name that is no file (beside the scenario or here) is a mistyped model: load_node
  // answers it with "did you mean" instead of "cannot open '<folder>/<name>'".
  std::error_code ec;
  if (model->find_first_of("/.") == std::string::npos && !fs::exists(spec, ec) && !fs::exists(*model, ec)) spec = *model;
  auto node = load_node(spec, load);
  if (!node) return o.fail("model", node.error().message);
  group.model = std::move(node).value();
  if (auto c = o.integer("count", 1, 100000)) group.count = static_cast<int>(*c);
  if (auto l = o.string("label")) {
    group.label_pinned = true;
    const auto label = parse_enum<NodeMode>(*l);
    if (label && std::find(kGroupLabels.begin(), kGroupLabels.end(), *label) != kGroupLabels.end())
      group.label = *label;
    else
      o.fail("label", "'" + *l + "' is not one of " + group_label_list() + " (ack.node.gpu.schedule)");
  }
  cluster.groups.push_back(std::move(group));
}

namespace {

// Keeps a `fraction` of the nodes, evenly over the list (node i is kept when
// floor((i + 1) x f) > floor(i x f)), so the mix of node types stays.
std::vector<TraceNode> keep_fraction(std::vector<TraceNode> nodes, double fraction) {
  if (fraction >= 1) return nodes;
  std::vector<TraceNode> kept;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const double at = static_cast<double>(i);
    if (std::floor((at + 1) * fraction) > std::floor(at * fraction)) kept.push_back(std::move(nodes[i]));
  }
  return kept;
}

void read_node_list(JsonErrors& errors, const JsonObject& o, const std::string& base_dir, Scenario& s) {
  const auto path = o.string("node_list");
  if (!path) return;
  bool include_cpu = false;
  if (auto cpu = o.member("include_cpu_nodes")) {
    if (!cpu->value->is_boolean()) return o.fail("include_cpu_nodes", "must be true or false, got " + describe_json(*cpu->value));
    include_cpu = cpu->value->get<bool>();
  }
  const double fraction = o.number("node_fraction", 1e-6, 1).value_or(1);
  if (errors.failed()) return;
  std::vector<TraceNode> nodes;
  const Status read = load_node_list(resolve_path(base_dir, *path), [&](TraceNode&& node) {
    if (node.gpu_count > 0 || include_cpu) nodes.push_back(std::move(node));
  });
  if (!read) return o.fail("node_list", read.error().message);
  s.cluster.trace_nodes = keep_fraction(std::move(nodes), fraction);
  s.cluster_source = fs::path(*path).filename().string();
  int gpus = 0;
  for (const TraceNode& node : s.cluster.trace_nodes) gpus += node.gpu_count;
  if (gpus == 0) o.fail("node_list", "'" + *path + "' has no GPU nodes" + (fraction < 1 ? " in the kept node_fraction" : ""));
}

}  // namespace

std::string resolve_path(const std::string& base_dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute() || base_dir.empty()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

void read_cluster(JsonErrors& errors, const JsonAt& at, const std::string& base_dir, Scenario& s) {
  JsonObject o(errors, at, {"nodes", "network", "node_list", "include_cpu_nodes", "node_fraction"});
  if (!o.is_object()) return;
  if (o.has("node_list")) {
    if (o.has("nodes")) return o.fail("nodes", "cannot be combined with \"node_list\" (the cluster is one or the other)");
    if (o.has("network")) return o.fail("network", "applies to modelled nodes only (a trace's nodes have no topology)");
    return read_node_list(errors, o, base_dir, s);
  }
  for (const char* key : {"include_cpu_nodes", "node_fraction"})
    if (o.has(key)) return o.fail(key, "applies to a \"node_list\" cluster only");
  if (!o.require("nodes")) return;
  const JsonAt nodes = *o.member("nodes");
  if (!nodes.value->is_array() || nodes.value->empty())
    return errors.fail(nodes.pointer, "must be a non-empty array of node groups");
  int64_t total = 0;
  for (size_t i = 0; i < nodes.value->size() && !errors.failed(); ++i) {
    read_node_group(errors, nodes.element(i), base_dir, s.cluster);
    if (errors.failed()) return;
    total += s.cluster.groups.back().count;
    if (total > kMaxClusterNodes)
      return errors.fail(nodes.element(i).pointer + "/count",
                         "the cluster would have more than " + std::to_string(kMaxClusterNodes) + " nodes (docs/limits.md)");
  }
  if (auto net = o.member("network")) read_network(errors, *net, s.cluster.network, s.network);
}

}  // namespace topsim
