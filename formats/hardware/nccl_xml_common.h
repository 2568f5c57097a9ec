// Internal to core: the facts and helpers shared by the NCCL topology XML export
// (nccl_xml.cpp) and import (nccl_xml_import.cpp) — PCI class codes, the NVIDIA PCI device-id
// table, PCIe link defaults, CPU identity <-> CpuKind mapping, CPU list <-> hex cpumask
// conversion and XML attribute escaping. Not part of the public API (see nccl_xml.h); it needs
// only the standard library, so pugixml stays out of every header.
//
// Sources for the format and its semantics: NCCL src/graph/xml.cc (what a dump holds),
// src/graph/topo.cc (how NCCL reads it back: kvDictPciClass, kvDictPciGen, ncclTopoAddCpu,
// ncclTopoAddPci, ncclTopoAddNvLinks) and the real files in ../shared/topologies/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/hardware.h"

namespace topsim::nccl_xml_detail {

// PCI class codes (PCI SIG class code list). NCCL topo.cc kvDictPciClass matches "0x03" (GPU) and
// "0x02" (NIC) as prefixes; 0x068000 is an NVSwitch, 0x068001 NCCL's class for an NVLink to the
// CPU (POWER9); anything else is a PCI bridge to NCCL.
inline constexpr std::string_view kClassBridge = "0x060400";
inline constexpr std::string_view kClassGpu = "0x030200";
inline constexpr std::string_view kClassEthernetNic = "0x020000";
inline constexpr std::string_view kClassInfiniBandNic = "0x020700";
inline constexpr std::string_view kClassNvSwitch = "0x068000";
inline constexpr std::string_view kClassCpu = "0x068001";
inline constexpr std::string_view kClassPrefixGpu = "0x03";
inline constexpr std::string_view kClassPrefixNic = "0x02";
inline constexpr std::string_view kClassPrefixInfiniBand = "0x0207";

// NVIDIA (vendor 0x10de) PCI device ids of the catalog GPUs, from the public PCI ID database
// (pci-ids.ucw.cz). Import maps an id back to the first model listing it.
struct GpuDeviceId {
  std::string_view model;
  unsigned device_id;
};
inline constexpr GpuDeviceId kGpuDeviceIds[] = {
    {"p100", 0x15f9},
    {"v100", 0x1db1},
    {"v100-32g", 0x1db5},
    {"v100-sxm3", 0x1db8},
    {"t4", 0x1eb8},
    {"a100", 0x20b0},
    {"a100-80g", 0x20b2},
    {"a100-pcie", 0x20f1},
    {"a10", 0x2236},
    {"l40s", 0x26b9},
    {"rtx4090", 0x2684},
    {"rtx4090-48g", 0x2684},
    {"h100", 0x2330},
    {"b200", 0x2901},
    // PCI ids of the cards added with the current catalog (the PCI ID repository, pci-ids.ucw.cz).
    {"p100-pcie", 0x15f8},
    {"p100-pcie-12g", 0x15f7},
    {"p40", 0x1b38},
    {"v100-pcie", 0x1db4},
    {"a100-pcie-80g", 0x20b5},
    {"l4", 0x27b8},
    {"h100-pcie", 0x2331},
    {"h200", 0x2335},
    // Workstation and consumer cards (pci-ids.ucw.cz, vendor 10de: GA102 [GeForce RTX 3090] 2204,
    // GA102GL [RTX A6000] 2230, AD102GL [RTX 6000 Ada Generation] 26b1, GB202 [GeForce RTX 5090] 2b85).
    {"rtx3090", 0x2204},
    {"rtx-a6000", 0x2230},
    {"rtx6000-ada", 0x26b1},
    {"rtx5090", 0x2b85},
};

// The PCI device id of a catalog GPU model; nullopt when the table does not list it.
std::optional<unsigned> gpu_device_id(std::string_view model);

// NCCL topo.cc: a missing link width means x16, an unknown link speed Gen3.
inline constexpr int kDefaultPcieGen = 3;
inline constexpr int kDefaultPcieWidth = 16;

struct PcieLink {
  int gen = kDefaultPcieGen;
  int width = kDefaultPcieWidth;
};

// What NCCL reads from <cpu> (topo.cc ncclTopoAddCpu): arch; on x86_64 also vendor, and for Intel
// familyid/modelid, from which it picks the inter-socket bandwidth (see intel_cpu_kind).
struct CpuIdentity {
  std::string_view arch;
  std::string_view vendor;  // empty: not written (non-x86)
  int family_id = 0;
  int model_id = 0;
};

// CPUID family / model of a representative part of each kind (Intel SDM; AMD Zen 2 = 23/49).
CpuIdentity cpu_identity(CpuKind kind);

// NCCL topo.cc: family 6 with model >= 0xCF is Emerald Rapids, >= 0x8F Sapphire Rapids,
// >= 0x55 Skylake; every other Intel CPU is treated as Broadwell (QPI).
CpuKind intel_cpu_kind(int family_id, int model_id);

std::string lower(std::string_view text);

bool starts_with(std::string_view text, std::string_view prefix);

// Decimal, or hexadecimal after "0x" (NCCL reads numbers with strtol(..., 0)); the whole text
// must be the number.
std::optional<long long> parse_integer(std::string_view text);

// ---------------------------------------------------------------------------------------------
// CPU affinity: the model's list form ("0-11,24-35") and NCCL's cpumask form (32-bit groups as
// 8 hex digits, most significant first, comma-separated: "00000000,0fff0fff").

std::optional<std::vector<int>> parse_cpu_list(std::string_view list);

std::string format_cpu_list(const std::vector<int>& sorted_cpus);

std::string cpu_mask(const std::vector<int>& cpus);

// nullopt when `mask` is not comma-separated groups of 1-8 hex digits.
std::optional<std::string> cpu_list_from_mask(std::string_view mask);

// `text` with &, <, > and " replaced by XML entities, for an attribute value.
std::string escape_xml(std::string_view text);

}  // namespace topsim::nccl_xml_detail
