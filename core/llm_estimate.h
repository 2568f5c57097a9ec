// An LLM training job's step on idle nodes of one type, placed as the topology-aware scheduler
// places it (core/llm_links.h idle_rank_sites): what `topsim estimate` prints and what a duration
// measured on reference hardware is converted with.
#pragma once

#include <optional>

#include "core/llm_links.h"
#include "core/llm_step.h"
#include "core/node_model.h"

namespace topsim {

struct LlmEstimate {
  LlmStep step;
  LlmLinks links;
  int nodes = 0;  // nodes the job spans
  const GpuModel* gpu = nullptr;
};

// Validates the configuration for the node's GPU (validate_parallel), places config.gpus() GPUs
// on idle nodes of `node` and times a step. `efficiency` overrides llm_compute_efficiency.
// Errors: the node's GPU outside the catalog or without figures, a configuration error, a
// placement the node cannot give (e.g. no NICs for a multi-node job).
Expected<LlmEstimate> estimate_llm_idle(const LlmModel& model, const ParallelConfig& config, const NodeModel& node,
                                        const NetworkModel& net = {}, std::optional<double> efficiency = {});

}  // namespace topsim
