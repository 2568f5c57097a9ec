// Readers of the Alibaba GPU cluster trace 2023 (clusterdata cluster-trace-gpu-v2023, the trace
// of FGD, "Beware of Fragmentation", USENIX ATC '23) as shipped in ../shared/traces/alibaba-gpu-v2023/:
// - node lists `openb_node_list_*.csv`: `sn,cpu_milli,memory_mib,gpu,model` (0-GPU rows are
//   CPU-only nodes with an empty model);
// - pod lists `openb_pod_list_*.csv`: `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
//   pod_phase,creation_time,deletion_time,scheduled_time` (times in seconds, may be empty), or
//   only the first five columns (the `multigpu*` variants).
//
// The readers stream: one pass over the file, one row at a time, handed to a callback. The
// header must match one of the layouts exactly. Fields are plain comma-separated text (the trace
// has no quoting). The first problem stops the read with one line naming the source, line and
// column, e.g. "openb_pod_list_x.csv:17: column gpu_milli: -5 is negative". Checked: missing or
// extra fields, non-numeric or negative numbers, GPU models outside the trace's seven types
// (G2, G3, T4, P100, V100M16, V100M32, A10) in `model` and in `gpu_spec` (`A|B`, empty = any).
// Values that are well-formed but not schedulable (gpu_milli 0 or above 1000, ...) are left to
// validate_request, which rejects the pod at submission.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_share.h"
#include "sim/tenant_names.h"
#include "sim/trace_node.h"
#include "util/expected.h"

namespace topsim {

struct TracePod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;
  int gpu_milli = 0;             // per GPU, thousandths
  uint32_t gpu_type_mask = 0;    // gpu_spec as a bit set over kAlibabaGpuModels; 0 = any
  std::string qos;               // empty in 5-column files
  std::string pod_phase;         // empty in 5-column files
  int64_t creation_time_s = -1;  // -1 = absent (5-column files, empty field)
  int64_t deletion_time_s = -1;
  int64_t scheduled_time_s = -1;
};

using TraceNodeSink = std::function<void(TraceNode&&)>;
using TracePodSink = std::function<void(TracePod&&)>;

// Stream readers; `source` prefixes errors (normally the path).
Status read_node_list(std::istream& in, std::string_view source, const TraceNodeSink& sink);
Status read_pod_list(std::istream& in, std::string_view source, const TracePodSink& sink);
// File readers; the error names the path as given.
Status load_node_list(const std::string& path, const TraceNodeSink& sink);
Status load_pod_list(const std::string& path, const TracePodSink& sink);
Expected<std::vector<TraceNode>> load_node_list(const std::string& path);
Expected<std::vector<TracePod>> load_pod_list(const std::string& path);

// The scheduling request of a trace pod: num_gpu 0 is a CPU-only pod (gpu_milli ignored),
// otherwise `num_gpu` cards of `gpu_milli` thousandths each (GpuAskKind::Milli).
PodRequest trace_pod_request(const TracePod& pod);

// The pod's `qos` (LS, BE, Burstable, Guaranteed: the trace's only tenant-like column) as its
// queue: its index in `queues`, or kNoQueue when empty (the 5-column files have no qos). Error,
// naming `source` and the pod, when the name is new and `queues` is full.
Expected<uint16_t> trace_pod_queue(const TracePod& pod, std::string_view source, NameTable& queues);

}  // namespace topsim
