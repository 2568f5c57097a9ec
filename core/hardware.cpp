#include "core/hardware.h"

#include <algorithm>
#include <array>
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

// One catalog GPU: name, product (nvidia-smi's name), SM, memory GiB, PCIe generation and
// lanes, NVLink ports, peak dense FP32 / TF32 / FP16 / FP8 TFLOPS, memory GB/s, board power W,
// GPU-feature-discovery product label, aliases.
CatalogEntry gpu(const char* name, const char* product, int sm, double memory_gib, int pcie_gen, int nvlinks,
                 std::array<double, 4> tflops, double memory_gbps, double tdp_w, const char* label,
                 std::vector<std::string> aliases = {}) {
  GpuModel m;
  m.name = name;
  m.product = product;
  m.sm = sm;
  m.memory_gib = memory_gib;
  m.pcie_gen = pcie_gen;
  m.max_nvlinks = nvlinks;
  m.fp32_tflops = tflops[0];
  m.tf32_tflops = tflops[1];
  m.fp16_tflops = tflops[2];
  m.fp8_tflops = tflops[3];
  m.memory_gbps = memory_gbps;
  m.tdp_w = tdp_w;
  m.gfd_product = label;
  return {std::move(m), std::move(aliases)};
}

// Figures from the vendors' data sheets (dense, i.e. half the "with sparsity" tensor figures
// NVIDIA prints from Ampere on), as collected in docs/catalog.md with each source and date:
// P100: Tesla P100 whitepaper (2016) and ISC 2016 PCIe announcement (9.3 TF, 250 W; the 12 GB
// PCIe card 549 GB/s). P40: 11.76 TF from its clocks (3840 cores x 1531 MHz x 2; TechPowerUp
// database), 24 GB GDDR5 347 GB/s, 250 W. V100: V100 datasheet r5 (SXM2 15.7 / 125 TF, PCIe 14 /
// 112, 900 GB/s, 300 / 250 W); SXM3 (DGX-2, 350 W) taken at SXM2's rates - no SXM3 sheet found.
// T4: T4 datasheet via gpu-specs (8.1 / 65 TF, 300 GB/s, 70 W). A10: A10 datasheet (31.2 / 62.5 /
// 125, 600 GB/s, 150 W). L4: L4 datasheet (30.3 / 60 / 121 / 242.5, 300 GB/s, 72 W). L40S: L40S
// datasheet (91.6 / 183 / 362 / 733, 864 GB/s, 350 W). RTX 4090: NVIDIA Ada Lovelace architecture
// whitepaper v2.02, Appendix A (82.6 FP32 and TF32, 165.2 FP16 and 330.3 FP8 with FP32
// accumulate, 1008 GB/s, 450 W). A100: A100 datasheet r4 (19.5 / 156 / 312; 1555 GB/s 40 GB,
// 2039 SXM4 80 GB, 1935 PCIe 80 GB; 400 W SXM4, 250 / 300 W PCIe). H100: SXM5 66.9 / 494.7 /
// 989.4 / 1978.9, 3350 GB/s, 700 W; PCIe product brief PB-11133 (51.2 / 378 / 756 / 1513,
// 2000 GB/s, 350 W). H200: H200 datasheet (SC23): H100 SXM's rates, 141 GB at 4800 GB/s, 700 W.
// B200 (HGX, 1000 W): 80 / 1100 / 2250 / 4500, 180 GB at 8000 GB/s (DGX B200 user guide; FP32
// 75 in another reseller copy - the higher figure is NVIDIA's). Labels: GPU feature discovery
// writes nvidia-smi's name with spaces as dashes (gpu-feature-discovery internal/lm/resource.go).
// GB200 (the B200-class GPU of GB200 NVL72, 1,200 W configuration): NVIDIA GB200 NVL72 data sheet
// (2024) rack figures over its 72 GPUs, halved for dense tensor rates: FP8 720 PF sparse -> 5,000,
// FP16/BF16 360 -> 2,500, TF32 180 -> 1,250 TFLOPS, FP32 5,760 TF -> 80; per GB200 superchip 384 GB
// HBM3e at 16 TB/s -> 192 GB and 8,000 GB/s per GPU; NVLink 5, 18 links (1.8 TB/s per GPU, both
// directions); 1,200 W per GPU (glennklockwood.com/garden/processors/B200, 2025, from NVIDIA's
// Blackwell data sheet). nvidia-smi names it "NVIDIA GB200".
// GB200 and GB300 host copies land in the Grace's LPDDR5X: 384 GB/s in its 480 GB configuration,
// the one NVL72 racks use (17 TB over 36 Graces; datacrunch-research/blogs @ f5752e8,
// gb300-technical-report: "up to 384 GB/s for 480 GB configs"), shared by the superchip's two
// GPUs: 192 GB/s each when both copy. NVLink-C2C, 900 GB/s both directions per superchip (GB200
// NVL72 data sheet), would give each 225 per direction. The lesser, 192; GB300 has the same Grace.
constexpr double kGraceHostCopyGbps = std::min(900.0 / 2 / 2, 384.0 / 2);
CatalogEntry on_grace(CatalogEntry entry) {
  entry.model.c2c_gbps = kGraceHostCopyGbps;
  return entry;
}
// RTX 3090: NVIDIA Ampere GA102 architecture whitepaper v2.0, Appendix A (35.6 FP32 and TF32
// dense, 71 FP16 with FP32 accumulate dense, 936 GB/s, 350 W); NVLink bridge of 4 NVLink 3 links
// (112.5 GB/s both directions), the links NCCL rates 12 GB/s on SM86 (topo.h). RTX A6000: RTX A6000
// data sheet (38.7 TFLOPS FP32 = 10,752 cores x 1,800 MHz x 2, tensor 309.7 sparse -> 154.8 FP16
// dense, TF32 half of it 77.4, 48 GB GDDR6 768 GB/s, 300 W, NVLink bridge 112.5 GB/s). RTX 6000
// Ada: RTX 6000 Ada data sheet (91.1 FP32, 1,457 FP8 sparse -> 728.5 dense, FP16 and TF32 halving
// each step, 48 GB 960 GB/s, 300 W, no NVLink). RTX 5090: 21,760 cores x 2,407 MHz boost x 2 = 104.8
// FP32; 838.4 FP16 tensor sparse with FP16 accumulate, GeForce's FP32 accumulate at half rate ->
// 209.5 dense, FP8 twice that; 32 GB GDDR7 1,792 GB/s; 575 W; PCIe Gen5, no NVLink (spheron.network
// "NVIDIA RTX 5090 Specs", 2026; codesota.com RTX 5090, 2026: "FP16 dense 209.5 TFLOPS").
// B300 (HGX B300, Blackwell Ultra, compute capability 10.3): NVIDIA's HGX B300 figures per GPU,
// dense: FP32 75, TF32 1,125, FP16/BF16 2,250, FP8 4,500 TFLOPS (glennklockwood.com/garden/
// processors/B300, 2025; the same in verda.com "NVIDIA GB300 NVL72: GPU Architecture &
// Performance", 2025); HBM3e at 8 TB/s; 275,040 MiB (268.6 GiB) as nvidia-smi reports it, the
// "288 GB" of the data sheet in decimal units; a 1,100 W power limit; nvidia-smi name "NVIDIA B300
// SXM6 AC", compute capability (10, 3) (nvidia-smi and torch outputs in public B300 benchmark
// logs, 2026); PCIe Gen6. GB300 (the Blackwell Ultra GPU of GB300 NVL72, 1,400 W): the GB300
// NVL72 rack figures over 72 GPUs, dense: FP8 360 PF -> 5,000, FP16/BF16 180 -> 2,500, TF32 90 ->
// 1,250 TFLOPS, FP32 80 as GB200 (verda.com, 2025); 279 GB per GPU (cloud.google.com A4X Max
// machine type: "roughly 279 GB per GPU"; 298,500,227,072 bytes = 278 GiB in a public device table
// for "NVIDIA GB300 NVL"), 8 TB/s; NVLink 5, 18 links, as GB200.
// Each SM version's first entry is what NCCL XML imports without a device id become.
const std::vector<CatalogEntry>& catalog() {
  static const std::vector<CatalogEntry> entries = [] {
    std::vector<CatalogEntry> list = {
        gpu("p100", "Tesla P100-SXM2-16GB", 60, 16, 3, 4, {10.6, 0, 0, 0}, 732, 300, "Tesla-P100-SXM2-16GB", {"p100-sxm2"}),
        gpu("p100-pcie", "Tesla P100-PCIE-16GB", 60, 16, 3, 0, {9.3, 0, 0, 0}, 732, 250, "Tesla-P100-PCIE-16GB"),
        gpu("p100-pcie-12g", "Tesla P100-PCIE-12GB", 60, 12, 3, 0, {9.3, 0, 0, 0}, 549, 250, "Tesla-P100-PCIE-12GB"),
        gpu("p40", "Tesla P40", 61, 24, 3, 0, {11.76, 0, 0, 0}, 347.1, 250, "Tesla-P40"),
        gpu("v100", "Tesla V100-SXM2-16GB", 70, 16, 3, 6, {15.7, 0, 125, 0}, 900, 300, "Tesla-V100-SXM2-16GB",
            {"v100-sxm2", "v100m16", "v100-16g"}),
        gpu("v100-32g", "Tesla V100-SXM2-32GB", 70, 32, 3, 6, {15.7, 0, 125, 0}, 900, 300, "Tesla-V100-SXM2-32GB",
            {"v100m32", "v100-sxm2-32g"}),
        gpu("v100-sxm3", "Tesla V100-SXM3-32GB", 70, 32, 3, 6, {15.7, 0, 125, 0}, 900, 350, "Tesla-V100-SXM3-32GB"),
        gpu("v100-pcie", "Tesla V100-PCIE-16GB", 70, 16, 3, 0, {14, 0, 112, 0}, 900, 250, "Tesla-V100-PCIE-16GB"),
        gpu("t4", "Tesla T4", 75, 16, 3, 0, {8.1, 0, 65, 0}, 300, 70, "Tesla-T4"),
        gpu("a100", "A100-SXM4-40GB", 80, 40, 4, 12, {19.5, 156, 312, 0}, 1555, 400, "NVIDIA-A100-SXM4-40GB",
            {"a100-sxm4", "a100-40g"}),
        gpu("a100-80g", "A100-SXM4-80GB", 80, 80, 4, 12, {19.5, 156, 312, 0}, 2039, 400, "NVIDIA-A100-SXM4-80GB",
            {"a100-sxm4-80g"}),
        gpu("a100-pcie", "A100-PCIE-40GB", 80, 40, 4, 12, {19.5, 156, 312, 0}, 1555, 250, "NVIDIA-A100-PCIE-40GB"),
        gpu("a100-pcie-80g", "A100 80GB PCIe", 80, 80, 4, 12, {19.5, 156, 312, 0}, 1935, 300, "NVIDIA-A100-80GB-PCIe"),
        gpu("a10", "A10", 86, 24, 4, 0, {31.2, 62.5, 125, 0}, 600, 150, "NVIDIA-A10"),
        gpu("l40s", "L40S", 89, 48, 4, 0, {91.6, 183, 362.05, 733}, 864, 350, "NVIDIA-L40S"),
        gpu("rtx4090", "GeForce RTX 4090", 89, 24, 4, 0, {82.6, 82.6, 165.2, 330.3}, 1008, 450, "NVIDIA-GeForce-RTX-4090",
            {"4090"}),
        gpu("rtx4090-48g", "GeForce RTX 4090 48GB", 89, 48, 4, 0, {82.6, 82.6, 165.2, 330.3}, 1008, 450, ""),
        gpu("l4", "L4", 89, 24, 4, 0, {30.3, 60, 121, 242.5}, 300, 72, "NVIDIA-L4"),
        gpu("h100", "H100-SXM5-80GB", 90, 80, 5, 18, {66.9, 494.7, 989.4, 1978.9}, 3350, 700, "NVIDIA-H100-80GB-HBM3",
            {"h100-sxm5", "h100-80g"}),
        gpu("h100-pcie", "H100 PCIe", 90, 80, 5, 0, {51.2, 378, 756, 1513}, 2000, 350, "NVIDIA-H100-PCIe"),
        gpu("h200", "H200", 90, 141, 5, 18, {67, 494.7, 989.5, 1979}, 4800, 700, "NVIDIA-H200", {"h200-sxm"}),
        gpu("b200", "B200", 100, 180, 5, 18, {80, 1100, 2250, 4500}, 8000, 1000, "NVIDIA-B200"),
        on_grace(gpu("gb200", "NVIDIA GB200", 100, 192, 5, 18, {80, 1250, 2500, 5000}, 8000, 1200, "NVIDIA-GB200")),
        // Workstation and consumer cards (appended: catalog indices stay as they were).
        gpu("rtx3090", "GeForce RTX 3090", 86, 24, 4, 4, {35.6, 35.6, 71, 0}, 936, 350, "NVIDIA-GeForce-RTX-3090", {"3090"}),
        gpu("rtx-a6000", "RTX A6000", 86, 48, 4, 4, {38.7, 77.4, 154.8, 0}, 768, 300, "NVIDIA-RTX-A6000", {"a6000"}),
        gpu("rtx6000-ada", "RTX 6000 Ada Generation", 89, 48, 4, 0, {91.1, 182.1, 364.2, 728.5}, 960, 300,
            "NVIDIA-RTX-6000-Ada-Generation", {"rtx-6000-ada", "6000-ada"}),
        gpu("rtx5090", "GeForce RTX 5090", 120, 32, 5, 0, {104.8, 104.8, 209.5, 419}, 1792, 575, "NVIDIA-GeForce-RTX-5090",
            {"5090"}),
        // Blackwell Ultra (appended, as above).
        gpu("b300", "NVIDIA B300 SXM6 AC", 103, 268.6, 6, 18, {75, 1125, 2250, 4500}, 8000, 1100, "NVIDIA-B300-SXM6-AC",
            {"b300-sxm6"}),
        on_grace(gpu("gb300", "NVIDIA GB300 NVL", 103, 278, 6, 18, {80, 1250, 2500, 5000}, 8000, 1400, "NVIDIA-GB300-NVL")),
    };
    for (size_t i = 0; i < list.size(); ++i) list[i].model.catalog_index = static_cast<int>(i);
    return list;
  }();
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

const GpuModel* find_gpu_by_product_label(std::string_view label) {
  std::string key = lower(label);
  for (const char* suffix : {"-shared", "-mig-"})
    if (const size_t at = key.find(suffix); at != std::string::npos) key.erase(at);
  const auto bare = [](std::string text) { return text.rfind("nvidia-", 0) == 0 ? text.substr(7) : text; };
  for (const auto& entry : catalog()) {
    const std::string known = lower(entry.model.gfd_product);
    if (!known.empty() && (known == key || bare(known) == bare(key))) return &entry.model;
  }
  return nullptr;
}

const GpuModel* gpu_at(int index) {
  const auto& entries = catalog();
  return index >= 0 && index < static_cast<int>(entries.size()) ? &entries[static_cast<size_t>(index)].model : nullptr;
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

double host_copy_gbps(const GpuModel& gpu) { return gpu.c2c_gbps > 0 ? gpu.c2c_gbps : pcie_gbps(gpu.pcie_gen, gpu.pcie_width); }

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
