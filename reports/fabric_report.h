// Drawings of the cluster's fabric (sim/fabric_view.h): `topsim topo show --scenario/--cluster`
// in the terminal, and report.html's "Fabric" section. Both show the levels (top first: groups,
// what each holds, oversubscription, uplink capacity), rails and NVLink domains, the measured
// node pairs, and a tree of the groups down to their nodes (at most kFabricChildrenShown
// children per group, then how many more).
#pragma once

#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/fabric_view.h"

namespace topsim {

inline constexpr int kFabricChildrenShown = 8;

// `node_names` by node index (empty: "node-<index>"). A flat network with nothing measured:
// one line saying so. Deterministic; ends with a newline.
std::string render_fabric_text(const FabricView& view, const std::vector<std::string>& node_names);

// The cluster's node groups (`topsim topo show --scenario/--cluster`, after the fabric): per group
// its nodes x model, GPUs, pinned label, host memory (the group's, else the model's; "not
// stated") and the first kFabricChildrenShown node names (`node_names` by node index, the groups'
// nodes in order), e.g. "  7 x hgx-h100  8 x h100  host memory 2015.6 GiB  h0, h1, ... (7)", under
// "node groups: 2 (8 nodes, 64 GPUs)".
std::string render_node_groups_text(const ClusterSpec& cluster, const std::vector<std::string>& node_names);

// The same as an HTML section (<section><h2>Fabric</h2>, the level table, the tree); "" for a
// flat network with nothing measured.
std::string render_fabric_html(const FabricView& view, const std::vector<std::string>& node_names);

}  // namespace topsim
