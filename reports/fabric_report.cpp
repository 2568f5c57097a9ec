#include "reports/fabric_report.h"

#include <fmt/format.h>
#include <algorithm>

#include "core/nccl_algo.h"
#include "reports/escape.h"
#include "reports/text_table.h"
#include "util/number_format.h"
#include "util/text.h"

namespace topsim {
namespace {

std::string node_name(const std::vector<std::string>& names, int node) {
  return static_cast<size_t>(node) < names.size() ? names[static_cast<size_t>(node)] : "node-" + std::to_string(node);
}

std::string gbps(double value) { return format_number(value) + " GB/s"; }

// What a group of level `l` holds: "16 nodes", "8 racks" (a range when groups differ).
std::string holds(const FabricView& v, size_t l) {
  const FabricLevelView& level = v.levels[l];
  std::vector<int> children(level.groups.size(), 0);
  if (l == 0) {
    for (size_t g = 0; g < level.groups.size(); ++g) children[g] = level.groups[g].nodes;
  } else {
    for (const FabricGroupView& below : v.levels[l - 1].groups) ++children[static_cast<size_t>(below.parent)];
  }
  const auto [least, most] = std::minmax_element(children.begin(), children.end());
  const std::string noun = l == 0 ? "node" : v.levels[l - 1].name;
  const int low = children.empty() ? 0 : *least, high = children.empty() ? 0 : *most;
  return low == high ? counted(high, noun) : fmt::format("{}-{} {}s", low, high, noun);
}

// The uplink column: "708 GB/s" (or a range), "none" for a top level of one group.
std::string uplinks(const FabricLevelView& level) {
  double least = 0, most = 0;
  for (const FabricGroupView& g : level.groups) {
    least = least == 0 ? g.uplink_gbps : std::min(least, g.uplink_gbps);
    most = std::max(most, g.uplink_gbps);
  }
  if (most <= 0) return "none (top)";
  return least == most ? gbps(most) : format_number(least) + "-" + gbps(most);
}

std::string ratio(const FabricLevelView& level) {
  if (level.nvlink) return "NVLink domain";
  return level.oversubscription > 0 ? format_number(level.oversubscription) + ":1" : "given in Gb/s";
}

std::vector<TextRow> level_table(const FabricView& v) {
  std::vector<TextRow> rows{{"level", "groups", "each holds", "links", "uplink each"}};
  for (size_t l = v.levels.size(); l-- > 0;) {
    const FabricLevelView& level = v.levels[l];
    rows.push_back({level.name, std::to_string(level.groups.size()), holds(v, l), ratio(level), uplinks(level)});
  }
  return rows;
}

// The facts under the table: rails, NVLink domains, node NICs, measured pairs.
std::vector<std::string> facts(const FabricView& v) {
  std::vector<std::string> out;
  if (!v.levels.empty()) {
    const std::string nics = v.least_node_gbps == v.most_node_gbps
                                 ? gbps(v.most_node_gbps)
                                 : format_number(v.least_node_gbps) + "-" + gbps(v.most_node_gbps);
    out.push_back("a node's NICs carry " + nics + " (achieved); a group's uplink carries its downlinks / its oversubscription");
  }
  if (v.rails > 0) {
    const size_t rail_level = !v.levels.empty() && v.levels.front().nvlink ? 1 : 0;
    const std::string level = rail_level < v.levels.size() ? v.levels[rail_level].name : "group";
    out.push_back(counted(v.rails, "rail") + ": NIC i of every node of a " + level + " on rail switch i");
  }
  if (!v.levels.empty() && v.levels.front().nvlink)
    out.push_back("each " + v.levels.front().name +
                  " is one multi-node NVLink domain: its nodes talk over NVLink, not NICs; a job " +
                  "spanning domains leaves each through at most " + std::to_string(kNcclMnnvlNetNics) +
                  " of its NICs (NCCL 2.27.3 on), not its whole uplink");
  if (v.measured_pairs > 0) {
    std::string line = "measured: " + counted(v.measured_pairs, "node pair");
    if (v.least_measured_gbps > 0) line += ", slowest " + gbps(v.least_measured_gbps);
    if (v.most_measured_latency_us > 0) line += ", largest latency " + format_number(v.most_measured_latency_us) + " us";
    out.push_back(line);
  }
  return out;
}

class TreeDrawer {
 public:
  TreeDrawer(const FabricView& v, const std::vector<std::string>& names) : v_(v), names_(names) {
    children_.resize(v.levels.size());
    for (size_t l = 0; l + 1 < v.levels.size(); ++l) {
      children_[l + 1].resize(v.levels[l + 1].groups.size());
      for (size_t g = 0; g < v.levels[l].groups.size(); ++g)
        children_[l + 1][static_cast<size_t>(v.levels[l].groups[g].parent)].push_back(static_cast<int>(g));
    }
  }

  std::string draw() {
    const size_t top = v_.levels.size() - 1;
    std::vector<int> roots;
    for (size_t g = 0; g < v_.levels[top].groups.size(); ++g) roots.push_back(static_cast<int>(g));
    out_ = "core\n";
    draw_children(top, roots, "");
    return out_;
  }

