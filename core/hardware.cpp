#include "core/hardware.h"

#include <algorithm>
#include <cctype>

namespace topsim {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

struct CatalogEntry {
  GpuModel model;
  std::vector<std::string> aliases;
};

// Memory, PCIe generation and NVLink port counts from the vendors' data sheets. Memory bandwidth
// (GB/s), NVIDIA data sheets: Tesla P100 SXM2 732; Tesla V100 SXM2/SXM3 900; Tesla T4 320; A100
// Tensor Core GPU (2021): 40 GB SXM4 and PCIe 1,555, 80 GB SXM4 2,039; A10 600; L40S 864;
// GeForce RTX 4090 1,008; H100 SXM5 3,350; B200 (HGX B200) 8,000.
const std::vector<CatalogEntry>& catalog() {
  static const std::vector<CatalogEntry> entries = {
      {{"p100", "Tesla P100-SXM2-16GB", 60, 16, 3, 16, 4, 732}, {"p100-sxm2"}},
      {{"v100", "Tesla V100-SXM2-16GB", 70, 16, 3, 16, 6, 900}, {"v100-sxm2", "v100m16", "v100-16g"}},
      {{"v100-32g", "Tesla V100-SXM2-32GB", 70, 32, 3, 16, 6, 900}, {"v100m32", "v100-sxm2-32g"}},
      {{"v100-sxm3", "Tesla V100-SXM3-32GB", 70, 32, 3, 16, 6, 900}, {}},
      {{"t4", "Tesla T4", 75, 16, 3, 16, 0, 320}, {}},
      {{"a100", "A100-SXM4-40GB", 80, 40, 4, 16, 12, 1555}, {"a100-sxm4", "a100-40g"}},
      {{"a100-80g", "A100-SXM4-80GB", 80, 80, 4, 16, 12, 2039}, {"a100-sxm4-80g"}},
      {{"a100-pcie", "A100-PCIE-40GB", 80, 40, 4, 16, 12, 1555}, {}},
      {{"a10", "A10", 86, 24, 4, 16, 0, 600}, {}},
      {{"l40s", "L40S", 89, 48, 4, 16, 0, 864}, {}},
      {{"rtx4090", "GeForce RTX 4090", 89, 24, 4, 16, 0, 1008}, {"4090"}},
      {{"rtx4090-48g", "GeForce RTX 4090 48GB", 89, 48, 4, 16, 0, 1008}, {}},
      {{"h100", "H100-SXM5-80GB", 90, 80, 5, 16, 18, 3350}, {"h100-sxm5", "h100-80g"}},
      {{"b200", "B200", 100, 180, 5, 16, 18, 8000}, {}},
  };
  return entries;
}

}  // namespace

const GpuModel* find_gpu_model(std::string_view name) {
  const std::string key = lower(name);
  for (const auto& entry : catalog()) {
    if (entry.model.name == key) return &entry.model;
    for (const auto& alias : entry.aliases)
      if (alias == key) return &entry.model;
  }
  return nullptr;
}

std::vector<std::string> gpu_model_names() {
  std::vector<std::string> names;
  for (const auto& entry : catalog()) names.push_back(entry.model.name);
  return names;
}

std::string sm_architecture(int sm) {
  if (sm >= 100) return "Blackwell";
  if (sm >= 90) return "Hopper";
  if (sm >= 89) return "Ada";
  if (sm >= 80) return "Ampere";
  if (sm >= 75) return "Turing";
  if (sm >= 70) return "Volta";
  if (sm >= 60) return "Pascal";
  return "pre-Pascal";
}

double nvlink_gbps_per_link(int sm) {
  // NCCL topo.h: SM60_NVLINK_BW 18.0, SM70_NVLINK_BW 20.0, SM80_NVLINK_BW 20.0,
  // SM86_NVLINK_BW 12.0, SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1.
  if (sm >= 100) return 40.1;
  if (sm >= 90) return 20.6;
  if (sm == 86) return 12.0;
  if (sm >= 70) return 20.0;
  return 18.0;
}

double nvlink_achieved_gbps_per_link(int sm) {
  constexpr double kPayloadShare = 128.0 / (128.0 + 16.0);  // 128-byte writes, one header flit
  if (sm >= 80) return nvlink_gbps_per_link(sm);
  if (sm >= 70) return 25.0 * kPayloadShare;
  return 20.0 * kPayloadShare;
}

double pcie_gbps(int gen, int width) {
  // NCCL topo.cc encodes GT/s per generation so that width * value / 80 is GB/s.
  static constexpr int kPerLane[] = {0, 15, 30, 60, 120, 240, 480};
  const int g = std::clamp(gen, 1, 6);
  return width * kPerLane[g] / 80.0;
}

double network_gbps(double speed_gbit) { return speed_gbit / 8.0; }

double cpu_interconnect_gbps(CpuKind kind) {
  switch (kind) {
    case CpuKind::IntelBroadwell: return 6.0;        // NCCL QPI_BW
    case CpuKind::IntelSkylake: return 10.0;         // NCCL SKL_QPI_BW
    case CpuKind::IntelSapphireRapids: return 22.0;  // NCCL SPR_QPI_BW
    case CpuKind::IntelEmeraldRapids: return 40.0;   // NCCL ERP_QPI_BW
    case CpuKind::Amd: return 16.0;                  // NCCL AMD_BW
    case CpuKind::Arm: return 6.0;                   // NCCL ARM_BW
    case CpuKind::Power9: return 32.0;               // NCCL P9_BW
  }
  return 6.0;
}

bool is_intel(CpuKind kind) {
  return kind == CpuKind::IntelBroadwell || kind == CpuKind::IntelSkylake || kind == CpuKind::IntelSapphireRapids ||
         kind == CpuKind::IntelEmeraldRapids;
}

std::optional<CpuKind> parse_cpu_kind(std::string_view name) { return parse_enum<CpuKind>(lower(name)); }

}  // namespace topsim
