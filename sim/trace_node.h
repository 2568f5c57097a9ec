// A node as a trace's node list describes it (the Alibaba GPU trace 2023, FGD's experiment): a
// name, CPU and memory, and a count of GPUs of one of the trace's GPU types, without topology.
// The cluster holds such nodes in milli mode (sim/cluster.h); formats/traces/alibaba_trace.h
// reads them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/gpu_share.h"

namespace topsim {

// The trace's GPU types; a type index is the position in this list.
inline constexpr std::array<std::string_view, 7> kAlibabaGpuModels = {"G2", "G3", "T4", "P100", "V100M16", "V100M32", "A10"};
std::optional<int> alibaba_gpu_type(std::string_view model);  // exact, case-sensitive
std::string_view alibaba_gpu_type_name(int type);             // "?" when out of range

struct TraceNode {
  std::string name;  // sn
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpu_count = 0;
  int gpu_type = -1;  // index into kAlibabaGpuModels; -1 for CPU-only nodes
};

// A `milli`-mode node of the trace: its cards in thousandths, its CPU and memory (no per-card
// memory accounting).
ShareNode trace_share_node(const TraceNode& node);

}  // namespace topsim
