// The Alibaba GPU trace 2023 pod list replayed over time: each pod asking whole GPUs
// (gpu_milli 1000) becomes a training job of one pod with num_gpu GPUs, arriving at its
// creation time and running for its recorded run time (scheduled -> deletion, or creation ->
// deletion when the scheduled time is absent) under an ideal placement. Models are drawn with
// the shared seeded mix (workload_mix.h).
//
// Pods sharing a GPU (gpu_milli < 1000) are skipped and counted in Workload::source unless
// `share_card_gib` is set: then each becomes a shared-GPU job (JobSpec::gpu_mem_gib) asking
// the memory that fraction is of a card of that size, in whole GiB rounded up (the service
// allocates whole GiB): ceil(gpu_milli x share_card_gib / 1000); with `share_core` also the
// compute share gpu_milli / 10 percent rounded up to the service's multiple of 5. The trace
// expresses shares as fractions only; this is the stated conversion to the service's units.
// CPU-only pods and pods without times are always skipped and counted.
//
// Each job's queue is its pod's `qos` (trace_pod_queue: LS, BE, ..., the trace's only tenant-like
// column), names in order of first appearance among the sorted jobs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "sim/job.h"
#include "sim/workload/workload_mix.h"
#include "util/expected.h"

namespace topsim {

struct AlibabaJobOptions {
  uint64_t seed = 1;        // seed of the model / framework draw; default 1
  int share_card_gib = 0;   // > 0: shared pods become gpu-mem jobs on cards of this size; default 0 (skip)
  bool share_core = false;  // with share_card_gib: add gpu-core.percentage; default false
};

// The conversion above, for one shared pod: (GiB, core percent or 0).
std::pair<int, int> alibaba_share_units(int gpu_milli, int share_card_gib, bool share_core);

// What the trace's whole-GPU pods train: the default model mix, half TensorFlow.
TrainingDraw alibaba_training_draw();

// Errors: the trace reader's (file, line, column), or a pod list without creation/deletion
// times (the 5-column multigpu variants).
Expected<Workload> load_alibaba_jobs(const std::string& pod_list_path, const AlibabaJobOptions& options = {});

}  // namespace topsim
