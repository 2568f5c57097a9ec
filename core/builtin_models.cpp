#include "core/builtin_models.h"

#include <cassert>
#include <functional>
#include <map>

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

// The DGX-1 chassis: 2 x Xeon E5-2698 v4, four PLX switches with two GPUs each, one EDR NIC.
void dgx1_chassis(NodeModelBuilder& b, const char* gpu) {
  const int cpu0 = b.numa(CpuKind::IntelBroadwell, "0-19,40-59");
  const int cpu1 = b.numa(CpuKind::IntelBroadwell, "20-39,60-79");
  int gpu_switch[4];
  for (int s = 0; s < 4; ++s) gpu_switch[s] = b.pcie_switch(b.host_bridge(s < 2 ? cpu0 : cpu1));
  for (int g = 0; g < 8; ++g) b.gpu(gpu_switch[g / 2], gpu);
  b.nic(gpu_switch[1], "mlx5_0", 100, NicTransport::InfiniBand);
}

// DGX-1 with V100: 2 x Xeon E5-2698 v4, four PLX switches with two GPUs each, hybrid cube-mesh
// NVLink exactly as `nvidia-smi topo -m` reports it (../shared/topologies/dgx1-v100-*.txt).
NodeModel dgx1_v100() {
  NodeModelBuilder b("dgx1-v100", "NVIDIA DGX-1 (8 x V100 SXM2 16 GB, NVLink hybrid cube-mesh, 2 x Broadwell, 1 x EDR IB)");
  dgx1_chassis(b, "v100");
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

// DGX-1 with P100 (2016): the same chassis, four NVLink 1 ports per GPU - each quad fully
// connected with single links and GPU i bonded to GPU i + 4 (NVIDIA DGX-1 system architecture
// whitepaper WP-08437-001, 2017, figure 4).
NodeModel dgx1_p100() {
  NodeModelBuilder b("dgx1-p100", "NVIDIA DGX-1 (8 x P100 SXM2 16 GB, NVLink 1 hybrid cube-mesh, 2 x Broadwell, 1 x EDR IB)");
  dgx1_chassis(b, "p100");
  for (int quad = 0; quad < 8; quad += 4)
    for (int a = quad; a < quad + 4; ++a)
      for (int c = a + 1; c < quad + 4; ++c) b.nvlink(a, c, 1);
  for (int g = 0; g < 4; ++g) b.nvlink(g, g + 4, 1);
  return b.take();
}

// DGX A100 640 GB: the DGX A100 layout with A100 SXM4 80 GB (DGX A100 user guide, 2020).
NodeModel dgx_a100_80g() {
  NodeModel m = dgx_a100();
  m.name = "dgx-a100-80g";
  m.description = "NVIDIA DGX A100 640GB (8 x A100 SXM4 80 GB, NVSwitch NV12, 2 x EPYC NPS4, 8 x HDR 200G IB)";
  for (Gpu& g : m.gpus) {
    g.model = "a100-80g";
    g.memory_gib = 80;
  }
  return m;
}

// HGX 8-GPU boards after H100: the HGX H100 layout (one NIC per GPU on a shared leaf switch),
// with the GPU, NVLink ports, host CPUs and NIC speed of the board. HGX H200: 8 x H200 on NVLink 4
// NVSwitch, 8 x ConnectX-7 NDR 400G, 2 x Xeon 8480C (MLPerf Training v4.0 NVIDIA
// systems/h200_ngc24.04_mxnet.json). HGX B200: 8 x B200 on NVLink 5 (18 links, 1.8 TB/s per GPU),
// 8 x ConnectX-7 400G, 2 x Xeon Platinum 8570 (Emerald Rapids), PCIe Gen5 (DGX B200 user guide).
// HGX B300: 8 x B300 on NVLink 5, each beside a ConnectX-8 SuperNIC of 800 Gb/s whose own PCIe
// Gen6 switch holds the GPU (NVIDIA DGX B300 data sheet, 2025: "8x OSFP ports serving 8x single-port
// NVIDIA ConnectX-8 VPI, up to 800 Gb/s InfiniBand/Ethernet"; NVIDIA technical blog "NVIDIA
// ConnectX-8 SuperNICs Advance AI Platform Architecture", 2025), 2 x Xeon 6 (Granite Rapids,
// modelled as Emerald Rapids: NCCL rates both the same).
NodeModel hgx_board(const char* name, const char* description, const char* gpu, CpuKind cpu_kind, double nic_gbit = 400,
                    int leaf_pcie_gen = 5) {
  NodeModelBuilder b(name, description);
  const int cpu[] = {b.numa(cpu_kind, "0-55,112-167"), b.numa(cpu_kind, "56-111,168-223")};
  for (int pair = 0; pair < 4; ++pair) {
    const int top = b.pcie_switch(b.host_bridge(cpu[pair / 2], 5), 5);
    for (int k = 0; k < 2; ++k) {
      const int leaf = b.pcie_switch(top, leaf_pcie_gen);
      b.gpu(leaf, gpu, 18);
      b.nic(leaf, "mlx5_" + std::to_string(2 * pair + k), nic_gbit, NicTransport::InfiniBand, leaf_pcie_gen);
    }
  }
  return b.take();
}
NodeModel hgx_h200() {
  return hgx_board("hgx-h200", "NVIDIA HGX H200 (8 x H200 141 GB, NVSwitch NV18, 2 x Sapphire Rapids, 8 x NDR 400G IB)", "h200",
                   CpuKind::IntelSapphireRapids);
}
NodeModel hgx_b200() {
  return hgx_board("hgx-b200", "NVIDIA HGX B200 (8 x B200 180 GB, NVLink 5 NVSwitch NV18, 2 x Emerald Rapids, 8 x 400G IB)",
                   "b200", CpuKind::IntelEmeraldRapids);
}
NodeModel hgx_b300() {
  return hgx_board("hgx-b300", "NVIDIA HGX B300 (8 x B300 288 GB, NVLink 5 NVSwitch NV18, 2 x Xeon 6, 8 x ConnectX-8 800G IB)",
                   "b300", CpuKind::IntelEmeraldRapids, 800, 6);
}

// GB200 NVL72 compute tray: two GB200 superchips, i.e. 2 Grace CPUs (72 Arm Neoverse V2 cores
// each) and 4 GPUs, each GPU on its Grace over NVLink-C2C (900 GB/s; modelled as the Grace's host
// bridge, as the node model has no C2C link) and sharing a PCIe Gen5 switch with one ConnectX-7
// 400G NIC (4 per tray). The GPUs' 18 NVLink 5 ports go to the rack's NVLink switch trays, not to
// each other: within the tray they meet at the switch, across trays the domain is
// GangNode::nvlink_domain (core/gang.h), 18 trays x 4 GPUs per NVL72 rack. Sources: NVIDIA GB200
// NVL72 data sheet (2024); NVIDIA NVL72 enterprise reference architecture, compute tray (4 HCAs
// per tray on 2 mezzanine boards).
NodeModel nvl72_tray(const char* name, const char* description, const char* gpu, double nic_gbit, int leaf_pcie_gen) {
  NodeModelBuilder b(name, description);
  const int grace[] = {b.numa(CpuKind::Arm, "0-71"), b.numa(CpuKind::Arm, "72-143")};
  for (int g = 0; g < 4; ++g) {
    const int leaf = b.pcie_switch(b.host_bridge(grace[g / 2], 5), leaf_pcie_gen);
    b.gpu(leaf, gpu, 18);
    b.nic(leaf, "mlx5_" + std::to_string(g), nic_gbit, NicTransport::InfiniBand, leaf_pcie_gen);
  }
  return b.take();
}
NodeModel gb200_nvl72_tray() {
  return nvl72_tray("gb200-nvl72-tray",
                    "NVIDIA GB200 NVL72 compute tray (4 x GB200 GPU 192 GB, NVLink 5 to the rack's NVLink switches, 2 x "
                    "Grace, 4 x ConnectX-7 400G IB)",
                    "gb200", 400, 5);
}
// GB300 NVL72 compute tray: the GB200 tray's layout with 4 Blackwell Ultra GPUs, each beside a
// ConnectX-8 SuperNIC of 800 Gb/s on the board (glennklockwood.com/garden/processors/B300: "72
// ConnectX-8 NICs" per rack, "Mellanox ConnectX-8 NICs are included on the board now"), whose PCIe
// Gen6 switch holds the GPU; 18 trays per NVLink domain as GB200's.
NodeModel gb300_nvl72_tray() {
  return nvl72_tray("gb300-nvl72-tray",
                    "NVIDIA GB300 NVL72 compute tray (4 x GB300 GPU 288 GB, NVLink 5 to the rack's NVLink switches, 2 x "
                    "Grace, 4 x ConnectX-8 800G IB)",
                    "gb300", 800, 6);
}

// PCIe servers without NVLink: 2 sockets x 2 PCIe switches x `per_switch` GPUs, one NIC on the
// first switch of each socket (the pcie-8gpu layout with the GPU, host CPUs and NICs of the box).
NodeModel pcie_server(const char* name, const char* description, const char* gpu, int per_switch, CpuKind cpu_kind, int pcie_gen,
                      double nic_gbit, NicTransport transport) {
  NodeModelBuilder b(name, description);
  const int cpu[] = {b.numa(cpu_kind, "0-23,48-71"), b.numa(cpu_kind, "24-47,72-95")};
  for (int s = 0; s < 4; ++s) {
    const int sw = b.pcie_switch(b.host_bridge(cpu[s / 2], pcie_gen), pcie_gen);
    for (int k = 0; k < per_switch; ++k) b.gpu(sw, gpu);
    if (s % 2 == 0) b.nic(sw, "mlx5_" + std::to_string(s / 2), nic_gbit, transport, pcie_gen);
  }
  return b.take();
}

// Philly's 8-GPU machines (24 GB per GPU, read as Tesla P40; msr-fiddle/philly-traces
// cluster_machine_list and issue #8) and its 2-GPU machines (12 GB, read as P100 PCIe 12 GB):
// Broadwell hosts of 2017; the trace's paper (Jeon et al., ATC'19) names InfiniBand between
// servers, taken as one 100G EDR port.
NodeModel pcie_p40() {
  return pcie_server("pcie-p40", "8 x Tesla P40 24 GB PCIe, no NVLink, 2 x Broadwell, 2 x EDR 100G IB", "p40", 2,
                     CpuKind::IntelBroadwell, 3, 100, NicTransport::InfiniBand);
}
NodeModel pcie2_p100() {
  NodeModelBuilder b("pcie2-p100-12g", "2 x Tesla P100 PCIe 12 GB, no NVLink, 1 x Broadwell, 1 x EDR 100G IB");
  const int sw = b.pcie_switch(b.host_bridge(b.numa(CpuKind::IntelBroadwell, "0-19,40-59")));
  b.gpu(sw, "p100-pcie-12g");
  b.gpu(sw, "p100-pcie-12g");
  b.nic(sw, "mlx5_0", 100, NicTransport::InfiniBand);
  return b.take();
}
// Current PCIe inference/training boxes: 8 x L40S (Supermicro SYS-521GE-TNRT, MLPerf Inference
// v4.0: 2 x Xeon 8462Y+), 8 x L4, 8 x H100 PCIe; 2 x 200G / 100G / 400G Ethernet NICs (RoCE).
NodeModel pcie_l40s() {
  return pcie_server("pcie-l40s", "8 x L40S 48 GB PCIe Gen4, no NVLink, 2 x Sapphire Rapids, 2 x 200 GbE", "l40s", 2,
                     CpuKind::IntelSapphireRapids, 4, 200, NicTransport::Ethernet);
}
NodeModel pcie_l4() {
  return pcie_server("pcie-l4", "8 x L4 24 GB PCIe Gen4, no NVLink, 2 x Sapphire Rapids, 2 x 100 GbE", "l4", 2,
                     CpuKind::IntelSapphireRapids, 4, 100, NicTransport::Ethernet);
}
NodeModel pcie_h100() {
  return pcie_server("pcie-h100", "8 x H100 PCIe 80 GB Gen5, no NVLink bridges, 2 x Sapphire Rapids, 2 x 400 GbE", "h100-pcie", 2,
                     CpuKind::IntelSapphireRapids, 5, 400, NicTransport::Ethernet);
}

// NVIDIA GB200 NVL72 data sheet (2024): 18 compute trays (72 GPUs) share one NVLink domain. Clouds
// sell them so: CoreWeave deploys GB200 instances "as full racks of 18 Nodes" and node pools in
// multiples of 18 (docs.coreweave.com, platform/instances/gb200).
constexpr int kNvl72Trays = 18;

struct CatalogEntry {
  const char* name;
  const char* summary;
  std::function<NodeModel()> make;
  int nvlink_domain_nodes = 0;  // nodes per multi-node NVLink domain the model is sold in; 0: none
  double host_memory_gib = 0;   // NodeModel::host_memory_gib; 0: not stated (generic PCIe boxes vary)
};

// Host memory as NVIDIA's systems ship it (GB as sold: DIMMs and LPDDR5X packages are binary
// sizes, so GiB). DGX-1 (P100 and V100) 512 GB DDR4, DGX-2 1.5 TB, DGX A100 320 GB 1 TB and 640 GB
// 2 TB, DGX H100 and DGX H200 2 TB (32 x 64 GB DIMMs: MLPerf Inference v4.1 NVIDIA
// systems/H200-SXM-141GBx8_TRT_MaxQ.json "host_memory_capacity": "2 TB"), DGX B200 2 TB
// (configurable to 4 TB) - from each system's data sheet. An HGX board's server is the vendor's:
// the HGX models take the DGX's figure (a node file's "host_memory_gib" gives another). A GB200
// NVL72 tray: 2 Grace CPUs x 480 GB LPDDR5X (the configuration datacrunch-research/blogs @ f5752e8
// measured; NVIDIA's rack data sheet: up to 17 TB for 36 Graces). B300 systems and GB300 trays:
// no figure found here, not stated.
constexpr double kDgx1HostGib = 512, kDgx2HostGib = 1536, kDgxA100HostGib = 1024, kDgxHostGib = 2048, kGb200TrayHostGib = 2 * 480;

const std::vector<CatalogEntry>& catalog() {
  static const std::vector<CatalogEntry> entries = {
      {"dgx1-v100", "8 x V100 SXM2, NVLink hybrid cube-mesh (NV1/NV2), 2 sockets, 1 x EDR IB", dgx1_v100, 0, kDgx1HostGib},
      {"dgx-a100", "8 x A100 SXM4, NVSwitch (NV12), 8 NUMA nodes, 8 x HDR 200G IB", dgx_a100, 0, kDgxA100HostGib},
      {"hgx-h100", "8 x H100 SXM5, NVSwitch (NV18), 2 sockets, 8 x NDR 400G IB", hgx_h100, 0, kDgxHostGib},
      {"pcie-8gpu", "8 x A100 PCIe, no NVLink, 2 sockets x 2 PCIe switches x 2 GPUs, 2 x 100 GbE", pcie_8gpu},
      {"dgx2-v100", "16 x V100 SXM3, NVSwitch (NV6), 2 sockets, 8 x EDR 100G IB", dgx2_v100, 0, kDgx2HostGib},
      {"dgx1-p100", "8 x P100 SXM2, NVLink 1 hybrid cube-mesh (NV1), 2 sockets, 1 x EDR IB", dgx1_p100, 0, kDgx1HostGib},
      {"dgx-a100-80g", "8 x A100 SXM4 80 GB, NVSwitch (NV12), 8 NUMA nodes, 8 x HDR 200G IB", dgx_a100_80g, 0, kDgxHostGib},
      {"hgx-h200", "8 x H200 141 GB, NVSwitch (NV18), 2 sockets, 8 x NDR 400G IB", hgx_h200, 0, kDgxHostGib},
      {"hgx-b200", "8 x B200 180 GB, NVLink 5 NVSwitch (NV18), 2 sockets, 8 x 400G IB", hgx_b200, 0, kDgxHostGib},
      {"pcie-p40", "8 x P40 24 GB PCIe, no NVLink, 2 sockets x 2 PCIe switches, 2 x EDR IB", pcie_p40},
      {"pcie2-p100-12g", "2 x P100 PCIe 12 GB, no NVLink, 1 socket, 1 x EDR IB", pcie2_p100},
      {"pcie-l40s", "8 x L40S 48 GB PCIe, no NVLink, 2 sockets x 2 PCIe switches, 2 x 200 GbE", pcie_l40s},
      {"pcie-l4", "8 x L4 24 GB PCIe, no NVLink, 2 sockets x 2 PCIe switches, 2 x 100 GbE", pcie_l4},
      {"pcie-h100", "8 x H100 PCIe 80 GB, no NVLink, 2 sockets x 2 PCIe switches, 2 x 400 GbE", pcie_h100},
      {"gb200-nvl72-tray", "4 x GB200 GPU 192 GB, NVLink 5 to the NVL72 rack's switches, 2 x Grace, 4 x 400G IB",
       gb200_nvl72_tray, kNvl72Trays, kGb200TrayHostGib},
      {"hgx-b300", "8 x B300 288 GB, NVLink 5 NVSwitch (NV18), 2 sockets, 8 x 800G IB", hgx_b300},
      {"gb300-nvl72-tray", "4 x GB300 GPU 288 GB, NVLink 5 to the NVL72 rack's switches, 2 x Grace, 4 x 800G IB",
       gb300_nvl72_tray, kNvl72Trays},
  };
  return entries;
}

NodeModel made(const CatalogEntry& e) {
  NodeModel m = e.make();
  m.host_memory_gib = e.host_memory_gib;
  return m;
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
    if (name == e.name) return made(e);
  return std::nullopt;
}

std::string reference_node_name(const GpuModel& gpu) {
  for (const auto& e : catalog()) {
    const NodeModel m = made(e);
    if (!m.gpus.empty() && m.gpus.front().model == gpu.name) return e.name;
  }
  return "";
}

NodeModel reference_node_model(const GpuModel& gpu) {
  if (const std::string name = reference_node_name(gpu); !name.empty()) return *builtin_model(name);
  const std::string name = "pcie-8x" + gpu.name;
  const std::string description = "8 x " + gpu.product + " PCIe, no NVLink, 2 sockets x 2 PCIe switches, 2 x 100 GbE";
  return pcie_server(name.c_str(), description.c_str(), gpu.name.c_str(), 2, CpuKind::IntelSkylake, gpu.pcie_gen, 100,
                     NicTransport::Ethernet);
}

int builtin_nvlink_domain_nodes(std::string_view name) {
  for (const auto& e : catalog())
    if (name == e.name) return e.nvlink_domain_nodes;
  return 0;
}

std::optional<NodeEconomics> builtin_economics(std::string_view name) {
  // On-demand price of the comparable cloud instance, us-east-1, and the vendor's maximum power.
  // DGX-1: AWS p3.16xlarge $24.48/h (aws.amazon.com/ec2/instance-types/p3, 2024), 3,500 W (DGX-1
  // data sheet). DGX A100: p4d.24xlarge $32.77/h (xither.com, Q2 2024), 6,500 W (DGX A100 user
  // guide: 6 x 3 kW PSUs, 6.5 kW max). HGX H100: p5.48xlarge $98.32/h (disintermediate.global, Q1
  // 2026), 10,200 W (DGX H100/H200 user guide, 6 x 3.3 kW, 10.2 kW max). HGX H200: p5e Capacity
  // Block $43.26/h is the only AWS figure found (2025): no on-demand price, a plan file must give
  // one. HGX B200: 14,300 W (DGX B200 user guide); no on-demand price at GA (Capacity Blocks
  // only, 2025-05). GB200 NVL72 compute tray: 5,400 W (two GB200 superchips at up to 2,700 W each,
  // fibermall.com "In-depth analysis for NVIDIA GB200", 2024); no on-demand price per tray found.
  static const std::map<std::string, NodeEconomics, std::less<>> table = {
      {"dgx1-v100", {24.48, 3500, "AWS p3.16xlarge on-demand us-east-1 (2024); DGX-1 data sheet 3.5 kW"}},
      {"dgx-a100", {32.77, 6500, "AWS p4d.24xlarge on-demand us-east-1 (Q2 2024); DGX A100 user guide 6.5 kW"}},
      {"hgx-h100", {98.32, 10200, "AWS p5.48xlarge on-demand us-east-1 (Q1 2026); DGX H100 user guide 10.2 kW"}},
      {"hgx-h200", {0, 10200, "no on-demand price found (AWS p5e: Capacity Blocks only); DGX H200 user guide 10.2 kW"}},
      {"hgx-b200",
       {0, 14300, "no on-demand price found (AWS p6-b200: Capacity Blocks only, 2025-05); DGX B200 user guide 14.3 kW"}},
      {"gb200-nvl72-tray",
       {0, 5400, "no on-demand price per tray found; 2 x GB200 superchip at 2.7 kW (fibermall.com GB200 analysis, 2024)"}},
  };
  const auto it = table.find(name);
  if (it == table.end()) return std::nullopt;
  return it->second;
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
