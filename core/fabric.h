// The cluster's network fabric above the nodes: tiers of switches (e.g. rack -> block -> core),
// optionally rail-optimised, optionally with a multi-node NVLink level (GB200 NVL72 domains),
// and which uplinks a multi-node job's traffic crosses.
//
// Model. Levels are listed from the lowest (closest to the nodes) up. Each level groups the
// groups of the level below (level 0 groups nodes): by order (`fanout` children per group, as
// nodes fill racks in index order) or by a node label (nodes with the same value, under the same
// upper groups, share a group). Every group of a level has one uplink to the level above (the
// top level's groups to the core, when there are several); its capacity is what the group's
// downlinks carry, divided by the level's oversubscription (a 2:1 leaf has half the uplink
// bandwidth of its downlinks): the sum of its nodes' achieved NIC bandwidth for level 0, the sum
// of its children's uplinks above, or an absolute figure the scenario gives.
//
// A multi-node job's collective runs as rings (core/gang.h): each channel visits the job's nodes
// with the nodes of one group contiguous, so it enters and leaves every group it touches once.
// Where the job spans several groups of a level, it therefore crosses the uplink of every group
// of that level it touches, each direction carrying the ring's hop rate (one flow per channel,
// the channels spread over the node's NICs): the job's demand on each such uplink is its
// network-bound ring bandwidth. A job inside one group crosses none of that level's uplinks.
//
// Rails (rail-optimised fabrics, NVIDIA DGX SuperPOD reference architecture): NIC i of every
// node of a level-0 group connects to rail switch i, so traffic between NICs of one rail stays on
// that rail's switch; traffic between different rails must climb to the level above. A job
// whose nodes use different NIC sets (its workers sit on different GPUs of each node) is not
// rail-aligned: its traffic crosses the level-0 uplinks even inside one group.
//
// An NVLink level (`nvlink`, the lowest level only): its groups are multi-node NVLink domains
// (one NVLink switch fabric, e.g. the 18 trays of a GB200 NVL72 rack, `nvidia.com/gpu.clique`);
// traffic between nodes of one domain never reaches the NICs. Its uplinks are the nodes' NICs.
#pragma once

#include <string>
#include <vector>

#include "util/expected.h"

namespace topsim {

struct FabricLevelSpec {
  std::string name;             // the user's name: "rack", "block", "domain", ...
  int fanout = 0;               // children per group (level 0: nodes); 0 when `label` places them
  std::string label;            // node label whose value names the group (instead of fanout)
  double oversubscription = 1;  // downlink : uplink of each group (>= 1); default 1
  double uplink_gbps = 0;       // each group's uplink, achieved GB/s; > 0 replaces oversubscription
  bool nvlink = false;          // the level's links are NVLink (a multi-node NVLink domain)
};

struct FabricSpec {
  std::vector<FabricLevelSpec> levels;  // lowest first; empty: no fabric (one flat network)
  int rails = 0;                        // rails of a rail-optimised fabric (0: not rail-optimised)
  // Levels above the lowest may end in a partly filled group (groups_by_order): the cluster a
  // plan tries at a size between whole top-level groups, as a fabric is built out switch by
  // switch. A scenario's fabric fills every level (false).
  bool last_groups_partly = false;
  bool empty() const { return levels.empty(); }
};

// The fabric in words, lowest level first: "rack: 16 nodes, 4:1; block: 8 racks, 2:1; 8 rails"
// (a level placed by label: "rack: by label topology.k8s.aws/network-node-layer-3"); "" for none.
std::string describe_fabric(const FabricSpec& spec);

class Fabric {
 public:
  Fabric() = default;

  // `groups[level][node]`: each node's group index at each level (levels of `spec`, lowest
  // first; indices from 0, dense), consistent (nodes of one group share every upper group).
  // Errors name the level ("levels/1/...: ...").
  [[nodiscard]] static Expected<Fabric> build(const FabricSpec& spec, std::vector<std::vector<int>> groups);
  // Groups by order: node i is in group i / fanout of level 0, and so on up. Errors when a
  // fanout does not divide the count below ("levels/0/fanout: 16 nodes do not fill racks of 6"),
  // except above level 0 with `last_groups_partly`: there the last group holds what is left.
  [[nodiscard]] static Expected<std::vector<std::vector<int>>> groups_by_order(const FabricSpec& spec, int nodes);

  bool empty() const { return levels_.empty(); }
  int level_count() const { return static_cast<int>(levels_.size()); }
  const FabricLevelSpec& level(int l) const { return levels_[static_cast<size_t>(l)]; }
  int rails() const { return rails_; }
  int group_count(int level) const { return group_counts_[static_cast<size_t>(level)]; }
  int group(int level, int node) const { return groups_[static_cast<size_t>(level)][static_cast<size_t>(node)]; }
  // The node's multi-node NVLink domain (its group at the NVLink level); -1 without one.
  int nvlink_domain(int node) const { return has_nvlink() ? group(0, node) : -1; }
  bool has_nvlink() const { return !levels_.empty() && levels_.front().nvlink; }
  // The level whose groups hold the rail switches: the lowest network level (above an NVLink level).
  int rail_level() const { return has_nvlink() ? 1 : 0; }

  // Uplinks: one per group of each level (the top level's only when it has several groups).
  int link_count() const { return static_cast<int>(link_level_.size()); }
  int link_of(int level, int group) const;  // -1 when that group has no uplink
  int link_level(int link) const { return link_level_[static_cast<size_t>(link)]; }
  // Every uplink's capacity, GB/s, given each node's achieved NIC bandwidth (model above).
  std::vector<double> link_capacities(const std::vector<double>& node_gbps) const;

  // The lowest level at which all `nodes` share one group (level_count() when they span the
  // top level's groups); -1 for a single node or none.
  int span_level(const std::vector<int>& nodes) const;
  // The uplinks a job over `nodes` crosses (model above), ascending, appended to `out`.
  // `rail_aligned`: every node uses the same NIC indices.
  void links_crossed(const std::vector<int>& nodes, bool rail_aligned, std::vector<int>& out) const;

 private:
  std::vector<FabricLevelSpec> levels_;
  int rails_ = 0;
  std::vector<std::vector<int>> groups_;  // [level][node]
  std::vector<int> group_counts_;
  std::vector<std::vector<int>> links_;  // [level][group] -> link or -1
  std::vector<int> link_level_;
};

}  // namespace topsim
