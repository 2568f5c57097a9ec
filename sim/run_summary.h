// The metrics of one finished run (sim/metrics.h names them) from what the engine recorded: its
// jobs' tally, the cluster's averages over time or, for fill experiments, against arrived load.
#pragma once

#include <vector>

#include "sim/engine.h"
#include "sim/metrics.h"

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

}  // namespace topsim
