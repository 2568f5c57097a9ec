#include "core/node_model.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hardware.h"

namespace topsim {
namespace {

std::string entry(std::string_view list, size_t index) { return std::string(list) + "[" + std::to_string(index) + "]"; }

std::string field(std::string_view list, size_t index, std::string_view name) {
  return entry(list, index) + "." + std::string(name);
}

Status check_pcie(const std::string& where, int gen, int width) {
  if (gen < 1 || gen > 6) return Error{where + ".pcie_gen: " + std::to_string(gen) + " is not a PCIe generation (1-6)"};
  if (width < 1 || width > 32) return Error{where + ".pcie_width: " + std::to_string(width) + " lanes is out of range (1-32)"};
  return {};
}

Status check_bridge_ref(const NodeModel& m, const std::string& where, int bridge) {
  if (bridge < 0 || bridge >= static_cast<int>(m.bridges.size()))
    return Error{where + ": " + std::to_string(bridge) + " is not a bridge index (node has " + std::to_string(m.bridges.size()) +
                 " bridges)"};
  return {};
}

Status validate_bridges(const NodeModel& m) {
  for (size_t i = 0; i < m.bridges.size(); ++i) {
    const PcieBridge& b = m.bridges[i];
    if (b.kind == BridgeKind::HostBridge) {
      if (b.parent != -1) return Error{field("bridges", i, "parent") + ": a host bridge has no parent bridge"};
      if (b.numa < 0 || b.numa >= static_cast<int>(m.numa_nodes.size()))
        return Error{field("bridges", i, "numa") + ": " + std::to_string(b.numa) + " is not a NUMA node index (node has " +
                     std::to_string(m.numa_nodes.size()) + ")"};
    } else if (b.parent < 0 || b.parent >= static_cast<int>(i)) {
      return Error{field("bridges", i, "parent") + ": a switch needs a parent bridge listed before it, got " +
                   std::to_string(b.parent)};
    }
    if (Status s = check_pcie(entry("bridges", i), b.pcie_gen, b.pcie_width); !s) return s;
  }
  return {};
}

// A PCI bus id as nvidia-smi and NCCL write it: [domain:]bus:device.function in hex, the
// domain 4 or 8 digits (e.g. 0000:07:00.0, 00000000:07:00.0, 07:00.0).
bool valid_bus_id(std::string_view id) {
  const auto hex = [](std::string_view s, size_t digits) {
    return s.size() == digits &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  };
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t colon = id.find(':', start);
    parts.push_back(id.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return false;
  const std::string_view device = parts.back();  // "DD.F"
  if (device.size() != 4 || !hex(device.substr(0, 2), 2) || device[2] != '.' || device[3] < '0' || device[3] > '7') return false;
  if (!hex(parts[parts.size() - 2], 2)) return false;
  return parts.size() == 2 || hex(parts[0], 4) || hex(parts[0], 8);
}

Status validate_gpus(const NodeModel& m) {
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const Gpu& g = m.gpus[i];
    if (Status s = check_bridge_ref(m, field("gpus", i, "bridge"), g.bridge); !s) return s;
    if (g.sm < kMinSm || g.sm > kMaxSm)
      return Error{field("gpus", i, "sm") + ": " + std::to_string(g.sm) + " is not a compute capability x 10 (" +
                   std::to_string(kMinSm) + "-" + std::to_string(kMaxSm) + ")"};
    if (!(g.memory_gib > 0) || g.memory_gib > kMaxGpuMemoryGib)
      return Error{field("gpus", i, "memory_gib") + ": must be in (0, " + std::to_string(static_cast<int>(kMaxGpuMemoryGib)) +
                   "]"};
    if (g.nvswitch_links < 0) return Error{field("gpus", i, "nvswitch_links") + ": must not be negative"};
    if (!g.bus_id.empty() && !valid_bus_id(g.bus_id))
      return Error{field("gpus", i, "bus_id") + ": '" + g.bus_id + "' is not a PCI bus id (e.g. 0000:07:00.0)"};
    if (Status s = check_pcie(entry("gpus", i), g.pcie_gen, g.pcie_width); !s) return s;
  }
  return {};
}

Status validate_nics(const NodeModel& m) {
  std::set<std::string> names;
  for (size_t i = 0; i < m.nics.size(); ++i) {
    const Nic& n = m.nics[i];
    if (n.name.empty()) return Error{field("nics", i, "name") + ": must not be empty"};
    // An interface name as the kernel and NCCL write it (mlx5_0, ib0, efa0, enp1s0f0): printable
    // ASCII without spaces (IFNAMSIZ allows 15 bytes; we allow 64).
    if (n.name.size() > 64 || !std::all_of(n.name.begin(), n.name.end(), [](char c) { return c > ' ' && c < 0x7f; }))
      return Error{field("nics", i, "name") + ": '" + n.name +
                   "' is not an interface name (printable ASCII, no spaces, at most 64)"};
    if (!names.insert(n.name).second) return Error{field("nics", i, "name") + ": duplicate NIC name '" + n.name + "'"};
    if (!(n.speed_gbit > 0) || n.speed_gbit > kMaxNicGbit)
      return Error{field("nics", i, "speed_gbit") + ": must be in (0, " + std::to_string(static_cast<int>(kMaxNicGbit)) +
                   "] Gb/s"};
    if (Status s = check_bridge_ref(m, field("nics", i, "bridge"), n.bridge); !s) return s;
    if (Status s = check_pcie(entry("nics", i), n.pcie_gen, n.pcie_width); !s) return s;
  }
  return {};
}

Status validate_nvlinks(const NodeModel& m) {
  const int gpus = static_cast<int>(m.gpus.size());
  std::set<std::pair<int, int>> seen;
  for (size_t i = 0; i < m.nvlinks.size(); ++i) {
    const NvLinkBond& l = m.nvlinks[i];
    if (l.gpu_a < 0 || l.gpu_a >= gpus || l.gpu_b < 0 || l.gpu_b >= gpus)
      return Error{field("nvlinks", i, "gpus") + ": GPU index out of range (node has " + std::to_string(gpus) + " GPUs)"};
    if (l.gpu_a == l.gpu_b) return Error{field("nvlinks", i, "gpus") + ": a GPU cannot link to itself"};
    if (l.count < 1) return Error{field("nvlinks", i, "count") + ": must be at least 1"};
    if (!seen.insert(std::minmax(l.gpu_a, l.gpu_b)).second) return Error{field("nvlinks", i, "gpus") + ": GPU pair listed twice"};
  }
  // Every GPU's NVLinks (bonds and switch links) fit in its ports: its catalog model's count, and
  // never more than any GPU has.
  std::vector<int> used(m.gpus.size(), 0);
  for (size_t g = 0; g < m.gpus.size(); ++g) used[g] = m.gpus[g].nvswitch_links;
  for (const NvLinkBond& l : m.nvlinks)
    used[static_cast<size_t>(l.gpu_a)] += l.count, used[static_cast<size_t>(l.gpu_b)] += l.count;
  for (size_t g = 0; g < m.gpus.size(); ++g) {
    const GpuModel* model = find_gpu_model(m.gpus[g].model);
    const int ports = model && model->max_nvlinks > 0 ? model->max_nvlinks : kMaxNvlinkPorts;
    if (used[g] > ports)
      return Error{entry("gpus", g) + ": " + std::to_string(used[g]) + " NVLinks (bonds and nvswitch_links), but a " +
                   (model ? m.gpus[g].model + " has " : std::string("GPU has at most ")) + std::to_string(ports) +
                   " NVLink ports"};
  }
  return {};
}

}  // namespace

Status validate(const NodeModel& m) {
  if (m.name.empty()) return Error{"name: must not be empty"};
  if (m.numa_nodes.size() > kMaxNumaNodes) return Error{"numa_nodes: at most " + std::to_string(kMaxNumaNodes) + " NUMA nodes"};
  if (m.bridges.size() > kMaxBridges) return Error{"bridges: at most " + std::to_string(kMaxBridges) + " PCIe bridges"};
  if (m.nics.size() > kMaxNics) return Error{"nics: at most " + std::to_string(kMaxNics) + " NICs"};
  if (m.numa_nodes.empty()) return Error{"numa_nodes: a node needs at least one NUMA node"};
  if (m.gpus.empty()) return Error{"gpus: a node needs at least one GPU"};
  if (m.gpus.size() > kMaxGpusPerNode)
    return Error{"gpus: at most " + std::to_string(kMaxGpusPerNode) + " GPUs per node are supported, got " +
                 std::to_string(m.gpus.size())};
  if (!(m.host_memory_gib >= 0 && m.host_memory_gib <= kMaxHostMemoryGib))
    return Error{"host_memory_gib: must be 0 (not stated) to " + std::to_string(static_cast<int>(kMaxHostMemoryGib)) + " GiB"};
  for (Status s : {validate_bridges(m), validate_gpus(m), validate_nics(m), validate_nvlinks(m)})
    if (!s) return s;
  return {};
}

int bridge_numa(const NodeModel& model, int bridge) {
  while (model.bridges[bridge].kind != BridgeKind::HostBridge) bridge = model.bridges[bridge].parent;
  return model.bridges[bridge].numa;
}

}  // namespace topsim
