#include "core/builtin_models.h"

#include <cassert>
#include <functional>

namespace topsim {

NodeModelBuilder::NodeModelBuilder(std::string name, std::string description) {
  model_.name = std::move(name);
  model_.description = std::move(description);
}

int NodeModelBuilder::numa(CpuKind cpu, std::string cpu_affinity) {
  const int id = static_cast<int>(model_.numa_nodes.size());
  model_.numa_nodes.push_back({id, cpu, std::move(cpu_affinity)});
  return id;
}

int NodeModelBuilder::host_bridge(int numa, int pcie_gen, int pcie_width) {
  model_.bridges.push_back({BridgeKind::HostBridge, numa, -1, pcie_gen, pcie_width});
  return static_cast<int>(model_.bridges.size()) - 1;
}

int NodeModelBuilder::pcie_switch(int parent, int pcie_gen, int pcie_width) {
  model_.bridges.push_back({BridgeKind::Switch, model_.bridges[parent].numa, parent, pcie_gen, pcie_width});
  return static_cast<int>(model_.bridges.size()) - 1;
}

int NodeModelBuilder::gpu(int bridge, std::string_view gpu_model, int nvswitch_links) {
  const GpuModel* spec = find_gpu_model(gpu_model);
  assert(spec && "NodeModelBuilder::gpu: unknown GPU model");
  model_.gpus.push_back({spec->name, spec->sm, spec->memory_gib, bridge, spec->pcie_gen, spec->pcie_width, nvswitch_links, ""});
  return static_cast<int>(model_.gpus.size()) - 1;
}

int NodeModelBuilder::nic(int bridge, std::string name, double speed_gbit, NicTransport transport, int pcie_gen) {
  model_.nics.push_back({std::move(name), speed_gbit, transport, bridge, pcie_gen, 16, ""});
  return static_cast<int>(model_.nics.size()) - 1;
}

void NodeModelBuilder::nvlink(int a, int b, int count) { model_.nvlinks.push_back({a, b, count}); }

namespace {

// DGX-1 with V100: 2 x Xeon E5-2698 v4, four PLX switches with two GPUs each, hybrid cube-mesh
// NVLink exactly as `nvidia-smi topo -m` reports it (../shared/topologies/dgx1-v100-*.txt).
NodeModel dgx1_v100() {
  NodeModelBuilder b("dgx1-v100", "NVIDIA DGX-1 (8 x V100 SXM2 16 GB, NVLink hybrid cube-mesh, 2 x Broadwell, 1 x EDR IB)");
  const int cpu0 = b.numa(CpuKind::IntelBroadwell, "0-19,40-59");
  const int cpu1 = b.numa(CpuKind::IntelBroadwell, "20-39,60-79");
  int gpu_switch[4];
  for (int s = 0; s < 4; ++s) gpu_switch[s] = b.pcie_switch(b.host_bridge(s < 2 ? cpu0 : cpu1));
  for (int g = 0; g < 8; ++g) b.gpu(gpu_switch[g / 2], "v100");
  b.nic(gpu_switch[1], "mlx5_0", 100, NicTransport::InfiniBand);
  const int bonds[][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
                          {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};
  for (const auto& bond : bonds) b.nvlink(bond[0], bond[1], bond[2]);
  return b.take();
}

// DGX A100: 2 x EPYC 7742 in NPS4 (8 NUMA nodes), six NVSwitches (NV12 per GPU), four PCIe
// switch complexes each holding 2 GPUs and 2 HDR NICs on separate leaf ports (GPU-NIC = PXB).
NodeModel dgx_a100() {
  NodeModelBuilder b("dgx-a100", "NVIDIA DGX A100 (8 x A100 SXM4 40 GB, NVSwitch NV12, 2 x EPYC NPS4, 8 x HDR 200G IB)");
  for (int n = 0; n < 8; ++n) b.numa(CpuKind::Amd, std::to_string(16 * n) + "-" + std::to_string(16 * n + 15));
  const int gpu_numa[] = {3, 3, 1, 1, 7, 7, 5, 5};  // as reported by nvidia-smi on a DGX A100
  for (int complex = 0; complex < 4; ++complex) {
    const int top = b.pcie_switch(b.host_bridge(gpu_numa[2 * complex], 4), 4);
    for (int k = 0; k < 2; ++k) b.gpu(b.pcie_switch(top, 4), "a100", 12);
    for (int k = 0; k < 2; ++k)
      b.nic(b.pcie_switch(top, 4), "mlx5_" + std::to_string(2 * complex + k), 200, NicTransport::InfiniBand, 4);
  }
  return b.take();
}

// HGX H100 8-GPU: 2 x Sapphire Rapids, NVSwitch NV18, each GPU shares a leaf switch with its
// 400G NDR NIC (PIX), two leaves per host bridge (PXB to the neighbour), as on DGX H100.
NodeModel hgx_h100() {
  NodeModelBuilder b("hgx-h100", "NVIDIA HGX H100 (8 x H100 SXM5 80 GB, NVSwitch NV18, 2 x Sapphire Rapids, 8 x NDR 400G IB)");
  const int cpu[] = {b.numa(CpuKind::IntelSapphireRapids, "0-55,112-167"),
                     b.numa(CpuKind::IntelSapphireRapids, "56-111,168-223")};
  for (int pair = 0; pair < 4; ++pair) {
    const int top = b.pcie_switch(b.host_bridge(cpu[pair / 2], 5), 5);
    for (int k = 0; k < 2; ++k) {
      const int leaf = b.pcie_switch(top, 5);
      b.gpu(leaf, "h100", 18);
      b.nic(leaf, "mlx5_" + std::to_string(2 * pair + k), 400, NicTransport::InfiniBand, 5);
    }
  }
  return b.take();
}

// A generic 8-GPU PCIe server: 2 sockets x 2 PCIe switches x 2 GPUs, no NVLink, a 100 GbE NIC
// on the first switch of each socket.
NodeModel pcie_8gpu() {
  NodeModelBuilder b("pcie-8gpu", "8 x A100 PCIe 40 GB, no NVLink, 2 x Cascade Lake, 2 PCIe switches per socket, 2 x 100 GbE");
  const int cpu[] = {b.numa(CpuKind::IntelSkylake, "0-23,48-71"), b.numa(CpuKind::IntelSkylake, "24-47,72-95")};
  for (int s = 0; s < 4; ++s) {
    const int sw = b.pcie_switch(b.host_bridge(cpu[s / 2], 4), 4);
    b.gpu(sw, "a100-pcie");
    b.gpu(sw, "a100-pcie");
    if (s % 2 == 0) b.nic(sw, "mlx5_" + std::to_string(s / 2), 100, NicTransport::Ethernet, 4);
  }
  return b.take();
}

// DGX-2: 16 x V100 SXM3 on twelve NVSwitches (NV6 per GPU), 2 x Xeon Platinum 8168; per socket
// two host bridges, each with a two-level switch tree of 2 leaves x (2 GPUs + 1 EDR NIC).
NodeModel dgx2_v100() {
  NodeModelBuilder b("dgx2-v100", "NVIDIA DGX-2 (16 x V100 SXM3 32 GB, NVSwitch NV6, 2 x Skylake, 8 x EDR 100G IB)");
  const int cpu[] = {b.numa(CpuKind::IntelSkylake, "0-23,48-71"), b.numa(CpuKind::IntelSkylake, "24-47,72-95")};
  for (int tree = 0; tree < 4; ++tree) {
    const int top = b.pcie_switch(b.host_bridge(cpu[tree / 2]));
    for (int k = 0; k < 2; ++k) {
      const int leaf = b.pcie_switch(top);
      b.gpu(leaf, "v100-sxm3", 6);
      b.gpu(leaf, "v100-sxm3", 6);
      b.nic(leaf, "mlx5_" + std::to_string(2 * tree + k), 100, NicTransport::InfiniBand);
    }
  }
  return b.take();
}

struct CatalogEntry {
  const char* name;
  const char* summary;
  std::function<NodeModel()> make;
};

const std::vector<CatalogEntry>& catalog() {
  static const std::vector<CatalogEntry> entries = {
      {"dgx1-v100", "8 x V100 SXM2, NVLink hybrid cube-mesh (NV1/NV2), 2 sockets, 1 x EDR IB", dgx1_v100},
      {"dgx-a100", "8 x A100 SXM4, NVSwitch (NV12), 8 NUMA nodes, 8 x HDR 200G IB", dgx_a100},
      {"hgx-h100", "8 x H100 SXM5, NVSwitch (NV18), 2 sockets, 8 x NDR 400G IB", hgx_h100},
      {"pcie-8gpu", "8 x A100 PCIe, no NVLink, 2 sockets x 2 PCIe switches x 2 GPUs, 2 x 100 GbE", pcie_8gpu},
      {"dgx2-v100", "16 x V100 SXM3, NVSwitch (NV6), 2 sockets, 8 x EDR 100G IB", dgx2_v100},
  };
  return entries;
}

}  // namespace

std::vector<BuiltinModelInfo> builtin_models() {
  std::vector<BuiltinModelInfo> out;
  for (const auto& e : catalog()) out.push_back({e.name, e.summary});
  return out;
}

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const auto& e : catalog()) names.push_back(e.name);
  return names;
}

std::optional<NodeModel> builtin_model(std::string_view name) {
  for (const auto& e : catalog())
    if (name == e.name) return e.make();
  return std::nullopt;
}

NodeModel nvswitch_domain_model(int gpus, std::string_view gpu_model, int gpus_per_numa) {
  const GpuModel* spec = find_gpu_model(gpu_model);
  assert(spec && gpus_per_numa > 0);
  NodeModelBuilder b("nvswitch-" + std::to_string(gpus) + "x" + spec->name,
                     std::to_string(gpus) + " x " + spec->product + " in one NVSwitch domain");
  int numa = -1;
  for (int g = 0; g < gpus; ++g) {
    if (g % gpus_per_numa == 0) numa = b.numa(CpuKind::Arm);
    b.gpu(b.host_bridge(numa, spec->pcie_gen), spec->name, spec->max_nvlinks);
  }
  return b.take();
}

}  // namespace topsim
