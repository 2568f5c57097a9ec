// Drawings of the cluster's fabric (sim/fabric_view.h): `topsim topo show --scenario/--cluster`
// in the terminal, and report.html's "Fabric" section. Both show the levels (top first: groups,
// what each holds, oversubscription, uplink capacity), rails and NVLink domains, the measured
// node pairs, and a tree of the groups down to their nodes (at most kFabricChildrenShown
// children per group, then how many more).
#pragma once

#include <string>
#include <vector>

#include "sim/fabric_view.h"

namespace topsim {

inline constexpr int kFabricChildrenShown = 8;

// `node_names` by node index (empty: "node-<index>"). A flat network with nothing measured:
// one line saying so. Deterministic; ends with a newline.
std::string render_fabric_text(const FabricView& view, const std::vector<std::string>& node_names);

// The same as an HTML section (<section><h2>Fabric</h2>, the level table, the tree); "" for a
// flat network with nothing measured.
std::string render_fabric_html(const FabricView& view, const std::vector<std::string>& node_names);

}  // namespace topsim