 private:
  void draw_children(size_t level, const std::vector<int>& groups, const std::string& indent) {
    const size_t shown = std::min(groups.size(), static_cast<size_t>(kFabricChildrenShown));
    for (size_t i = 0; i < shown; ++i) {
      const bool last = i + 1 == groups.size();
      out_ += indent + (last ? "`-- " : "|-- ") + group_line(level, groups[i]) + "\n";
      if (level > 0)
        draw_children(level - 1, children_[level][static_cast<size_t>(groups[i])], indent + (last ? "    " : "|   "));
    }
    if (shown < groups.size())
      out_ += indent + "`-- ... " + std::to_string(groups.size() - shown) + " more " + v_.levels[level].name + "s\n";
  }

  std::string group_line(size_t level, int g) const {
    const FabricGroupView& group = v_.levels[level].groups[static_cast<size_t>(g)];
    std::string line = v_.levels[level].name + " " + group.name + ": ";
    line += group.nodes == 1 ? node_name(names_, group.first_node)
                             : node_name(names_, group.first_node) + " .. " + node_name(names_, group.last_node);
    line += " (" + counted(group.nodes, "node") + ", " + counted(group.gpus, "GPU") + ")";
    if (group.uplink_gbps > 0) line += ", uplink " + gbps(group.uplink_gbps);
    return line;
  }

  const FabricView& v_;
  const std::vector<std::string>& names_;
  std::vector<std::vector<std::vector<int>>> children_;  // [level][group] -> its groups one level down
  std::string out_;
};

}  // namespace

std::string render_fabric_text(const FabricView& view, const std::vector<std::string>& node_names) {
  if (view.empty()) return "fabric: one flat network (no levels, no measured pairs)\n";
  std::string out;
  if (view.levels.empty()) {
    out = "fabric: one flat network\n";
  } else {
    out = "fabric: " + counted(static_cast<int>(view.levels.size()), "level") + " above the nodes, top first\n";
    out += text_table(level_table(view), {"  "});
  }
  for (const std::string& fact : facts(view)) out += fact + "\n";
  if (!view.levels.empty()) out += "\n" + TreeDrawer(view, node_names).draw();
  return out;
}

std::string render_node_groups_text(const ClusterSpec& cluster, const std::vector<std::string>& node_names) {
  if (cluster.groups.empty()) {  // a trace's node list
    int gpus = 0;
    for (const TraceNode& n : cluster.trace_nodes) gpus += n.gpu_count;
    return "node list: " + counted(static_cast<int>(cluster.trace_nodes.size()), "node") + " of the trace, " +
           counted(gpus, "GPU") + " (cards, CPU and memory as listed; no topology)\n";
  }
  const bool labels = std::any_of(cluster.groups.begin(), cluster.groups.end(), [](const auto& g) { return g.label_pinned; });
  std::vector<TextRow> rows;
  size_t first = 0;
  int gpus = 0;
  for (const NodeGroupSpec& g : cluster.groups) {
    const size_t count = static_cast<size_t>(g.count);
    const int per_node = static_cast<int>(g.model.gpus.size());
    gpus += g.count * per_node;
    std::string names;
    const size_t shown = std::min(count, static_cast<size_t>(kFabricChildrenShown));
    for (size_t i = 0; i < shown && first + i < node_names.size(); ++i) names += (i ? ", " : "") + node_names[first + i];
    if (shown < count) names += ", ... (" + std::to_string(count) + ")";
    first += count;
    TextRow row = {std::to_string(g.count) + " x " + g.model.name,
                   std::to_string(per_node) + " x " + (per_node > 0 ? g.model.gpus.front().model : std::string("-"))};
    if (labels) row.push_back(g.label_pinned ? "label " + std::string(enum_name(g.label)) : "unpinned");
    row.push_back(g.model.host_memory_gib > 0 ? fmt::format("host memory {:.1f} GiB", g.model.host_memory_gib)
                                              : "host memory not stated");
    row.push_back(std::move(names));
    rows.push_back(std::move(row));
  }
  return "node groups: " + format_count(static_cast<long long>(cluster.groups.size())) + " (" +
         counted(static_cast<int>(first), "node") + ", " + counted(gpus, "GPU") + ")\n" + text_table(rows, {"  "});
}

std::string render_fabric_html(const FabricView& view, const std::vector<std::string>& node_names) {
  if (view.empty()) return "";
  std::string out = "<section><h2>Fabric</h2>\n";
  if (!view.levels.empty()) {
    const std::vector<TextRow> rows = level_table(view);
    out += "<table><thead><tr>";
    for (const std::string& head : rows.front()) out += "<th>" + html_escape(head) + "</th>";
    out += "</tr></thead><tbody>\n";
    for (size_t r = 1; r < rows.size(); ++r) {
      out += "<tr>";
      for (const std::string& cell : rows[r]) out += "<td>" + html_escape(cell) + "</td>";
      out += "</tr>\n";
    }
    out += "</tbody></table>\n";
  }
  for (const std::string& fact : facts(view)) out += "<p>" + html_escape(fact) + "</p>\n";
  if (!view.levels.empty()) out += "<pre class=\"fabric\">" + html_escape(TreeDrawer(view, node_names).draw()) + "</pre>\n";
  return out + "</section>\n";
}

}  // namespace topsim
