// Import of `nvidia-smi topo -m` text into a NodeModel.
//
// Accepts real-world variants: `#` comment lines, a leading "nvidia-smi topo -m" line, tab or
// space separated columns, NIC rows/columns (named `NIC#` with a "NIC Legend", or directly by
// device name such as `mlx5_0`), optional `CPU Affinity`, `NUMA Affinity` and `GPU NUMA ID`
// columns, trailing legends, and several matrices in one file (`matrix` picks one, 1-based).
//
// The PCIe tree is reconstructed from the link classes of the pairs that are not NVLink (PIX <
// PXB < PHB < NODE < SYS) by single linkage: devices joined at PIX share a leaf switch, at PXB a
// top switch, at PHB a host bridge, at NODE (or by equal `NUMA Affinity`, else equal `CPU
// Affinity`) a NUMA node, which keeps its OS id. Pairs hidden behind NVLink carry no PCIe
// evidence. The result is built with `Topology` and every pair of the matrix is checked against
// it; evidence no tree can reproduce is an error naming the pair.
//
// NVLink: a pair with NV# is a direct bond, unless every GPU pair is NV# with one count c and
// (GPUs - 1) x c exceeds the GPU model's NVLink ports: then it is an NVSwitch fabric with c links
// per GPU. The GPU generation is not in the text: it comes from `gpu_model`, else it is inferred
// from the NVLink counts (NV18 -> h100, NV12 -> a100, NV6 on an NVSwitch -> v100-sxm3, NV1/NV2
// -> v100) and the inference is reported in `notes`. A matrix without NVLink and no `gpu_model`
// is an error, never a guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/hardware.h"
#include "core/node_model.h"
#include "util/expected.h"

namespace topsim {

struct TopoImportOptions {
  std::string gpu_model;                      // GPU catalog name; default "" = infer from NVLink counts
  int matrix = 1;                             // which matrix in the text, 1-based; default 1
  std::optional<CpuKind> cpu;                 // CPU kind of every NUMA node; default by GPU era: sm 80 amd,
                                              // sm 90 intel-sapphire-rapids, sm >= 100 intel-emerald-rapids,
                                              // else intel-skylake (reported in `notes`)
  double nic_speed_gbit = 100;                // speed of imported NICs (not in the text); default 100.
                                              // Transport is guessed from the name: mlx5*/ib* InfiniBand
                                              // unless it contains "eth", else Ethernet
  std::string node_name;                      // model name; default: the source's file stem
  std::optional<NicTransport> nic_transport;  // transport of every NIC; default: guessed as above
};

struct TopoImportResult {
  NodeModel model;
  std::vector<std::string> notes;  // what was inferred or assumed, one line each
};

// `source_name` (usually the file path) prefixes every error: "<source>:<line>: <what>", one line.
// Errors: no matrix / empty input, header without GPU columns, non-square or incomplete matrix
// (naming the missing rows), rows out of order or not in the header, unknown link codes,
// asymmetric pairs, a diagonal other than X, NVLinks beyond the GPU's ports, conflicting NUMA
// evidence, link classes that are not tree-consistent, unknown `gpu_model`, `matrix` out of range.
Expected<TopoImportResult> parse_topo_m(std::string_view text, std::string_view source_name,
                                        const TopoImportOptions& options = {});

}  // namespace topsim
