// The "cluster" section of a scenario: node groups (built-in models or node files) with their
// network, or the nodes of a trace's node list.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "core/node_model.h"
#include "formats/hardware/node_source.h"
#include "formats/traces/alibaba_trace.h"
#include "scenario/scenario_sections.h"
#include "util/number_format.h"
#include "util/suggest.h"

namespace topsim {
namespace {

constexpr int64_t kMaxClusterNodes = 1'000'000;  // over all node groups

namespace fs = std::filesystem;

}  // namespace

namespace {

// One fabric level: {"name", "fanout" | "label", "oversubscription" | "uplink_gbit", "links"}.
void read_fabric_level(JsonErrors& errors, const JsonAt& at, NetworkTransport transport, const NetworkModel& model,
                       FabricSpec& fabric) {
  JsonObject o(errors, at, {"name", "fanout", "label", "oversubscription", "uplink_gbit", "links"});
  if (!o.is_object() || !o.require("name")) return;
  FabricLevelSpec level;
  if (auto name = o.string("name")) level.name = *name;
  if (o.has("fanout") == o.has("label"))
    return o.fail("fanout", "give \"fanout\" (nodes fill groups in order) or \"label\", one of them");
  if (auto f = o.integer("fanout", 1, 1000000)) level.fanout = static_cast<int>(*f);
  if (auto l = o.string("label")) {
    if (l->empty()) return o.fail("label", "must name a node label");
    level.label = *l;
  }
  if (o.has("oversubscription") && o.has("uplink_gbit"))
    return o.fail("uplink_gbit", "give \"oversubscription\" or \"uplink_gbit\", not both");
  if (auto v = o.number("oversubscription", 1, 1000)) level.oversubscription = *v;
  // An absolute uplink in line rate: achieved as the nodes' NICs achieve theirs on this transport.
  if (auto v = o.number("uplink_gbit", 0.001, 1e9))
    level.uplink_gbps = network_gbps(*v) * model.efficiency(transport == NetworkTransport::Tcp    ? NicTransport::Ethernet
                                                            : transport == NetworkTransport::Roce ? NicTransport::RoCE
                                                                                                  : NicTransport::InfiniBand);
  if (auto links = o.string("links")) {
    if (*links != "nvlink" && *links != "network") return o.fail("links", "'" + *links + "' is not one of network, nvlink");
    level.nvlink = *links == "nvlink";
  }
  fabric.levels.push_back(std::move(level));
}

}  // namespace

void read_network(JsonErrors& errors, const JsonAt& at, NetworkSpec& net, NetworkModel& model) {
  JsonObject o(errors, at,
               {"transport", "nic_speed_gbit", "tcp_efficiency", "rdma_efficiency", "nodes_per_rack", "rack_oversubscription",
                "levels", "rails", "measured"});
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
  if (o.has("levels") && (o.has("nodes_per_rack") || o.has("rack_oversubscription")))
    return o.fail("nodes_per_rack",
                  "give \"levels\" or the one-level shorthand nodes_per_rack / rack_oversubscription, not both");
  // The one-level shorthand: racks of nodes_per_rack nodes in order.
  if (auto v = o.integer("nodes_per_rack", 0, 100000); v && *v > 0)
    net.fabric.levels.push_back({"rack", static_cast<int>(*v), "", 1, 0, false});
  if (auto v = o.number("rack_oversubscription", 1, 1000)) {
    if (net.fabric.levels.empty()) return o.fail("rack_oversubscription", "needs nodes_per_rack (the racks it applies to)");
    net.fabric.levels.front().oversubscription = *v;
  }
  if (auto levels = o.member("levels")) {
    if (!levels->value->is_array() || levels->value->empty())
      return errors.fail(levels->pointer,
                         "must be a non-empty array of levels, lowest first (e.g. [{\"name\": \"rack\", \"fanout\": 16}])");
    for (size_t i = 0; i < levels->value->size() && !errors.failed(); ++i)
      read_fabric_level(errors, levels->element(i), net.transport, model, net.fabric);
  }
  if (auto measured = o.member("measured")) read_measured(errors, *measured, net);
  if (auto r = o.integer("rails", 0, 64)) {
    if (*r > 0 && net.fabric.empty()) return o.fail("rails", "needs \"levels\" (the rail switches are the lowest level)");
    net.fabric.rails = static_cast<int>(*r);
  }
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
  std::vector<std::string> keys = {"model", "count", "label", "gpu_model", "names", "labels", "host_memory_gib"};
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
  // The group's own host memory (kubectl's allocatable memory, topsim import nodes) over the model's.
  if (auto gib = o.positive_number("host_memory_gib")) {
    if (*gib > kMaxHostMemoryGib)
      return o.fail("host_memory_gib",
                    "must be at most " + format_number(kMaxHostMemoryGib) + " GiB, got " + format_number(*gib));
    group.model.host_memory_gib = *gib;
  }
  if (auto c = o.integer("count", 1, 100000)) group.count = static_cast<int>(*c);
  if (auto l = o.string("label")) {
    group.label_pinned = true;
    const auto label = parse_enum<NodeMode>(*l);
    if (label && std::find(kGroupLabels.begin(), kGroupLabels.end(), *label) != kGroupLabels.end())
      group.label = *label;
    else
      o.fail("label", "'" + *l + "' is not one of " + group_label_list() + " (ack.node.gpu.schedule)");
  }
  if (auto names = o.member("names")) {
    if (!names->value->is_array()) return errors.fail(names->pointer, "must be an array of node names");
    for (size_t i = 0; i < names->value->size(); ++i) {
      const JsonAt at_name = names->element(i);
      if (!at_name.value->is_string() || at_name.value->get<std::string>().empty())
        return errors.fail(at_name.pointer, "must be a node name (a non-empty string)");
      group.names.push_back(at_name.value->get<std::string>());
    }
    if (static_cast<int>(group.names.size()) != group.count)
      return o.fail("names", std::to_string(group.names.size()) + " names for " + std::to_string(group.count) + " nodes");
  }
  if (auto labels = o.member("labels")) {
    if (!labels->value->is_object()) return errors.fail(labels->pointer, "must be an object of node labels (name: value)");
    for (const auto& [key, value] : labels->value->items()) {
      if (!value.is_string()) return errors.fail(labels->member(key).pointer, "must be a string label value");
      group.labels[key] = value.get<std::string>();
    }
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
