// The GPU models of an `nvidia-smi topo -m` import (formats/hardware/topo_m_import.h): one
// `--gpu-model` for every GPU, per-GPU ranges for a box that mixes cards, or the model the NVLink
// counts name where only one catalog generation fits them. Internal to formats/hardware.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/hardware.h"
#include "util/expected.h"

namespace topsim {

// The NVLinks of the matrix's GPU pairs.
struct NvLinkCounts {
  std::set<int> counts;       // NV# counts seen between GPUs
  bool uniform_mesh = false;  // every GPU pair is NV# with one count (>= 2 GPUs)
};

// The model of each of `gpus` GPUs from `option` ("" = infer; "h100"; "0-1=rtx5090,2-4=rtx4090",
// every GPU once). What was inferred is appended to `notes`. Errors (without a line; the caller
// names it) say what to pass: "NV6 between every pair of 4 GPUs fits ...: pass --gpu-model ...".
[[nodiscard]] Expected<std::vector<const GpuModel*>> topo_m_gpu_models(const std::string& option, int gpus,
                                                                       const NvLinkCounts& nv, std::vector<std::string>& notes);

// "8 x H100-SXM5-80GB", or "2 x GeForce RTX 5090 + 3 x GeForce RTX 4090" for a mixed box.
std::string gpu_summary(const std::vector<const GpuModel*>& models);

}  // namespace topsim
