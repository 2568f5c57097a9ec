// A seeded synthetic workload (docs/workloads.md): Poisson arrivals, a weighted mix of job
// sizes in GPUs, the shared model / framework mix, and log-normal durations taken as run times
// under an ideal placement. Used for load sweeps and the 1,000,000-job benchmark.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/job.h"
#include "sim/workload/tenant_mix.h"
#include "sim/workload/workload_mix.h"
#include "util/expected.h"

namespace topsim {

struct SizeShare {
  int gpus = 1;       // GPUs of the whole job; above gpus_per_node it becomes a gang (gang_shape)
  double weight = 0;  // relative share, >= 0
};

struct SyntheticOptions {
  uint64_t seed = 1;                  // the generator's only source of randomness; default 1
  uint32_t jobs = 1000;               // number of jobs; default 1000
  double arrival_rate_per_hour = 60;  // Poisson arrival rate; default 60 (one a minute on average)
  // Job sizes; default 1 GPU 50%, 2 20%, 4 15%, 8 10%, 16 5%.
  std::vector<SizeShare> size_mix = {{1, 0.5}, {2, 0.2}, {4, 0.15}, {8, 0.1}, {16, 0.05}};
  int gpus_per_node = 8;                                    // the gang rule's pod limit; default 8
  std::vector<ModelShare> model_mix = default_model_mix();  // default: default_model_mix()
  double tensorflow_share = 0.5;                            // share of TensorFlow jobs, the rest PyTorch; default 0.5
  // The GPU the durations are taken as measured on: an LLM of the mix is drawn only for jobs whose
  // size it fits there (TrainingDraw); default null: for any job.
  const GpuModel* reference_gpu = nullptr;
  // Ideal run time ~ LogNormal(ln(median), sigma): median_duration_minutes is the median,
  // sigma the standard deviation of the log (1.0: the middle 50% lie within x0.51..x1.96 of the
  // median, mean = median x e^(sigma^2/2) = 1.65 x median). Defaults 60 minutes and 1.0.
  double median_duration_minutes = 60;
  double duration_sigma = 1.0;
  // Each job's queue (tenant) and priority class, drawn from these shares (tenant_mix.h);
  // default none: the jobs name no queue and no class.
  std::vector<NamedShare> tenants;
  std::vector<NamedShare> priority_classes;
  // The GPU model each job selects (JobSpec::gpu_models), drawn from these shares: a GPU model a
  // job may select (selectable_gpu_model), or "any" for none; default none: no job selects one.
  std::vector<NamedShare> gpu_models;
};

// OK when jobs >= 1, the rate, median and gpus_per_node are positive, sigma >= 0, every size is
// 1..65535 GPUs with a weight >= 0 and the weights sum above 0, and the model mix and
// TensorFlow share are valid, and so are the tenant and priority class mixes (at most 65,534
// tenants and 254 classes) and the GPU model mix (GPU models or "any"). Errors start with
// "synthetic options: ".
Status validate(const SyntheticOptions& options);

// The workload: job i arrives at the sum of i exponential gaps of mean 1/rate (job 0 at 0 ms),
// rounded to whole ms; ideal durations are clamped to [1 ms, 365 days]. Per job, in id order,
// the draws are: gap, size, model, framework, duration (two uniforms); the queue and class come
// from streams of their own (tenant_mix.h), and so does the GPU model a job selects. Same options -> the same workload, on any
// platform. Workload::source is "synthetic(seed=<seed>)". REQUIRES: validate(options).ok()
Workload generate_synthetic(const SyntheticOptions& options);

// The same jobs, made on demand: Workload::generator replays the draws for each reader, so a run
// holds only its open jobs (88 bytes a job less). Creating it reads the jobs once for their span.
// REQUIRES: validate(options).ok()
Workload stream_synthetic(const SyntheticOptions& options);

}  // namespace topsim
