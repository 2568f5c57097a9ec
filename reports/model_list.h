// `topsim topo models`: the built-in node models as a table and as JSON (for scripts).
#pragma once

#include <string>

namespace topsim {

// NAME, GPUS and the one-line summary.
std::string render_model_table();
// {"models": [{"name", "summary", "gpus", "gpu_models", "gpu_memory_gib", "numa_nodes",
// "nvlink": "nvswitch" | "bonds" | "none", "nics": [{"name", "speed_gbit", "transport"}]}],
// "gpus": [{"name", "product", "product_label", "sm", "memory_gib", "memory_gbps", "tflops",
// "tdp_w", "reference_node", "training": {"anchor", "speed_ratio", "derivation",
// "resnet50_pytorch_images_per_sec"}}]},
// 2-space indent, in catalog order.
std::string render_model_json();

}  // namespace topsim
