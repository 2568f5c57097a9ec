// The cluster's fabric as data to draw (`topsim topo show --scenario/--cluster`, report.html's
// fabric section, results.json's "fabric_view"): its levels with every group, the nodes under
// each group, each group's uplink capacity (the capacities the replay shares, core/fabric.h),
// rails, NVLink domains and the measured node pairs.
#pragma once

#include <string>
#include <vector>

#include "core/network_model.h"

namespace topsim {

class ClusterState;
struct ClusterSpec;

struct FabricGroupView {
  std::string name;        // the label value that places it, or its index ("0", "1", ...)
  int parent = -1;         // its group one level up (index into that level's groups); -1 at the top level
  int first_node = 0;      // its lowest node index
  int last_node = 0;       // its highest node index
  int nodes = 0;           // nodes under it
  int gpus = 0;            // GPUs under it
  double uplink_gbps = 0;  // its uplink's capacity, achieved GB/s; 0 = none (the one group of the top level)
};

struct FabricLevelView {
  std::string name;
  std::string label;            // the node label that places it; "" = by fan-out
  int fanout = 0;               // children per group when placed by fan-out
  double oversubscription = 1;  // downlink : uplink; 0 when the scenario gave uplink_gbit instead
  bool nvlink = false;          // its groups are multi-node NVLink domains
  std::vector<FabricGroupView> groups;
};

struct FabricView {
  std::vector<FabricLevelView> levels;  // lowest first; empty: one flat network
  int rails = 0;                        // rails of a rail-optimised fabric; 0 = none
  double least_node_gbps = 0;           // achieved NIC bandwidth of a whole node, GB/s: the least
  double most_node_gbps = 0;            //   and the most over the cluster's nodes
  int measured_pairs = 0;               // node pairs with a measured link
  double least_measured_gbps = 0;       // the slowest measured bus bandwidth, GB/s; 0 = none
  double most_measured_latency_us = 0;  // the largest measured latency, us
  bool empty() const { return levels.empty() && measured_pairs == 0; }
};

// Each node's achieved NIC bandwidth with all its GPUs (core/network_model.h), GB/s, by node
// index: the downlinks the fabric's uplink capacities are computed from.
std::vector<double> node_network_capacity_gbps(const ClusterState& cluster, const NetworkModel& net);

// The fabric of a built cluster (`spec` is what it was built from: the label values that name
// groups). Without a fabric: no levels (its measured pairs still counted).
FabricView view_fabric(const ClusterSpec& spec, const ClusterState& cluster, const NetworkModel& net);

}  // namespace topsim
