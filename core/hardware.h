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
  std::string name;       // catalog key, e.g. "v100"
  std::string product;    // e.g. "Tesla V100-SXM2-16GB"
  int sm = 0;             // compute capability x 10 (70 = Volta)
  double memory_gib = 0;  // on-board memory
  int pcie_gen = 3;       // host link generation
  int pcie_width = 16;    // host link lanes
  int max_nvlinks = 0;    // NVLink ports per GPU (0: no NVLink)
  // Peak dense throughput, TFLOPS (0: the GPU has no such unit): FP32 on CUDA cores, and the
  // tensor cores' TF32, FP16/BF16 and FP8 without 2:4 sparsity. Memory bandwidth, GB/s; board
  // power, W. Sources per GPU in hardware.cpp.
  double fp32_tflops = 0;
  double tf32_tflops = 0;
  double fp16_tflops = 0;
  double fp8_tflops = 0;
  double memory_gbps = 0;
  double tdp_w = 0;
  // Copies to and from the Grace CPU's memory over NVLink-C2C, GB/s per direction when every GPU
  // on that Grace copies at once (0: the host is over PCIe). Sources in hardware.cpp.
  double c2c_gbps = 0;
  std::string gfd_product;  // Kubernetes label nvidia.com/gpu.product set by GPU feature discovery
  int catalog_index = -1;   // position in the catalog (gpu_at); -1 for a GPU made outside it
  // Peak of the precision a training job uses by default: TF32 on tensor cores from Ampere (SM80)
  // on, FP32 before (PyTorch and TensorFlow enable TF32 for convolutions by default on Ampere+).
  double default_precision_tflops() const { return sm >= 80 && tf32_tflops > 0 ? tf32_tflops : fp32_tflops; }
};

// Finds a GPU model by catalog name (case-insensitive; aliases such as "V100M32" accepted).
const GpuModel* find_gpu_model(std::string_view name);
// The GPU whose GPU-feature-discovery product label is `label` (either spelling NVIDIA drivers
// used: "NVIDIA-A100-SXM4-80GB" or the older "A100-SXM4-80GB"; a "-SHARED" or "-MIG-..." suffix
// is ignored); nullptr for a label of no catalog GPU.
const GpuModel* find_gpu_by_product_label(std::string_view label);
// All catalog names, in catalog order.
std::vector<std::string> gpu_model_names();
// The GPU at catalog index `index`; nullptr when out of range.
const GpuModel* gpu_at(int index);
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
// What a copy between the GPU and its host memory reaches per direction, GB/s: NVLink-C2C where
// the GPU has it, else its PCIe link (pcie_gbps; measured copy engines: 25.1 on an A100's Gen4
// x16, NVIDIA/nvbandwidth#42; 52.8 device-to-host on an H100's Gen5 x16, NVIDIA/nvbandwidth#24).
// A PCIe switch uplink shared by several GPUs is not counted.
double host_copy_gbps(const GpuModel& gpu);
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
