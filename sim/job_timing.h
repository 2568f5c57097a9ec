// How fast a started training job runs where it was placed, and so how long it runs: its
// predicted throughput over its communication path (core/throughput.h), the throughput of the
// ideal placement (the topology-aware allocator's choice on idle nodes of the type it runs on),
// and its run time. A job whose pods sit on nodes of several types runs at the pace of the type
// it is slowest on with that placement (each rank's step waits for the slowest rank), and its
// ideal is the fastest of those types' ideal placements: a gang spread onto slower cards loses
// placement efficiency. A job given by iterations runs iterations x step time. A job given by a
// duration (a trace's, a synthetic draw's) carries work measured on its reference hardware:
// work = duration x the job's throughput on an ideal placement of the reference GPU's node
// (core/builtin_models.h reference_node_model, on the cluster's network), and it runs work / its
// throughput where it was
// placed - so an H100 finishes a V100-measured job sooner. Without a reference GPU (a job list
// on a cluster of one GPU model) the reference is the node type the job runs on.
//
// An LLM job (JobSpec::llm) is timed by the parallel step model (core/llm_step.h) on the links its
// placement gives its parallel groups (core/llm_links.h): ranks are its pods in rank order, each
// pod's GPUs ascending; with host networking (topology-aware gangs) groups across pods of one node
// talk over the node's links, without it over pod sockets. Its throughput is in tokens/s, an
// iteration is a training step; steps are cached by (configuration, links). A job whose
// micro-batch is "auto" runs on each node type the fastest that fits on idle nodes of it (a tuned
// run's choice for that hardware); placed on several types, the smallest of their choices.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>

#include "core/llm_links.h"
#include "core/network_model.h"
#include "core/throughput.h"
#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/job_record.h"

namespace topsim {

struct JobTiming {
  double samples_per_sec = 0;
  double ideal_samples_per_sec = 0;
  double work_samples = 0;             // samples the job processes in all (0: runs forever or unknown)
  std::shared_ptr<const LlmStep> llm;  // an LLM job's step
  int64_t run_ms = 0;
  int node_type = -1;       // the node type that paces it (JobTimer::pace_type)
  bool cross_numa = false;  // some node holds GPUs of this job on several NUMA nodes
};

class JobTimer {
 public:
  // REQUIRES: `cluster` outlives the timer, and `caches` (may be null) too. `reference_gpu`: the
  // workload's reference GPU (a catalog name; empty: the node type each job runs on). With
  // `caches`, reference node types are this thread's kept ones (warm allocator memos).
  JobTimer(const ClusterState& cluster, const NetworkModel& network, const OverlapModel& overlap,
           const std::string& reference_gpu = "", std::shared_ptr<const std::vector<LlmJob>> llm_jobs = nullptr,
           ThreadCaches* caches = nullptr);

  // REQUIRES: a training job whose pods and communication path are in `record`.
  JobTiming time(const JobSpec& job, const JobRecord& record);
  // Its throughput (samples/s, tokens/s for an LLM) when its traffic between nodes gets `factor`
  // (0 < factor <= 1) of the bandwidth its placement needs: the paths that cross nodes run at
  // that fraction (uplinks shared with other jobs, sim/link_shares.h). 0 without a model.
  double rate_at(const JobSpec& job, const JobRecord& record, double factor);
  // How long `job` runs on the ideal placement on idle nodes of the cluster's node type
  // `node_type` (what time() gives it placed so); a job that is not training, its duration.
  int64_t ideal_run_ms(const JobSpec& job, int node_type);

