// A training job as the simulator sees it: when it arrives, its pods and their GPU requests,
// what it trains (for the throughput model) and how much work it carries.
//
// Kept compact (a million-job workload must fit in well under 2 GB): names and unequal pod
// lists only exist for scenario-embedded jobs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/model_catalog.h"

namespace topsim {

// The throughput model's framework type (core/model_catalog.h), used as is.
using Framework = TrainingFramework;
const char* framework_name(Framework framework);  // "tensorflow", "pytorch"

// Which scheduler serves the job's pods (node label `ack.node.gpu.schedule`): `Topology` pods
// request `aliyun.com/gpu` and go to topology nodes; `Default` pods request `nvidia.com/gpu`.
enum class JobClass : uint8_t { Topology, Default };

inline constexpr uint16_t kNoModel = 0xFFFF;

struct JobSpec {
  uint32_t id = 0;                 // its index in Workload::jobs (0..N-1, in submission order)
  int64_t submit_ms = 0;           // arrival time, ms from the start of the simulation
  uint16_t workers = 1;            // pods (master + workers), all requesting gpus_per_worker
  uint16_t gpus_per_worker = 1;    // GPUs per pod
  Framework framework = Framework::PyTorch;
  uint16_t model = 0;              // index into the model catalog (core/model_catalog.h), or
                                   // kNoModel (a shared-GPU job that names none)
  uint16_t batch_per_gpu = 64;
  // A shared-GPU job (BRIEF section 3) when gpu_mem_gib > 0: one pod asking
  // `aliyun.com/gpu-mem: gpu_mem_gib` of one card and, when gpu_core_percent > 0,
  // `aliyun.com/gpu-core.percentage: gpu_core_percent` of its compute (workers and
  // gpus_per_worker are then 1). It runs for ideal_duration_ms: the speed of a share is not
  // modelled.
  uint16_t gpu_mem_gib = 0;
  uint8_t gpu_core_percent = 0;
  bool is_share() const { return gpu_mem_gib > 0; }
  // Work, one of the two (the other 0): iterations to run, or the job's duration in ms under
  // an ideal placement (a trace duration); the actual run time stretches with the placement's
  // throughput relative to the ideal one.
  int64_t iterations = 0;
  int64_t ideal_duration_ms = 0;
  // Non-empty only when pods request different counts: GPUs of each of the `workers` pods
  // (gpus_per_worker then holds the largest).
  std::vector<uint16_t> unequal_pod_gpus;
  // workers x gpus_per_worker, or the sum of unequal_pod_gpus when pods differ.
  int total_gpus() const {
    if (unequal_pod_gpus.empty()) return int{workers} * gpus_per_worker;
    int total = 0;
    for (uint16_t gpus : unequal_pod_gpus) total += gpus;
    return total;
  }
};

// Extra per-job data only scenario-embedded jobs carry (kept out of JobSpec for size).
struct JobExtras {
  std::string name;                                  // default "job-<id>"
  std::map<std::string, std::string> annotations;    // gpu.topology/* pod annotations
};

struct Workload {
  std::vector<JobSpec> jobs;                  // sorted by (submit_ms, id)
  std::map<uint32_t, JobExtras> extras;       // by job id; most trace jobs have none
  std::string source;                         // e.g. "philly.csv", "synthetic(seed=7)"
  std::string job_name(uint32_t id) const;
};

}  // namespace topsim
