// The description of one GPU node's hardware: NUMA nodes (CPU sockets or NPS domains), the PCIe
// tree under them, GPUs, NICs and NVLink connectivity (direct bonds or an NVSwitch fabric).
//
// A NodeModel is plain data, filled by the built-in catalog, the JSON loader or the importers,
// and checked by `validate`. `Topology` (topology.h) turns it into the hardware graph and the
// per-pair link facts.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/hardware.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

struct NumaNode {
  int id = 0;  // OS NUMA node id
  CpuKind cpu = CpuKind::IntelSkylake;
  std::string cpu_affinity;  // e.g. "0-11,24-35" (informational)
  bool operator==(const NumaNode&) const = default;
};

enum class BridgeKind {
  HostBridge,  // a CPU root complex / root port; `parent` is -1 and `numa` says which CPU
  Switch,      // a PCIe switch (PLX/Broadcom); `parent` is another bridge
};
template <>
struct EnumNames<BridgeKind> {
  static constexpr std::array<EnumName<BridgeKind>, 2> table{
      {{BridgeKind::HostBridge, "host-bridge"}, {BridgeKind::Switch, "switch"}}};
};

struct PcieBridge {
  BridgeKind kind = BridgeKind::Switch;
  int numa = 0;         // index into NodeModel::numa_nodes (host bridges only; switches inherit)
  int parent = -1;      // index into NodeModel::bridges; -1 for host bridges
  int pcie_gen = 3;     // upstream link generation
  int pcie_width = 16;  // upstream link lanes
  bool operator==(const PcieBridge&) const = default;
};

enum class NicTransport { InfiniBand, RoCE, Ethernet };
template <>
struct EnumNames<NicTransport> {
  static constexpr std::array<EnumName<NicTransport>, 3> table{
      {{NicTransport::InfiniBand, "ib"}, {NicTransport::RoCE, "roce"}, {NicTransport::Ethernet, "ethernet"}}};
};

struct Gpu {
  std::string model;  // GPU catalog name, e.g. "v100"
  int sm = 70;        // compute capability x 10
  double memory_gib = 16;
  int bridge = 0;  // parent bridge index
  int pcie_gen = 3;
  int pcie_width = 16;
  int nvswitch_links = 0;  // NVLinks from this GPU into the node's NVSwitch fabric (0: none)
  std::string bus_id;      // PCI bus id; synthesized when empty
  bool operator==(const Gpu&) const = default;
};

struct Nic {
  std::string name;         // e.g. "mlx5_0"
  double speed_gbit = 100;  // port speed, Gb/s
  NicTransport transport = NicTransport::InfiniBand;
  int bridge = 0;  // parent bridge index
  int pcie_gen = 3;
  int pcie_width = 16;
  std::string bus_id;
  bool operator==(const Nic&) const = default;
};

struct NvLinkBond {
  int gpu_a = 0;
  int gpu_b = 0;
  int count = 1;  // bonded links: NV1, NV2, NV4, ...
  bool operator==(const NvLinkBond&) const = default;
};

// Largest GPU count in one node / NVLink domain (GB200 NVL72 is 72).
inline constexpr size_t kMaxGpusPerNode = 128;
// What validate() accepts beyond that (docs/limits.md): generous, but no impossible hardware.
inline constexpr size_t kMaxNumaNodes = 64, kMaxBridges = 1024, kMaxNics = 64;
inline constexpr int kMinSm = 10, kMaxSm = 150;     // compute capability x 10: 1.0 .. 15.0
inline constexpr double kMaxGpuMemoryGib = 4096;    // per GPU
inline constexpr double kMaxHostMemoryGib = 65536;  // per node (64 TiB)
inline constexpr double kMaxNicGbit = 3200;         // per NIC port
inline constexpr int kMaxNvlinkPorts = 18;          // per GPU, for a model the catalog does not know

struct NodeModel {
  std::string name;
  std::string description;
  std::vector<NumaNode> numa_nodes;
  std::vector<PcieBridge> bridges;
  std::vector<Gpu> gpus;  // index = GPU id (CUDA / nvidia-smi order)
  std::vector<Nic> nics;
  std::vector<NvLinkBond> nvlinks;
  // The node's CPU memory, all sockets, GiB (what holds offloaded activations); 0: not stated.
  double host_memory_gib = 0;
  bool operator==(const NodeModel&) const = default;  // every field (sim/thread_caches.h keys node types by it)
};

// Checks structural consistency; the error names the offending field, e.g.
// "gpus[3].bridge: 9 is not a bridge index (node has 4 bridges)".
Status validate(const NodeModel& model);

// NUMA node index (into numa_nodes) of a bridge, following parents up to the host bridge.
// REQUIRES: validate(model).ok()
int bridge_numa(const NodeModel& model, int bridge);

}  // namespace topsim
