// The cluster fabric: groups per level, uplinks and their capacity, the links a job crosses.
#include "core/fabric.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace topsim {
namespace {

std::string at_level(size_t level, const char* field = nullptr) {
  return "levels/" + std::to_string(level) + (field ? std::string("/") + field : "");
}

Status check_levels(const FabricSpec& spec) {
  for (size_t l = 0; l < spec.levels.size(); ++l) {
    const FabricLevelSpec& level = spec.levels[l];
    if (level.name.empty()) return Error{at_level(l, "name") + ": a level needs a name (e.g. \"rack\")"};
    for (size_t k = 0; k < l; ++k)
      if (spec.levels[k].name == level.name) return Error{at_level(l, "name") + ": '" + level.name + "' is named twice"};
    if (!(level.oversubscription >= 1) || !std::isfinite(level.oversubscription))
      return Error{at_level(l, "oversubscription") + ": must be at least 1 (downlink : uplink), got " +
                   std::to_string(level.oversubscription)};
    if (level.uplink_gbps < 0 || !std::isfinite(level.uplink_gbps))
      return Error{at_level(l, "uplink_gbit") + ": must be positive"};
    if (level.nvlink && l != 0)
      return Error{at_level(l, "links") + ": an NVLink level must be the lowest (NVLink domains sit below the switches)"};
  }
  if (spec.rails < 0) return Error{"rails: must be 0 or more, got " + std::to_string(spec.rails)};
  return {};
}

}  // namespace

std::string describe_fabric(const FabricSpec& spec) {
  std::string out;
  for (size_t l = 0; l < spec.levels.size(); ++l) {
    const FabricLevelSpec& level = spec.levels[l];
    if (!out.empty()) out += "; ";
    out += level.name + ": ";
    out += level.fanout > 0 ? std::to_string(level.fanout) + " " + (l == 0 ? std::string("nodes") : spec.levels[l - 1].name + "s")
                            : "by label " + level.label;
    if (level.nvlink) {
      out += ", NVLink domain";
    } else if (level.uplink_gbps > 0) {
      char text[64];
      std::snprintf(text, sizeof text, ", uplink %.1f GB/s", level.uplink_gbps);
      out += text;
    } else if (level.oversubscription != 1) {
      char text[64];
      std::snprintf(text, sizeof text, ", %g:1", level.oversubscription);
      out += text;
    }
  }
  if (spec.rails > 0) out += "; " + std::to_string(spec.rails) + " rails";
  return out;
}

Expected<std::vector<std::vector<int>>> Fabric::groups_by_order(const FabricSpec& spec, int nodes) {
  std::vector<std::vector<int>> groups;
  int below = nodes;  // members at the level below (nodes for level 0)
  for (size_t l = 0; l < spec.levels.size(); ++l) {
    const int fanout = spec.levels[l].fanout;
    const char* what = l == 0 ? " nodes" : " groups of the level below";
    if (fanout <= 0) return Error{at_level(l, "fanout") + ": must be at least 1 (or give a \"label\")"};
    const bool partly = l > 0 && spec.last_groups_partly;
    if (below % fanout != 0 && !partly)
      return Error{at_level(l, "fanout") + ": " + std::to_string(below) + what + " do not fill " + spec.levels[l].name + "s of " +
                   std::to_string(fanout) + " (the fan-out must divide them)"};
    std::vector<int> of_node(static_cast<size_t>(nodes));
    for (int n = 0; n < nodes; ++n)
      of_node[static_cast<size_t>(n)] = (l == 0 ? n : groups.back()[static_cast<size_t>(n)]) / fanout;
    groups.push_back(std::move(of_node));
    below = (below + fanout - 1) / fanout;
  }
  return groups;
}

