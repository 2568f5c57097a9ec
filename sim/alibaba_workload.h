// The Alibaba GPU trace 2023 pod list replayed over time as whole-GPU training jobs: each pod
// asking whole GPUs (gpu_milli 1000) becomes a job of one pod with num_gpu GPUs, arriving at its
// creation time and running for its recorded run time (scheduled -> deletion, or creation ->
// deletion when the scheduled time is absent) under an ideal placement. Pods sharing a GPU
// (gpu_milli < 1000), CPU-only pods and pods without times are not whole-GPU jobs: they are
// skipped and counted in Workload::source, never rounded. GPU-sharing replay is fill mode's
// domain (sim/fill_experiment.h). Models are drawn with the shared seeded mix (workload_mix.h).
#pragma once

#include <cstdint>
#include <string>

#include "core/expected.h"
#include "sim/job.h"

namespace topsim {

struct AlibabaJobOptions {
  uint64_t seed = 1;  // seed of the model / framework draw; default 1
};

// Errors: the trace reader's (file, line, column), or a pod list without creation/deletion
// times (the 5-column multigpu variants).
Expected<Workload> load_alibaba_jobs(const std::string& pod_list_path, const AlibabaJobOptions& options = {});

}  // namespace topsim
