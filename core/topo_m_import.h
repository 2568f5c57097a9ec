// Import of `nvidia-smi topo -m` text into a NodeModel.
//
// Accepts real-world variants: `#` comment lines, a leading "nvidia-smi topo -m" line, tab or
// space separated columns, NIC rows/columns (named `NIC#` with a "NIC Legend", or directly by
// device name such as `mlx5_0`), optional `CPU Affinity`, `NUMA Affinity` and `GPU NUMA ID`
// columns, trailing legends, and several matrices in one file (`matrix` picks one, 1-based).
//
// The PCIe tree is reconstructed from the link classes (PIX < PXB < PHB < NODE < SYS) by
// grouping devices level by level; pairs hidden behind NVLink carry no PCIe evidence. The GPU
// generation is not in the text: it comes from `gpu_model`, else it is inferred from the NVLink
// counts (NV18 -> h100, NV12 -> a100, NV1/NV2/NV6 -> v100) and the inference is reported in
// `notes`. A matrix without NVLink and no `gpu_model` is an error, never a guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/hardware.h"
#include "core/node_model.h"

namespace topsim {

struct TopoImportOptions {
  std::string gpu_model;           // GPU catalog name; default "" = infer from NVLink counts
  int matrix = 1;                  // which matrix in the text, 1-based; default 1
  std::optional<CpuKind> cpu;      // CPU kind of every NUMA node; default: inferred from GPU era
  double nic_speed_gbit = 100;     // speed of imported NICs (not in the text); default 100
  std::string node_name;           // model name; default: derived from the source name
};

struct TopoImportResult {
  NodeModel model;
  std::vector<std::string> notes;  // what was inferred or assumed, one line each
};

// `source_name` (usually the file path) prefixes every error: "<source>:<line>: <what>".
Expected<TopoImportResult> import_topo_m(std::string_view text, std::string_view source_name,
                                          const TopoImportOptions& options = {});

}  // namespace topsim
