// What a run's job metrics need from its jobs, gathered one job at a time as each record
// becomes final (finished, rejected, failed, or whatever it was when the run ended), so a run
// need not keep a million records to report on them: counts, the per-job values of the
// distributions (sim/metrics.h), sums per model and the first distinct rejection reasons.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/job_record.h"

namespace topsim {

// by_model's key of an LLM (core/llm_catalog.h): its catalog index with the top bit set, apart
// from the DNN catalog's indices.
inline constexpr uint16_t kLlmModelKeyBit = 0x8000;
uint16_t llm_model_key(const LlmModel& model);
// The LLM of a by_model key, or nullptr for a DNN catalog index.
const LlmModel* llm_of_model_key(uint16_t key);
// Whether `job` trains an image model (its throughput is in images/s).
bool trains_images(const JobSpec& job);

struct JobTally {
  struct ModelSums {
    uint64_t jobs = 0;  // started jobs training the model with the framework
    double samples_per_sec = 0, ideal_samples_per_sec = 0;
  };
  struct LlmStepSums {
    uint64_t jobs = 0;
    LlmStep sum;  // every figure summed over the started jobs
  };
  struct NodeTypeSums {
    uint64_t jobs = 0;           // training jobs the type paced (JobRecord::pace_type)
    uint64_t llm_jobs = 0;       // those of them that train an LLM
    double gpu_ms = 0;           // GPU time finished training jobs spent on the type's nodes
    double samples_per_sec = 0;  // summed whole-job throughput of the other jobs (images/s, samples/s)
    double tokens_per_sec = 0;   // summed whole-job throughput of the LLM jobs
  };
  // One tenant's jobs (RunOutput::tenants).
  struct TenantSums {
    uint64_t jobs = 0, finished = 0, started = 0;
    std::vector<double> waits, jcts;  // of its finished jobs, seconds (wait: to the first start)
    uint64_t evictions = 0, evicted_jobs = 0;
    double lost_gpu_ms = 0;  // GPU time preemption cost its jobs
  };
  static constexpr size_t kMaxRejections = 10;

  uint64_t jobs = 0, placed = 0, finished = 0, rejected = 0, failed = 0, stuck = 0, never_placed = 0, shares = 0;
  uint64_t topology_placed = 0, fallbacks = 0, multi_gpu = 0, cross_numa = 0, efficiency_jobs = 0;
  double efficiency_sum = 0;
  uint64_t contended = 0;       // started jobs that ran slowed by uplinks shared with other jobs
  double contended_gpu_ms = 0;  // their GPUs x the time they ran slowed
  std::vector<double> waits, jcts, share_waits, images_per_sec, ring_gbps;  // seconds; images/s; GB/s
  std::vector<double> llm_mfus;                                             // started LLM jobs' MFU
  std::map<std::pair<uint16_t, TrainingFramework>, ModelSums> by_model;     // (model key, framework)
  std::map<uint16_t, LlmStepSums> llm_steps;                                // by llm_model_key
  std::map<int, NodeTypeSums> by_node_type;                                 // by the cluster's node type index
  std::vector<std::string> rejections;                                      // "job: reason", first distinct ones
  std::set<std::string> rejection_reasons;                                  // those reasons
  std::map<int, TenantSums> by_tenant;                                      // by RunOutput::tenants index
  // Where jobs' GPU time went when they stop before their end or write checkpoints (GPU-ms):
  // restarts, checkpoint writes, waits between a stop and a restart; and over finished training
  // jobs, the GPU time from first start to finish and the part of it whose training counted,
  // and each such job's effective training time ratio.
  double restart_gpu_ms = 0, checkpoint_gpu_ms = 0, requeue_gpu_ms = 0, wall_gpu_ms = 0, productive_gpu_ms = 0;
  std::vector<double> ettrs;
  // The finished training job with the most GPUs among those failures interrupted (the first such
  // job added on a tie): its time from first start to finish, and its interruptions.
  struct Interrupted {
    double gpus = 0, wall_ms = 0;
    uint32_t interruptions = 0;
  } largest_interrupted;

  // Counts `job` of `workload` with its final record; `cluster`: the one it ran on (null: no
  // per-node-type sums); `tenant`: its tenant's index, -1 when it has none.
  void add(const Workload& workload, const JobSpec& job, const JobRecord& record, const ClusterState* cluster = nullptr,
           int tenant = -1);
};

}  // namespace topsim
