// Renderers of `topsim estimate`: one LLM training job's step on idle nodes of one type
// (core/llm_estimate.h), as text for people and as one JSON object.
#pragma once

#include <string>
#include <string_view>

#include "core/llm_estimate.h"

namespace topsim {

struct LlmEstimateReport {
  std::string node;  // node type name
  int node_gpus = 0;
  double host_memory_gib = 0;  // the node's (NodeModel::host_memory_gib); 0: not stated
  const LlmModel* model = nullptr;
  ParallelConfig config;
  LlmEstimate estimate;
  bool micro_batch_chosen = false;  // the micro-batch is the fastest that fits (--micro-batch auto)
};

// "sequence 8192 tokens, global batch 128 sequences, micro-batch <micro_batch>, recompute none,
// sequence parallel on, zero 1, fp8, fused attention": the run's settings beyond its layout, as
// `topsim estimate` and `topsim explain` print them (`micro_batch`: "2 (64 per step)", "auto ...").
std::string llm_settings_text(const LlmModel& model, const ParallelConfig& config, std::string_view micro_batch);

// Text: the configuration, the placement, step time, tokens/s (job and per GPU), MFU, memory per
// GPU and the breakdown of the step, every figure with its unit.
std::string render_llm_estimate_text(const LlmEstimateReport& report);

// JSON (2-space indent, newline-terminated), keys in this order: node, model, gpus, nodes,
// nvlink_domain_nodes (nodes per multi-node NVLink domain; 0: each node its own), segment_nodes
// (the job's nodes per segment, each inside one domain; 0 without domains), config
// {tp, pp, dp, cp, ep, vpp, sequence, global_batch, micro_batch, micro_batch_chosen (true when
// --micro-batch auto chose it), microbatches, recompute,
// sequence_parallel, zero, precision, attention, tp_overlap, dp_overlap, offload_layers}, step_s, tokens_per_s,
// tokens_per_s_per_gpu, model_tflops_per_gpu, mfu, memory_gib {parameters, activations, total,
// gpu}, breakdown_s {compute, tp, ep, cp, pp_bubble, pp_p2p, dp_exposed, optimizer}, dp_comm_s,
// links {tp, cp, dp, ep, pp: {ranks, hosts, bus_gbps, transport, algorithm (NCCL's for large
// messages: "Ring", "NVLS", "NVLSTree", "Tree")}}. Figures rounded to 1e-6.
std::string render_llm_estimate_json(const LlmEstimateReport& report);

}  // namespace topsim
