#include "sim/fabric_view.h"

#include <algorithm>

#include "sim/cluster.h"

namespace topsim {
namespace {

// The label value of each node's group at a level placed by `label`, by node index.
std::vector<std::string> label_values(const ClusterSpec& spec, const std::string& label) {
  std::vector<std::string> values;
  for (const NodeGroupSpec& group : spec.groups) {
    const auto it = group.labels.find(label);
    values.insert(values.end(), static_cast<size_t>(group.count), it == group.labels.end() ? std::string() : it->second);
  }
  return values;
}

FabricLevelView view_level(const ClusterSpec& spec, const ClusterState& cluster, int level, const std::vector<double>& uplinks) {
  const Fabric& fabric = cluster.fabric();
  const FabricLevelSpec& l = fabric.level(level);
  FabricLevelView view{l.name, l.label, l.fanout, l.uplink_gbps > 0 ? 0 : l.oversubscription, l.nvlink, {}};
  view.groups.resize(static_cast<size_t>(fabric.group_count(level)));
  const std::vector<std::string> values = l.label.empty() ? std::vector<std::string>{} : label_values(spec, l.label);
  for (int n = cluster.node_count() - 1; n >= 0; --n) {  // downwards, so first_node ends lowest
    FabricGroupView& g = view.groups[static_cast<size_t>(fabric.group(level, n))];
    if (g.nodes++ == 0) g.last_node = n;
    g.first_node = n;
    g.gpus += cluster.gpus_per_node(n);
    if (level + 1 < fabric.level_count()) g.parent = fabric.group(level + 1, n);
    if (static_cast<size_t>(n) < values.size()) g.name = values[static_cast<size_t>(n)];
  }
  for (int g = 0; g < fabric.group_count(level); ++g) {
    FabricGroupView& group = view.groups[static_cast<size_t>(g)];
    if (group.name.empty()) group.name = std::to_string(g);
    if (const int link = fabric.link_of(level, g); link >= 0) group.uplink_gbps = uplinks[static_cast<size_t>(link)];
  }
  return view;
}

}  // namespace

std::vector<double> node_network_capacity_gbps(const ClusterState& cluster, const NetworkModel& net) {
  std::vector<double> type_gbps;
  for (int t = 0; t < cluster.type_count(); ++t) {
    const NodeType& type = cluster.type(t);
    type_gbps.push_back(type.topology ? node_network_gbps(*type.topology, to_ids(all_gpus(type.gpus)), net) : 0);
  }
  std::vector<double> gbps;
  for (const SimNode& node : cluster.nodes()) gbps.push_back(type_gbps[static_cast<size_t>(node.type)]);
  return gbps;
}

FabricView view_fabric(const ClusterSpec& spec, const ClusterState& cluster, const NetworkModel& net) {
  FabricView view;
  for (const auto& [pair, link] : cluster.measured_pairs()) {
    ++view.measured_pairs;
    if (link.bus_gbps > 0 && (view.least_measured_gbps <= 0 || link.bus_gbps < view.least_measured_gbps))
      view.least_measured_gbps = link.bus_gbps;
    view.most_measured_latency_us = std::max(view.most_measured_latency_us, link.latency_us);
  }
  const Fabric& fabric = cluster.fabric();
  if (fabric.empty()) return view;
  const std::vector<double> node_gbps = node_network_capacity_gbps(cluster, net);
  const std::vector<double> uplinks = fabric.link_capacities(node_gbps);
  for (int l = 0; l < fabric.level_count(); ++l) view.levels.push_back(view_level(spec, cluster, l, uplinks));
  view.rails = fabric.rails();
  const auto [least, most] = std::minmax_element(node_gbps.begin(), node_gbps.end());
  view.least_node_gbps = node_gbps.empty() ? 0 : *least;
  view.most_node_gbps = node_gbps.empty() ? 0 : *most;
  return view;
}

}  // namespace topsim
