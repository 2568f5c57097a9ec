#include "reports/topology_report.h"
#include "reports/text_table.h"
#include "util/text.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace topsim {
namespace {

using Row = TextRow;

std::string gpu_label(int gpu) { return fmt::format("GPU{}", gpu); }

std::string endpoint_label(const Topology& t, int endpoint) {
  return endpoint < t.gpu_count() ? gpu_label(endpoint) : t.model().nics[endpoint - t.gpu_count()].name;
}

const PairLink& endpoint_pair(const Topology& t, int a, int b) {
  const int g = t.gpu_count();
  if (a < g) return b < g ? t.gpu_pair(a, b) : t.gpu_nic(a, b - g);
  return b < g ? t.gpu_nic(b, a - g) : t.nic_pair(a - g, b - g);
}

std::string pair_code(const PairLink& link) { return link_code(link.cls, link.nvlinks); }

// "8 x v100 GPUs (Volta, 16 GiB)", one group per model in order of first appearance.
std::string gpu_summary(const NodeModel& m) {
  std::vector<std::string> order;
  std::map<std::string, int> count;
  for (const Gpu& gpu : m.gpus)
    if (count[gpu.model]++ == 0) order.push_back(gpu.model);
  std::string out;
  for (const std::string& model : order) {
    const Gpu& first = *std::find_if(m.gpus.begin(), m.gpus.end(), [&](const Gpu& g) { return g.model == model; });
    out += fmt::format("{}{} x {} GPU{} ({}, {:g} GiB)", out.empty() ? "" : ", ", count[model], model,
                       count[model] == 1 ? "" : "s", sm_architecture(first.sm), first.memory_gib);
  }
  return out;
}

std::string numa_summary(const NodeModel& m) {
  std::vector<std::string> kinds;
  for (const NumaNode& numa : m.numa_nodes) {
    const std::string kind(enum_name(numa.cpu));
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  return fmt::format("{} NUMA node{} ({})", m.numa_nodes.size(), m.numa_nodes.size() == 1 ? "" : "s", join(kinds, ", "));
}

std::string nvlink_summary(const Topology& t) {
  if (t.has_nvswitch()) {
    int links = 0;
    for (const Gpu& gpu : t.model().gpus) links = std::max(links, gpu.nvswitch_links);
    return fmt::format("NVSwitch fabric (NV{} per GPU)", links);
  }
  return t.model().nvlinks.empty() ? "no NVLink (PCIe only), no NVSwitch" : "direct NVLink bonds, no NVSwitch";
}

std::string header(const Topology& t) {
  const NodeModel& m = t.model();
  std::string out = fmt::format("Node {}: {}, {}, {} NIC{}, {}\n", m.name, gpu_summary(m), numa_summary(m), m.nics.size(),
                                m.nics.size() == 1 ? "" : "s", nvlink_summary(t));
  if (!m.description.empty()) out += m.description + "\n";
  return out;
}

Row affinity_cells(const Topology& t, int numa_index) {
  const NumaNode& numa = t.model().numa_nodes[numa_index];
  return {numa.cpu_affinity.empty() ? "N/A" : numa.cpu_affinity, std::to_string(numa.id)};
}

std::string link_matrix(const Topology& t) {
  const int endpoints = t.gpu_count() + t.nic_count();
  Row head{""};
  for (int e = 0; e < endpoints; ++e) head.push_back(endpoint_label(t, e));
  head.insert(head.end(), {"CPU Affinity", "NUMA Affinity"});
  std::vector<Row> rows{head};
  for (int a = 0; a < endpoints; ++a) {
    Row row{endpoint_label(t, a)};
    for (int b = 0; b < endpoints; ++b) row.push_back(pair_code(endpoint_pair(t, a, b)));
    const Row affinity = affinity_cells(t, a < t.gpu_count() ? t.gpu_numa(a) : t.nic_numa(a - t.gpu_count()));
    row.insert(row.end(), affinity.begin(), affinity.end());
    rows.push_back(row);
  }
  return "Link matrix (nvidia-smi topo -m codes):\n" + text_table(rows);
}

std::string bandwidth_matrix(const Topology& t) {
  Row head{""};
  for (int g = 0; g < t.gpu_count(); ++g) head.push_back(gpu_label(g));
  std::vector<Row> rows{head};
  bool any_without_p2p = false;
  for (int a = 0; a < t.gpu_count(); ++a) {
    Row row{gpu_label(a)};
    for (int b = 0; b < t.gpu_count(); ++b) {
      const PairLink& link = t.gpu_pair(a, b);
      any_without_p2p |= !link.p2p;
      row.push_back(a == b ? "X" : fmt::format("{:.1f}{}", link.bandwidth_gbps, link.p2p ? "" : "*"));
    }
    rows.push_back(row);
  }
  std::string out = "P2P bandwidth between GPUs, GB/s in one direction (NCCL path model):\n" + text_table(rows);
  if (any_without_p2p) out += "* = no P2P at NCCL's default level (PXB): traffic goes through host memory\n";
  if (t.has_nvswitch()) out += "NVSwitch pairs show a GPU's whole NVLink bandwidth, shared by all of its peers\n";
  return out;
}

std::string gpu_table(const Topology& t) {
  std::vector<Row> rows{{"GPU", "model", "NUMA", "nearest NIC"}};
  for (int g = 0; g < t.gpu_count(); ++g) {
    const int nic = t.nearest_nic(g);
    std::string nearest = "none";
    if (nic >= 0) {
      const Nic& n = t.model().nics[nic];
      nearest = fmt::format("{} ({}, {:g} Gb/s {})", n.name, pair_code(t.gpu_nic(g, nic)), n.speed_gbit, enum_name(n.transport));
    }
    rows.push_back({gpu_label(g), t.model().gpus[g].model, std::to_string(t.model().numa_nodes[t.gpu_numa(g)].id), nearest});
  }
  return "GPUs:\n" + text_table(rows);
}

constexpr const char* kLegend =
    "Legend:\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks (through the NVSwitch fabric on NVSwitch nodes)\n";

}  // namespace

std::string render_topology(const Topology& topology) {
  return header(topology) + "\n" + link_matrix(topology) + "\n" + bandwidth_matrix(topology) + "\n" + gpu_table(topology) + "\n" +
         kLegend;
}

// ---- JSON

namespace {

using OrderedJson = nlohmann::ordered_json;

double rounded(double gbps) { return std::round(gbps * 1000.0) / 1000.0; }

OrderedJson pair_json(const std::string& a, const std::string& b, const PairLink& link) {
  return {{"a", a},
          {"b", b},
          {"class", pair_code(link)},
          {"nvlinks", link.nvlinks},
          {"via_nvswitch", link.via_nvswitch},
          {"bandwidth_gbps", rounded(link.bandwidth_gbps)},
          {"p2p", link.p2p}};
}

OrderedJson pairs_json(const Topology& t) {
  OrderedJson pairs = OrderedJson::array();
  for (int a = 0; a < t.gpu_count(); ++a) {
    for (int b = a + 1; b < t.gpu_count(); ++b) pairs.push_back(pair_json(gpu_label(a), gpu_label(b), t.gpu_pair(a, b)));
    for (int n = 0; n < t.nic_count(); ++n) pairs.push_back(pair_json(gpu_label(a), t.model().nics[n].name, t.gpu_nic(a, n)));
  }
  return pairs;
}

OrderedJson gpus_json(const Topology& t) {
  OrderedJson gpus = OrderedJson::array();
  for (int g = 0; g < t.gpu_count(); ++g) {
    const Gpu& gpu = t.model().gpus[g];
    const int nic = t.nearest_nic(g);
    gpus.push_back({{"index", g},
                    {"model", gpu.model},
                    {"sm", gpu.sm},
                    {"memory_gib", gpu.memory_gib},
                    {"numa", t.model().numa_nodes[t.gpu_numa(g)].id},
                    {"nvswitch_links", gpu.nvswitch_links},
                    {"nearest_nic", nic < 0 ? OrderedJson(nullptr) : OrderedJson(t.model().nics[nic].name)}});
  }
  return gpus;
}

OrderedJson nics_json(const Topology& t) {
  OrderedJson nics = OrderedJson::array();
  for (int n = 0; n < t.nic_count(); ++n) {
    const Nic& nic = t.model().nics[n];
    nics.push_back({{"index", n},
                    {"name", nic.name},
                    {"speed_gbit", nic.speed_gbit},
                    {"transport", std::string(enum_name(nic.transport))},
                    {"numa", t.model().numa_nodes[t.nic_numa(n)].id}});
  }
  return nics;
}

OrderedJson numa_json(const NodeModel& m) {
  OrderedJson nodes = OrderedJson::array();
  for (const NumaNode& numa : m.numa_nodes)
    nodes.push_back({{"id", numa.id}, {"cpu", std::string(enum_name(numa.cpu))}, {"cpu_affinity", numa.cpu_affinity}});
  return nodes;
}

OrderedJson nvlinks_json(const NodeModel& m) {
  OrderedJson links = OrderedJson::array();
  for (const NvLinkBond& l : m.nvlinks) links.push_back({{"gpus", {l.gpu_a, l.gpu_b}}, {"count", l.count}});
  return links;
}

}  // namespace

std::string render_topology_json(const Topology& topology) {
  const NodeModel& m = topology.model();
  OrderedJson doc = {{"name", m.name},
                     {"description", m.description},
                     {"nvswitch", topology.has_nvswitch()},
                     {"numa_nodes", numa_json(m)},
                     {"gpus", gpus_json(topology)},
                     {"nics", nics_json(topology)},
                     {"pairs", pairs_json(topology)},
                     {"nvlinks", nvlinks_json(m)}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
