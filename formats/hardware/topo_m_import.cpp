// Import of `nvidia-smi topo -m` text: take the matrix the text parser reads and checks
// (topo_m_parse.h), infer what the text leaves out (GPU model, CPU kind, NUMA node of NICs),
// rebuild a PCIe tree and verify it against the text.
#include "formats/hardware/topo_m_import.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <set>

#include "core/builtin_models.h"
#include "core/topology.h"
#include "formats/hardware/topo_m_models.h"
#include "formats/hardware/topo_m_parse.h"
#include "util/text.h"

namespace topsim {
namespace {

using namespace topo_m_detail;

int pcie_level(const LinkCode& code) {  // PIX 1 .. SYS 5; 0 = no PCIe evidence (X, NV#)
  switch (code.cls) {
    case LinkClass::PIX: return 1;
    case LinkClass::PXB: return 2;
    case LinkClass::PHB: return 3;
    case LinkClass::Node: return 4;
    case LinkClass::Sys: return 5;
    default: return 0;
  }
}

// Disjoint sets over endpoints; a set's representative is its smallest member.
class DisjointSets {
 public:
  explicit DisjointSets(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
  std::vector<int> roots() {
    std::vector<int> out(parent_.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = find(static_cast<int>(i));
    return out;
  }

 private:
  std::vector<int> parent_;
};

// roots[t][e]: group of endpoint e when pairs at PCIe level <= t are joined (single linkage);
// t = 1 leaf switch, 2 top switch, 3 host bridge, 4 NUMA node (plus shared NUMA evidence).
using Levels = std::array<std::vector<int>, 5>;

// Members split by their group at one level, groups in order of their first member.
std::vector<std::vector<int>> partition(const std::vector<int>& members, const std::vector<int>& roots) {
  std::vector<std::vector<int>> groups;
  std::map<int, size_t> slot;
  for (int e : members) {
    auto [it, fresh] = slot.emplace(roots[e], groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(e);
  }
  return groups;
}

// The NUMA evidence of an endpoint: its NUMA Affinity, else (without that column) its CPU
// Affinity string; "" when it has none.
std::string numa_key(const Matrix& m, int e) {
  if (m.numa_affinity[e] >= 0) return "numa " + std::to_string(m.numa_affinity[e]);
  const std::string& cpus = m.cpu_affinity[e];
  return !m.has_numa_column && !cpus.empty() && cpus != "N/A" ? "cpus " + cpus : "";
}

void join_equal_numa_keys(const Matrix& m, DisjointSets& sets) {
  std::map<std::string, int> first_with_key;
  for (int e = 0; e < m.devices(); ++e)
    if (const std::string key = numa_key(m, e); !key.empty()) sets.join(e, first_with_key.emplace(key, e).first->second);
}

Levels group_levels(const Matrix& m) {
  Levels levels;
  const int n = m.devices();
  for (int t = 1; t <= 4; ++t) {
    DisjointSets sets(n);
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (const int level = pcie_level(m.code[a][b]); level > 0 && level <= t) sets.join(a, b);
    if (t == 4) join_equal_numa_keys(m, sets);
    levels[t] = sets.roots();
  }
  return levels;
}

// mlx5_* and ib* (IPoIB) ports are InfiniBand unless the name says Ethernet (mlx5_eth0).
NicTransport guess_transport(const std::string& name) {
  if (name.find("eth") != std::string::npos) return NicTransport::Ethernet;
  return name.rfind("mlx", 0) == 0 || name.rfind("ib", 0) == 0 ? NicTransport::InfiniBand : NicTransport::Ethernet;
}

// Default CPU by GPU era, after the reference machines: DGX A100 = AMD EPYC, DGX/HGX H100 =
// Sapphire Rapids, DGX B200 = Emerald Rapids; Volta-era and PCIe boxes = Skylake-class UPI.
CpuKind default_cpu(int sm) {
  if (sm >= 100) return CpuKind::IntelEmeraldRapids;
  if (sm >= 90) return CpuKind::IntelSapphireRapids;
  if (sm == 80) return CpuKind::Amd;
  return CpuKind::IntelSkylake;
}

std::string source_stem(std::string_view source) {
  const size_t slash = source.find_last_of("/\\");
  std::string_view base = slash == std::string_view::npos ? source : source.substr(slash + 1);
  if (const size_t dot = base.rfind('.'); dot != std::string_view::npos && dot > 0) base = base.substr(0, dot);
  return base.empty() ? "imported" : std::string(base);
}

struct NvLinkPlan {
  int nvswitch_links = 0;  // > 0: every GPU joins an NVSwitch fabric with this many links
  std::vector<NvLinkBond> bonds;
};

struct NumaDraft {
  std::vector<int> members;  // endpoints
  int os_id = -1;
  std::string cpu_affinity;
  bool evidence = false;  // some member has NUMA or CPU affinity
};

struct NumaPlan {
  std::vector<NumaNode> nodes;  // sorted by OS NUMA id
  std::vector<int> numa_of;     // per endpoint: index into nodes
};

// ------------------------------------------------------------------------------- importer

class Importer {
 public:
  Importer(std::string_view text, std::string_view source, const TopoImportOptions& options)
      : parser_(text, source, options.matrix), source_(source), options_(options) {}
  Expected<TopoImportResult> run();

 private:
  Error fail(int line, const std::string& what) const { return parser_.fail(line, what); }
  Expected<std::vector<const GpuModel*>> per_gpu_models(const Matrix& m, const NvLinkCounts& nv);
  Expected<NvLinkPlan> plan_nvlinks(const Matrix& m, const std::vector<const GpuModel*>& models, const NvLinkCounts& nv);
  CpuKind resolve_cpu(const GpuModel& gpu);
  Expected<NumaPlan> plan_numa(const Matrix& m, const Levels& levels, CpuKind cpu);
  Status collect_numa_evidence(const Matrix& m, NumaDraft& draft) const;
  void place_orphan(const Matrix& m, std::vector<NumaDraft>& placed, NumaDraft orphan, std::set<int>& used);
  NodeModel build_model(const Matrix& m, const std::vector<const GpuModel*>& models, const NvLinkPlan& links,
                        const NumaPlan& numa, const Levels& levels);
  Status verify(const Topology& topo, const Matrix& m) const;

  TopoMParser parser_;
  std::string source_;
  TopoImportOptions options_;
  std::vector<std::string> notes_;
};

NvLinkCounts summarize_nvlinks(const Matrix& m) {
  NvLinkCounts nv;
  bool all_nvlink = m.header.gpus >= 2;
  for (int a = 0; a < m.header.gpus; ++a)
    for (int b = a + 1; b < m.header.gpus; ++b) {
      if (m.code[a][b].cls == LinkClass::NVLink)
        nv.counts.insert(m.code[a][b].nvlinks);
      else
        all_nvlink = false;
    }
  nv.uniform_mesh = all_nvlink && nv.counts.size() == 1;
  return nv;
}

// A uniform NV# mesh needing more ports than a GPU has is an NVSwitch fabric; anything else is
// direct bonds, which must fit in each GPU's NVLink ports.
Expected<NvLinkPlan> Importer::plan_nvlinks(const Matrix& m, const std::vector<const GpuModel*>& models, const NvLinkCounts& nv) {
  NvLinkPlan plan;
  const int gpus = m.header.gpus;
  const GpuModel& gpu = *models.front();
  const bool one_model = std::all_of(models.begin(), models.end(), [&](const GpuModel* g) { return g == &gpu; });
  const std::string ports = " but a " + gpu.name + " has " + std::to_string(gpu.max_nvlinks) + " NVLink ports";
  if (one_model && nv.uniform_mesh && (gpus - 1) * *nv.counts.begin() > gpu.max_nvlinks) {
    plan.nvswitch_links = *nv.counts.begin();
    if (plan.nvswitch_links > gpu.max_nvlinks)
      return fail(m.row_line[0], "every GPU pair is NV" + std::to_string(plan.nvswitch_links) + ports);
    const std::string links = std::to_string(plan.nvswitch_links);
    notes_.push_back("every GPU pair is NV" + links + " and " + std::to_string(gpus - 1) + " peers x " + links +
                     " links exceed the " + gpu.name + "'s " + std::to_string(gpu.max_nvlinks) +
                     " NVLink ports: modelled as an NVSwitch fabric");
    return plan;
  }
  std::vector<int> used(gpus, 0);
  for (int a = 0; a < gpus; ++a)
    for (int b = a + 1; b < gpus; ++b)
      if (const LinkCode& c = m.code[a][b]; c.cls == LinkClass::NVLink) {
        plan.bonds.push_back({a, b, c.nvlinks});
        used[a] += c.nvlinks, used[b] += c.nvlinks;
      }
  for (int g = 0; g < gpus; ++g)
    if (used[g] > models[g]->max_nvlinks)
      return fail(m.row_line[g], "GPU" + std::to_string(g) + " uses " + std::to_string(used[g]) +
                                     " NVLinks in this matrix but a " + models[g]->name + " has " +
                                     std::to_string(models[g]->max_nvlinks) +
                                     " NVLink ports, and the layout is not one uniform NVSwitch fabric");
  return plan;
}

CpuKind Importer::resolve_cpu(const GpuModel& gpu) {
  if (options_.cpu) return *options_.cpu;
  const CpuKind cpu = default_cpu(gpu.sm);
  notes_.push_back("assumed CPU " + std::string(enum_name(cpu)) + " (use --cpu): the default for " + sm_architecture(gpu.sm) +
                   "-era nodes");
  return cpu;
}

Status Importer::collect_numa_evidence(const Matrix& m, NumaDraft& draft) const {
  for (int e : draft.members) {
    draft.evidence = draft.evidence || !numa_key(m, e).empty();
    if (draft.cpu_affinity.empty() && m.cpu_affinity[e] != "N/A") draft.cpu_affinity = m.cpu_affinity[e];
    const int id = m.numa_affinity[e];
    if (id < 0 || id == draft.os_id) continue;
    if (draft.os_id >= 0)
      return fail(m.row_line[e], "NUMA evidence conflicts: " + m.name(e) + " has NUMA Affinity " + std::to_string(id) +
                                     " but is NODE-or-closer to " + m.name(draft.members[0]) + " on NUMA " +
                                     std::to_string(draft.os_id));
    draft.os_id = id;
  }
  return {};
}

// A group without NUMA evidence joins the first NUMA node (lowest id) it shows no link to;
// else it gets a NUMA node of its own with the lowest unused id (0 when free).
void Importer::place_orphan(const Matrix& m, std::vector<NumaDraft>& placed, NumaDraft orphan, std::set<int>& used) {
  std::vector<std::string> names;
  for (int e : orphan.members) names.push_back(m.name(e));
  auto shows_link = [&](const NumaDraft& d) {
    for (int a : orphan.members)
      for (int b : d.members)
        if (pcie_level(m.code[a][b]) > 0) return true;
    return false;
  };
  std::sort(placed.begin(), placed.end(), [](const auto& x, const auto& y) { return x.os_id < y.os_id; });
  auto target = std::find_if_not(placed.begin(), placed.end(), shows_link);
  int id = 0;
  if (target != placed.end()) {
    id = target->os_id;
    target->members.insert(target->members.end(), orphan.members.begin(), orphan.members.end());
  } else {
    while (used.count(id)) ++id;
    used.insert(id);
    orphan.os_id = id;
    placed.push_back(std::move(orphan));
  }
  notes_.push_back(describe_names(names) + ": no NUMA evidence (no affinity, no NODE-or-closer link); placed on NUMA node " +
                   std::to_string(id));
}

Expected<NumaPlan> Importer::plan_numa(const Matrix& m, const Levels& levels, CpuKind cpu) {
  std::vector<int> all(m.devices());
  std::iota(all.begin(), all.end(), 0);
  std::vector<NumaDraft> placed, orphans;
  for (auto& members : partition(all, levels[4])) {
    NumaDraft draft{std::move(members), -1, "", false};
    if (Status s = collect_numa_evidence(m, draft); !s) return s.error();
    (draft.evidence ? placed : orphans).push_back(std::move(draft));
  }
  std::set<int> used;
  for (const auto& d : placed) used.insert(d.os_id);
  for (auto& d : placed)
    for (int id = 0; d.os_id < 0; ++id)
      if (used.insert(id).second) d.os_id = id;
  for (auto& orphan : orphans) place_orphan(m, placed, std::move(orphan), used);
  std::sort(placed.begin(), placed.end(), [](const auto& x, const auto& y) { return x.os_id < y.os_id; });
  NumaPlan plan{{}, std::vector<int>(m.devices(), 0)};
  for (const auto& d : placed) {
    for (int e : d.members) plan.numa_of[e] = static_cast<int>(plan.nodes.size());
    plan.nodes.push_back({d.os_id, cpu, d.cpu_affinity});
  }
  return plan;
}

// One host bridge per host-bridge group; in it, a device alone at the top-switch level hangs
// directly off the host bridge, a group sharing one leaf gets one switch, and a group of several
// leaves gets a top switch with one leaf switch per leaf group.
void attach_host_bridges(NodeModelBuilder& b, int numa, const std::vector<int>& members, const Levels& levels,
                         const GpuModel& gpu, std::vector<int>& parent) {
  for (const auto& host_group : partition(members, levels[3])) {
    const int host = b.host_bridge(numa, gpu.pcie_gen, gpu.pcie_width);
    for (const auto& top_group : partition(host_group, levels[2])) {
      const auto leaves = partition(top_group, levels[1]);
      const int top = top_group.size() == 1 ? host : b.pcie_switch(host, gpu.pcie_gen, gpu.pcie_width);
      for (const auto& leaf : leaves) {
        const int bridge = leaves.size() == 1 ? top : b.pcie_switch(top, gpu.pcie_gen, gpu.pcie_width);
        for (int e : leaf) parent[e] = bridge;
      }
    }
  }
}

// The model of each GPU (formats/hardware/topo_m_models.h); its errors name the header line.
Expected<std::vector<const GpuModel*>> Importer::per_gpu_models(const Matrix& m, const NvLinkCounts& nv) {
  auto models = topo_m_gpu_models(options_.gpu_model, m.header.gpus, nv, notes_);
  if (!models) return fail(parser_.line_number(m.header.line), models.error().message);
  return models;
}

NodeModel Importer::build_model(const Matrix& m, const std::vector<const GpuModel*>& models, const NvLinkPlan& links,
                                const NumaPlan& numa, const Levels& levels) {
  const GpuModel& gpu = *models.front();
  const std::string name = options_.node_name.empty() ? source_stem(source_) : options_.node_name;
  NodeModelBuilder b(name, "imported from nvidia-smi topo -m (" + source_ + ", matrix " + std::to_string(options_.matrix) +
                               "): " + gpu_summary(models));
  std::vector<int> parent(m.devices(), 0);
  for (size_t k = 0; k < numa.nodes.size(); ++k) {
    const int index = b.numa(numa.nodes[k].cpu, numa.nodes[k].cpu_affinity);
    std::vector<int> members;
    for (int e = 0; e < m.devices(); ++e)
      if (numa.numa_of[e] == static_cast<int>(k)) members.push_back(e);
    attach_host_bridges(b, index, members, levels, gpu, parent);
  }
  for (int g = 0; g < m.header.gpus; ++g) b.gpu(parent[g], models[g]->name, links.nvswitch_links);
  for (size_t k = 0; k < m.nic_names.size(); ++k) {
    const std::string& nic = m.nic_names[k];
    b.nic(parent[m.header.gpus + k], nic, options_.nic_speed_gbit, options_.nic_transport.value_or(guess_transport(nic)),
          gpu.pcie_gen);
  }
  for (const NvLinkBond& bond : links.bonds) b.nvlink(bond.gpu_a, bond.gpu_b, bond.count);
  NodeModel model = b.take();
  for (size_t k = 0; k < numa.nodes.size(); ++k) model.numa_nodes[k].id = numa.nodes[k].id;
  if (!m.nic_names.empty())
    notes_.push_back("assumed NIC speed " + std::to_string(static_cast<int>(options_.nic_speed_gbit)) +
                     " Gb/s (use --nic-speed)" +
                     (options_.nic_transport ? ""
                                             : " and transport from the names (mlx5/ib InfiniBand, else Ethernet; use "
                                               "--nic-transport)"));
  return model;
}

Status Importer::verify(const Topology& topo, const Matrix& m) const {
  const int gpus = m.header.gpus;
  auto pair = [&](int a, int b) -> const PairLink& {
    if (a < gpus && b < gpus) return topo.gpu_pair(a, b);
    if (a < gpus) return topo.gpu_nic(a, b - gpus);
    return topo.nic_pair(a - gpus, b - gpus);
  };
  for (int a = 0; a < m.devices(); ++a)
    for (int b = a + 1; b < m.devices(); ++b) {
      const LinkCode& want = m.code[a][b];
      const PairLink& got = pair(a, b);
      if (got.cls == want.cls && (want.cls != LinkClass::NVLink || got.nvlinks == want.nvlinks)) continue;
      return fail(m.row_line[a], "evidence is not tree-consistent: " + m.name(a) + "/" + m.name(b) + " is " +
                                     link_code(want.cls, want.nvlinks) + " in the file but the reconstructed PCIe tree gives " +
                                     link_code(got.cls, got.nvlinks));
    }
  return {};
}

// Device pairs nvidia-smi reports SYS although they are on the same NUMA node: it found no
// common PCIe ancestor (a VM hides the tree: vllm-project/vllm#6370, NVIDIA/go-gpuallocator#17).
// No tree has SYS within a NUMA node: such pairs are read as NODE, separate host bridges of that
// node, which crosses no socket link (NCCL moves their data through host memory, as it does for
// SYS), noted. A GPU's node is its NUMA Affinity; a NIC's, that of a GPU it is closer to than SYS.
void read_same_numa_sys_as_node(Matrix& m, std::vector<std::string>& notes) {
  std::vector<int> numa(static_cast<size_t>(m.devices()), -1);
  for (int g = 0; g < m.header.gpus; ++g) numa[g] = m.numa_affinity[g];
  for (int n = m.header.gpus; n < m.devices(); ++n)
    for (int g = 0; g < m.header.gpus && numa[n] < 0; ++g)
      if (m.code[g][n].cls != LinkClass::Sys && m.code[g][n].cls != LinkClass::NVLink) numa[n] = numa[g];
  int pairs = 0;
  for (int a = 0; a < m.devices(); ++a)
    for (int b = a + 1; b < m.devices(); ++b)
      if (m.code[a][b].cls == LinkClass::Sys && numa[a] >= 0 && numa[a] == numa[b]) {
        m.code[a][b].cls = m.code[b][a].cls = LinkClass::Node;
        ++pairs;
      }
  if (pairs > 0)
    notes.push_back(std::to_string(pairs) +
                    " device pairs are SYS within one NUMA node (nvidia-smi found no common PCIe ancestor: a VM, or a "
                    "platform that hides it): read as NODE, separate host bridges of that node");
}

Expected<TopoImportResult> Importer::run() {
  Expected<Matrix> matrix = parser_.select_matrix(notes_);
  if (!matrix) return matrix.error();
  Matrix& m = *matrix;
  if (Status s = parser_.check_symmetry(m); !s) return s.error();
  read_same_numa_sys_as_node(m, notes_);
  const NvLinkCounts nv = summarize_nvlinks(m);
  Expected<std::vector<const GpuModel*>> models = per_gpu_models(m, nv);
  if (!models) return models.error();
  Expected<NvLinkPlan> links = plan_nvlinks(m, *models, nv);
  if (!links) return links.error();
  const GpuModel* newest = *std::max_element(models->begin(), models->end(), [](auto a, auto b) { return a->sm < b->sm; });
  const CpuKind cpu = resolve_cpu(*newest);
  const Levels levels = group_levels(m);
  Expected<NumaPlan> numa = plan_numa(m, levels, cpu);
  if (!numa) return numa.error();
  NodeModel model = build_model(m, *models, *links, *numa, levels);
  Expected<Topology> topo = Topology::build(model);
  if (!topo) return fail(parser_.line_number(m.header.line), "imported model is invalid: " + topo.error().message);
  if (Status s = verify(*topo, m); !s) return s.error();
  return TopoImportResult{std::move(model), std::move(notes_)};
}

}  // namespace

Expected<TopoImportResult> parse_topo_m(std::string_view text, std::string_view source_name, const TopoImportOptions& options) {
  return Importer(text, source_name, options).run();
}

}  // namespace topsim