Expected<Fabric> Fabric::build(const FabricSpec& spec, std::vector<std::vector<int>> groups) {
  if (auto ok = check_levels(spec); !ok) return ok.error();
  Fabric f;
  f.levels_ = spec.levels;
  f.rails_ = spec.rails;
  f.groups_ = std::move(groups);
  for (size_t l = 0; l < f.levels_.size(); ++l) {
    const std::vector<int>& of_node = f.groups_[l];
    const int count = of_node.empty() ? 0 : *std::max_element(of_node.begin(), of_node.end()) + 1;
    f.group_counts_.push_back(count);
    if (l + 1 < f.levels_.size()) {
      std::vector<int> parent(static_cast<size_t>(count), -1);  // each group's group one level up
      for (size_t n = 0; n < of_node.size(); ++n) {
        int& p = parent[static_cast<size_t>(of_node[n])];
        const int up = f.groups_[l + 1][n];
        if (p >= 0 && p != up)
          return Error{at_level(l + 1) + ": a " + f.levels_[l].name + " cannot sit in two " + f.levels_[l + 1].name + "s"};
        p = up;
      }
    }
    std::vector<int> links(static_cast<size_t>(count), -1);
    for (int g = 0; g < count && (l + 1 < f.levels_.size() || count > 1); ++g) {
      links[static_cast<size_t>(g)] = static_cast<int>(f.link_level_.size());
      f.link_level_.push_back(static_cast<int>(l));
    }
    f.links_.push_back(std::move(links));
  }
  return f;
}

std::vector<double> Fabric::link_capacities(const std::vector<double>& node_gbps) const {
  std::vector<double> capacity(link_level_.size(), 0);
  std::vector<double> down = node_gbps;       // downlink capacity of each member of the level below
  std::vector<int> member(node_gbps.size());  // the member of the level below each node is in
  for (size_t n = 0; n < member.size(); ++n) member[n] = static_cast<int>(n);
  for (size_t l = 0; l < levels_.size(); ++l) {
    const std::vector<int>& of_node = groups_[l];
    std::vector<double> sum(static_cast<size_t>(group_counts_[l]), 0);
    std::vector<char> seen(down.size(), 0);
    for (size_t n = 0; n < of_node.size(); ++n) {
      const size_t m = static_cast<size_t>(member[n]);
      if (seen[m]) continue;
      seen[m] = 1;
      sum[static_cast<size_t>(of_node[n])] += down[m];
    }
    const FabricLevelSpec& level = levels_[l];
    for (size_t g = 0; g < sum.size(); ++g) {
      sum[g] = level.uplink_gbps > 0 ? level.uplink_gbps : sum[g] / level.oversubscription;
      if (const int link = links_[l][g]; link >= 0) capacity[static_cast<size_t>(link)] = sum[g];
    }
    down = std::move(sum);
    member = of_node;
  }
  return capacity;
}

int Fabric::link_of(int level, int group) const { return links_[static_cast<size_t>(level)][static_cast<size_t>(group)]; }

int Fabric::span_level(const std::vector<int>& nodes) const {
  if (nodes.size() < 2) return -1;
  for (int l = 0; l < level_count(); ++l) {
    const int first = group(l, nodes.front());
    if (std::all_of(nodes.begin(), nodes.end(), [&](int n) { return group(l, n) == first; })) return l;
  }
  return level_count();
}

void Fabric::links_crossed(const std::vector<int>& nodes, bool rail_aligned, std::vector<int>& out) const {
  if (nodes.size() < 2 || levels_.empty()) return;
  int from = span_level(nodes);  // levels below this are crossed
  // A job that is not rail-aligned leaves its rail switches even inside one group of the rail level.
  if (rails_ > 0 && !rail_aligned && from == rail_level() && rail_level() < level_count()) from = rail_level() + 1;
  const size_t first = out.size();
  for (int l = 0; l < std::min(from, level_count()); ++l)
    for (int n : nodes)
      if (const int link = link_of(l, group(l, n)); link >= 0) out.push_back(link);
  std::sort(out.begin() + static_cast<long>(first), out.end());
  out.erase(std::unique(out.begin() + static_cast<long>(first), out.end()), out.end());
}

}  // namespace topsim
