// The metrics of one finished run (sim/metrics.h names them) from what the engine recorded: its
// jobs' tally, the cluster's averages over time or, for fill experiments, against arrived load.
#pragma once

#include <vector>

#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/scenario.h"

namespace topsim {

// `topology_aware`: the scheduler serves topology-labelled nodes (placement efficiency counts);
// `fill`: a fill experiment (its final state and load curve).
Metrics summarize_run(const RunOutput& run, const Workload& workload, bool topology_aware, bool fill);
// Per (model, framework) of the started jobs: how many, their mean and ideal throughput.
std::vector<ModelThroughput> throughput_by_model(const RunOutput& run);
// Per LLM, the mean step of its started jobs.
std::vector<LlmModelStep> llm_steps_by_model(const RunOutput& run);
// Training jobs per modelled node type of `cluster` (every type, in its order; none for a
// trace's node list).
std::vector<NodeTypeUsage> usage_by_node_type(const RunOutput& run, const ClusterState& cluster);

// What the runs of a scenario can hold, known before they run (MetricNeeds).
struct RunKinds {
  bool image_jobs = false, llm_jobs = false, share_jobs = false, multi_gpu_jobs = false;
  bool topology_aware = false, failures = false, queues = false, quota = false;
};
// The kinds of `scenario`'s runs: its workload's jobs (read once, a generated workload's as they
// are made), its schedulers, failures and tenancy.
RunKinds run_kinds(const Scenario& scenario);
// The tenants whose per-tenant metrics ("<metric>@<tenant>") the runs of `scenario` keep: with
// "tenancy", the admitting system's queues (Admission::tenants: Kueue ClusterQueues and the
// LocalQueues Admission Fair Sharing weighs, KAI leaf queues), else the queues its jobs name. An
// error when the scenario's tenancy does not bind its workload (its runs would reject every job).
Expected<std::vector<std::string>> scenario_tenants(const Scenario& scenario);
// Why no run of `kinds` holds metric `info`, or "" when one may: "no job of the workload trains an
// image model".
std::string never_measured(const MetricInfo& info, const RunKinds& kinds);

}  // namespace topsim
