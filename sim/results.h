// The one results model: what an experiment produced, as data with a schema
// ("topsim.results/1", docs/results-format.md). Every output (text, JSON, and the reporters
// built on them) is a rendering of a ResultSet; nothing in it depends on the working directory,
// the wall clock or the number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/fabric_view.h"
#include "sim/failures.h"
#include "sim/job.h"
#include "sim/job_record.h"
#include "sim/job_store.h"
#include "sim/metrics.h"
#include "sim/sampling.h"
#include "sim/tenancy/preemption.h"
#include "sim/verdict_watch.h"
#include "util/expected.h"

namespace topsim {

inline constexpr std::string_view kResultsSchema = "topsim.results/1";

struct NodeGroupInfo {
  std::string model;  // node model (or trace node type) name
  int count = 0;
  int gpus_per_node = 0;
  std::string label;  // ack.node.gpu.schedule as configured ("" when it follows the scheduler)
};

// Who ran what: the scenario's identity, without file paths.
struct ScenarioInfo {
  std::string name;
  std::string description;
  std::string mode;  // "replay" or "fill"
  uint64_t seed = 1;
  int seeds = 1;
  std::string workload;  // what the workload is, e.g. "philly.csv (82247 jobs)"
  size_t jobs = 0;       // jobs of the scenario seed's workload
  int nodes = 0;
  int gpus = 0;
  std::vector<NodeGroupInfo> node_groups;
  std::string network;                     // "tcp", "roce", "ib"
  std::vector<std::string> fabric_levels;  // the fabric's level names, lowest first (empty: flat)
  std::vector<std::string> node_names;     // by node index, when the cluster named its nodes (kubectl); else empty
  std::string fabric;                      // the fabric in words ("rack: 16 nodes, 4:1; block: 8 racks, 2:1; 8 rails")
  std::string failures;                    // failures and checkpoints in words (sim/experiment.cpp); empty: none
  std::string model_mix;                   // the jobs the model mix left its LLMs out of, in words
                                           // (sim/workload/workload_mix.h describe_mix_limits); empty: none
  std::vector<SkippedEntries> skipped;     // the workload's trace entries that are not jobs, by reason
  FabricView fabric_view;                  // the fabric to draw (levels, groups, uplinks); empty: flat, none measured
  std::string share_scheduler;             // places GPU shares for schedulers that do not
  double fragmentation_coverage = 0.95;
  double target_load = 0;  // fill only
  std::string protocol;    // fill only, when not topsim's own: "fgd-artifact"
};

// One scheduler, one seed. A run stopped early (`decided`) has no metrics, per-model, per-LLM or
// per-node-type figures: it ran part of the workload, and what it answers is the bound it lost.
struct RunResult {
  uint64_t seed = 0;
  Metrics metrics;
  std::vector<ModelThroughput> by_model;
  std::vector<LlmModelStep> llm_steps;      // per LLM, its jobs' mean step (empty without LLM jobs)
  std::vector<NodeTypeUsage> by_node_type;  // training jobs per node type, in the cluster's type order
  size_t target_specs = 0;                  // FGD target workload specs (0: not measured)
  int64_t sample_every_ms = 0;
  std::vector<ClusterSample> samples;         // over time (replay)
  std::vector<LoadPoint> load_curve;          // against arrived load (fill)
  std::shared_ptr<const Workload> workload;   // the jobs this run replayed
  std::vector<JobRecord> jobs;                // per job, in memory (empty when not kept, or kept in job_store)
  std::shared_ptr<const JobStore> job_store;  // per job, on disk (ExperimentOptions::spill_dir); else null
  std::vector<Transition> transitions;        // lifecycle transitions, when recorded and kept
  std::vector<NodeEvent> failures;            // node failures in time order (sim/failures.h); empty without
  std::vector<Preemption> preemptions;        // with quota: the evictions in the order made (sim/tenancy/preemption.h)
  std::vector<std::string> rejections;        // distinct rejection reasons, "job: reason", first 10
  std::vector<std::string> flavors;           // Kueue's ResourceFlavors (JobRecord::flavor indexes it)
  std::optional<RunDecision> decided;         // stopped once this bound was lost (ExperimentOptions::stop_when)
};

struct MetricSummary {
  std::string name;
  SeedStats over_seeds;  // mean, sample sd, min, max over the runs
};

struct SchedulerResult {
  std::string name;                    // registry name
  std::string share_scheduler;         // places its GPU shares when it does not ("" otherwise)
  std::vector<RunResult> runs;         // one per seed, ascending
  std::vector<MetricSummary> metrics;  // every metric all runs have, over seeds
  const MetricSummary* metric(std::string_view name) const;
};

struct ResultSet {
  ScenarioInfo scenario;
  std::vector<SchedulerResult> schedulers;  // in the scenario's order
  const SchedulerResult* scheduler(std::string_view name) const;
};

// The run's tenants (its "jobs@<tenant>" metrics), in the run's order (ClusterSample::tenant_gpus).
std::vector<std::string> tenant_names(const RunResult& run);
// Whether the run has its per-job records (in memory or on disk).
bool has_job_records(const RunResult& run);
// Calls `each(job, record)` for every per-job record of the run with its job (read alongside from
// the run's workload, generated or not), by ascending id, wherever the records are kept; nothing
// when there are none. Error: records on disk could not be read back.
[[nodiscard]] Status for_each_job(const RunResult& run,
                                  const std::function<void(const JobSpec& job, const JobRecord& record)>& each);

// Fills SchedulerResult::metrics from its runs.
void summarize_over_seeds(SchedulerResult& result);

}  // namespace topsim
