#include "sim/trace_node.h"

namespace topsim {

std::optional<int> alibaba_gpu_type(std::string_view model) {
  for (size_t i = 0; i < kAlibabaGpuModels.size(); ++i) {
    if (kAlibabaGpuModels[i] == model) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string_view alibaba_gpu_type_name(int type) {
  return type >= 0 && type < static_cast<int>(kAlibabaGpuModels.size()) ? kAlibabaGpuModels[static_cast<size_t>(type)] : "?";
}

ShareNode trace_share_node(const TraceNode& node) {
  return make_share_node(node.name, NodeMode::Milli, node.gpu_type, node.gpu_count, 0, node.cpu_milli, node.memory_mib);
}

}  // namespace topsim