 private:
  Expected<ThroughputEstimate> throughput(const JobSpec& job, const NodeType& type, const CommPath& path) const;
  // Throughput of the topology-aware allocator's placement on idle nodes of `type`; `key`
  // names the type in the cache (a cluster type's index, or -1 - GPU index for a reference).
  double ideal_samples_per_sec(const JobSpec& job, const NodeType& type, int key);
  // What time() needs of a job shape on a node type, answered by one lookup per job start: its
  // ideal throughput there and on its reference node type (the same when it has none).
  struct IdealRates {
    double own = 0, reference = 0;
  };
  const IdealRates& ideal_rates(const JobSpec& job, const NodeType& type, int key);
  // The reference node type of the job (null: the node type it runs on).
  const NodeType* reference_type(const JobSpec& job);
  bool cross_numa(const JobRecord& record);
  // The node type that paces a placed job: of its pods' nodes' types, the one `rate_on` (a node
  // type -> the job's throughput there on this placement; an error counts as 0) is lowest on, as
  // a synchronous step waits for its slowest rank. A job on one type, that type, asked nothing.
  // After it, types_buffer_ holds every type of the job's pods (the first pod's first).
  template <class RateOn>
  int pace_type(const JobRecord& record, RateOn rate_on);
  // The job's throughput over `path` (samples/s), or an LLM job's on `links` (tokens/s), on node
  // type `type`; 0 when there is no model.
  double rate_on_type(const JobSpec& job, const CommPath& path, int type) const;
  double llm_rate_on(const JobSpec& job, const LlmLinks& links, int type, const ParallelConfig& config);
  // Nodes per multi-node NVLink domain of the cluster's fabric; 0 without an NVLink level.
  int ideal_domain_nodes() const;
  // An ideal placement's node `node` (0, 1, ...): its NVLink domain when the cluster has them
  // (consecutive nodes fill domains), else -1.
  int ideal_domain(size_t node) const;
  JobTiming time_llm(const JobSpec& job, const JobRecord& record);
  Expected<LlmLinks> llm_links_of(const JobRecord& record, const ParallelConfig& config) const;
  // The LLM job's step on `type` with `config` (its layout and micro-batch) over `links`; cached.
  std::shared_ptr<const LlmStep> llm_step_on(const JobSpec& job, const NodeType& type, const LlmLinks& links,
                                             const ParallelConfig& config);
  // The LLM job on idle nodes of `type` (cached by `key` as ideal_samples_per_sec): its tokens/s
  // and micro-batch, its configuration's, or under "micro_batch": "auto" (LlmJob::micro_batch_auto)
  // the fastest of the sizes that run there (core/llm_estimate.h micro_batch_sizes; memory and
  // host memory checked), the smallest of equals, as estimate_llm_idle_fastest_micro_batch
  // chooses.
  struct IdealLlm {
    double tokens_per_sec = 0;
    int micro_batch = 1;
  };
  const IdealLlm& ideal_llm(const JobSpec& job, const NodeType& type, int key);
  double ideal_llm_tokens_per_sec(const JobSpec& job, const NodeType& type, int key) {
    return ideal_llm(job, type, key).tokens_per_sec;
  }
  // Tokens/s of the LLM job at `micro_batch` on the ideal layouts of idle nodes of `type`; 0 when
  // none can be timed.
  double idle_llm_rate(const JobSpec& job, const NodeType& type, const ParallelConfig& config);
  // The micro-batch of a placed LLM job: one for all its ranks, the smallest of the choices of
  // its pods' node types (it fits on each: memory grows with the micro-batch).
  int placed_micro_batch(const JobSpec& job, const JobRecord& record);
  // The configuration of a placed LLM job: an automatic job's layout the one that fits the GPU of
  // least memory among its pods' node types (so it runs on each; on one type, that type's tuned
  // layout), at placed_micro_batch.
  ParallelConfig placed_config(const JobSpec& job, const JobRecord& record);
  // Whether the job is timed as an LLM job (it names one of the workload's LLM specs).
  bool is_llm(const JobSpec& job) const { return job.llm != kNoLlm && llm_jobs_ && job.llm < llm_jobs_->size(); }
  // The LLM job's ideal tokens/s on its reference node type; `own` (its rate on the node type it
  // runs on) where it has none.
  double reference_llm_rate(const JobSpec& job, double own);
  // Tokens of one step of the LLM job at its GPU count.
  double llm_tokens_per_step(const JobSpec& job) const;

  const ClusterState& cluster_;
  ThreadCaches* caches_ = nullptr;
  NetworkModel network_;
  OverlapModel overlap_;
  // ideal_samples_per_sec's answers by (type key, workers, GPUs per worker, model, framework,
  // batch); ideal_rates' by these and the job's reference GPU.
  struct IdealKey {
    int type_key = 0, workers = 0, gpus_per_worker = 0, model = 0, framework = 0, batch = 0, reference = 0;
    bool operator==(const IdealKey&) const = default;
  };
  struct IdealKeyHash {
    size_t operator()(const IdealKey& k) const;
  };
  std::unordered_map<IdealKey, double, IdealKeyHash> ideal_cache_;
  std::unordered_map<IdealKey, IdealRates, IdealKeyHash> rates_;
  const GpuModel* reference_gpu_ = nullptr;
  std::map<int, std::shared_ptr<const NodeType>> reference_types_;  // by GPU catalog index
  std::shared_ptr<const std::vector<LlmJob>> llm_jobs_;
  std::map<std::tuple<int, int, int>, IdealLlm> ideal_llm_cache_;  // (type key, llm index, GPUs)
  // (llm, GPUs, GPU model, micro-batch, links) -> step
  std::map<std::vector<int64_t>, std::shared_ptr<const LlmStep>> llm_steps_;
  // throughput()'s answers by every input it reads (the path's figures bit for bit), so a job
  // shape placed the same way again costs one lookup.
  struct ThroughputKey {
    int model = 0, framework = 0, batch = 0, ranks = 0, hosts = 0, transport = 0, algorithm = 0;
    bool nvlink_hops = false;
    const GpuModel* gpu = nullptr;
    uint64_t bus_bits = 0, ring_bits = 0, nvls_bits = 0, tree_bits = 0, nvls_tuner_bits = 0, tree_tuner_bits = 0,
             latency_bits = 0;
    bool operator==(const ThroughputKey&) const = default;
  };
  struct ThroughputKeyHash {
    size_t operator()(const ThroughputKey& k) const;
  };
  mutable std::unordered_map<ThroughputKey, Expected<ThroughputEstimate>, ThroughputKeyHash> throughputs_;
  std::vector<std::pair<int, int>> numa_buffer_;  // cross_numa's (node, NUMA node) pairs, kept across calls
  std::vector<int> types_buffer_;                 // pace_type's node types seen, kept across calls
};

}  // namespace topsim
