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
  int nvlink_domain_nodes = 0;  // nodes per multi-node NVLink domain; 0: each node its own
};

// Validates the configuration for the node's GPU (validate_parallel), places config.gpus() GPUs
// on idle nodes of `node` and times a step. `efficiency` overrides llm_compute_efficiency.
// `nvlink_domain_nodes` > 1: consecutive nodes share multi-node NVLink domains of that many
// (GB200 NVL72: 18 trays), so groups run by domain (core/domain_comm.h); 0 or 1: none.
// Errors: the node's GPU outside the catalog or without figures, a configuration error, a
// placement the node cannot give (e.g. no NICs for a multi-node job), a domain of nodes whose
// GPUs are not on an NVLink switch.
Expected<LlmEstimate> estimate_llm_idle(const LlmModel& model, const ParallelConfig& config, const NodeModel& node,
                                        const NetworkModel& net = {}, std::optional<double> efficiency = {},
                                        int nvlink_domain_nodes = 0);

}  // namespace topsim
