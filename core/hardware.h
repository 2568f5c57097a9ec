// Hardware facts the topology model is built from: GPU models, CPU kinds and the per-link
// bandwidth constants NCCL uses for its path model.
//
// Bandwidths are GB/s in one direction (NCCL's convention); names ending in `_gbps` are GB/s.
// Sources: NCCL `src/graph/topo.h` (link constants) and `topo.cc` (PCIe width x speed / 80),
// collected in REFERENCE.md.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/enum_names.h"

namespace topsim {

struct GpuModel {
  std::string name;        // catalog key, e.g. "v100"
  std::string product;     // e.g. "Tesla V100-SXM2-16GB"
  int sm = 0;              // compute capability x 10 (70 = Volta)
  double memory_gib = 0;   // on-board memory
  int pcie_gen = 3;        // host link generation
  int pcie_width = 16;     // host link lanes
  int max_nvlinks = 0;     // NVLink ports per GPU (0: no NVLink)
  double memory_gbps = 0;  // device memory bandwidth, GB/s (vendor data sheet); 0 when not catalogued
};

// Finds a GPU model by catalog name (case-insensitive; aliases such as "V100M32" accepted).
const GpuModel* find_gpu_model(std::string_view name);
// All catalog names, in catalog order.
std::vector<std::string> gpu_model_names();
// Architecture name for an SM version, e.g. 70 -> "Volta".
std::string sm_architecture(int sm);

// NCCL topo.h: SM60 18.0, SM70 20.0, SM80 20.0, SM86 12.0, SM90 20.6, SM100 40.1 GB/s per link.
double nvlink_gbps_per_link(int sm);
// What one direct NVLink delivers per direction to NCCL's kernels, GB/s. SMs store at most 128
// bytes per NVLink write (nccl-tests#149); on NVLink 1 and 2 every packet carries one 16-byte
// header flit ahead of its data flits (Tesla P100 whitepaper, 2016, NVLink section), so a link
// moves 128/144 of its line rate: NVLink 1 (SM60, 20 GB/s) 17.8, which NCCL rounds to its 18.0,
// and NVLink 2 (SM70, 25 GB/s) 22.2, where NCCL's search keeps a conservative 20.0. From NVLink 3
// on, NCCL's figure is the achieved one: "25 GB/s line rate converts to ~20 GB/s effective with a
// 128 B payload" on A100 (nccl-tests#149); SM86, SM90 and SM100 keep NCCL's values.
double nvlink_achieved_gbps_per_link(int sm);
// NCCL topo.cc: width x per-lane speed / 80; Gen3 x16 = 12, Gen4 x16 = 24, Gen5 x16 = 48 GB/s.
double pcie_gbps(int gen, int width);
// NCCL: a network port of `speed_gbit` Gb/s gives speed / 8 GB/s (100G = 12.5).
double network_gbps(double speed_gbit);

enum class CpuKind {
  IntelBroadwell,       // QPI, NCCL QPI_BW 6
  IntelSkylake,         // Skylake / Cascade Lake UPI, NCCL SKL_QPI_BW 10
  IntelSapphireRapids,  // UPI 2.0, NCCL 22
  IntelEmeraldRapids,   // NCCL 40
  Amd,                  // Infinity Fabric, NCCL AMD_BW 16
  Arm,                  // NCCL ARM_BW 6
  Power9,               // NCCL P9_BW 32
};
template <>
struct EnumNames<CpuKind> {
  static constexpr std::array<EnumName<CpuKind>, 7> table{{{CpuKind::IntelBroadwell, "intel-broadwell"},
                                                           {CpuKind::IntelSkylake, "intel-skylake"},
                                                           {CpuKind::IntelSapphireRapids, "intel-sapphire-rapids"},
                                                           {CpuKind::IntelEmeraldRapids, "intel-emerald-rapids"},
                                                           {CpuKind::Amd, "amd"},
                                                           {CpuKind::Arm, "arm"},
                                                           {CpuKind::Power9, "power9"}}};
};

// Bandwidth of the link between two NUMA nodes / sockets of this kind, GB/s.
double cpu_interconnect_gbps(CpuKind kind);
bool is_intel(CpuKind kind);
// The kind named `name` in any letter case ("Intel-Skylake"); nullopt for any other text.
std::optional<CpuKind> parse_cpu_kind(std::string_view name);

// NCCL search.cc INTEL_P2P_OVERHEAD: GPU-to-GPU traffic through an Intel root complex costs
// 6/5 of its bandwidth, so such a path delivers bandwidth / 1.2.
inline constexpr double kIntelP2pOverhead = 1.2;

}  // namespace topsim
