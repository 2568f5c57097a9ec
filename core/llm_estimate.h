// An LLM training job's step on idle nodes of one type, placed as the topology-aware scheduler
// places it (core/llm_links.h idle_rank_sites): what `topsim estimate` prints and what a duration
// measured on reference hardware is converted with.
#pragma once

#include <optional>
#include <vector>

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
  int segment_nodes = 0;        // the job's nodes per segment (one domain each); 0 without domains
  int domain_job_nodes = 0;     // the job's nodes in each domain it fills (whole segments); 0 without
  int micro_batch = 0;          // sequences per micro-batch the step was timed with
};

// NVIDIA's recommended Slurm segment for GB200 NVL72 jobs of 128 GPUs and more: 16 trays
// (developer.nvidia.com blog, "Unlock Exascale Performance on NVIDIA GB200 NVL72 with Slurm
// Topology-Aware Job Scheduling", 2025: segment size 16 for large jobs, smaller segments for jobs
// of 32-64 GPUs), which keeps power-of-two parallel groups inside one rack.
inline constexpr int kLargeJobSegmentNodes = 16;

// The segments a job of `job_nodes` is tried in on idle NVLink domains of `domain_nodes`, the
// default layouts: the whole job when one domain holds it; else 1 (whole domains in order) and
// kLargeJobSegmentNodes where it divides the job and fits a domain. The faster one is the job's
// ideal layout (estimate_llm_idle, and the replays' ideal rate, sim/job_timing.cpp).
std::vector<int> default_segments(int domain_nodes, int job_nodes);
// The nodes of `domain_nodes` that whole segments of `segment` fill: as many whole segments as
// they hold (0 when not one). REQUIRES segment >= 1.
inline int segment_fill(int domain_nodes, int segment) { return domain_nodes / segment * segment; }
// The nodes each domain takes when a job of `job_nodes` comes in segments of `segment` on NVLink
// domains of `domain_nodes` (segment_fill). Errors: no domains (0), a segment below 1, larger
// than a domain or not dividing the job's nodes (Slurm's --segment rule); each names the segment.
Expected<int> segment_domain_nodes(int domain_nodes, int segment, int job_nodes);
// The job's nodes, in order, into consecutive domains of `domain_job_nodes` each (the nodes a
// domain takes, segment_domain_nodes); 0: no domains (LinkNode::nvlink_domain -1).
void assign_domains(std::vector<LinkNode>& nodes, int domain_job_nodes);

// Validates the configuration for the node's GPU (validate_parallel), places config.gpus() GPUs
// on idle nodes of `node` and times a step. `efficiency` overrides llm_compute_efficiency.
// `nvlink_domain_nodes` > 1: the nodes sit in multi-node NVLink domains of that many (GB200
// NVL72: 18 trays), so groups run by domain (core/domain_comm.h); 0 or 1: none. The job's nodes
// come in segments of `segment_nodes` (Slurm's --segment), each inside one domain, each domain
// taking as many whole segments as it holds, in node order. Default (0): the whole job in one
// domain when one holds it; else the faster of whole domains in order (segments of 1) and
// segments of kLargeJobSegmentNodes where they divide the job.
// Errors: the node's GPU outside the catalog or without figures, a configuration error, a
// placement the node cannot give (e.g. no NICs for a multi-node job), a domain of nodes whose
// GPUs are not on an NVLink switch, a segment without domains, larger than a domain or not
// dividing the job's nodes.
Expected<LlmEstimate> estimate_llm_idle(const LlmModel& model, const ParallelConfig& config, const NodeModel& node,
                                        const NetworkModel& net = {}, std::optional<double> efficiency = {},
                                        int nvlink_domain_nodes = 0, int segment_nodes = 0);

// The micro-batch a tuned run picks, where a configuration leaves it open: of the sizes dividing
// the sequences each data-parallel rank takes per step (global_batch / dp), the one whose step on
// idle nodes (estimate_llm_idle, the same arguments) gives the most tokens/s, the smallest of
// equal ones (within 1e-9). Sizes that cannot run are passed over: activations beyond the GPU's
// memory, a count of micro-batches the interleaved schedule cannot take. A larger micro-batch
// leaves fewer micro-batches per step: the last one's backward pass, which the data-parallel
// traffic hides behind, is longer, and fewer tensor-parallel collectives pay their latency, but
// a pipeline's bubble grows. `config.micro_batch` is not read; the estimate's
// `micro_batch` is the choice. Errors: no global batch (0), one dp does not divide, or, when no
// size can run, micro-batch 1's error.
// The micro-batches estimate_llm_idle_fastest_micro_batch tries: the divisors of global_batch / dp,
// ascending. REQUIRES config.global_batch >= 1 and a multiple of config.dp >= 1.
std::vector<int> micro_batch_sizes(const ParallelConfig& config);
// Whether a step of `tokens_per_sec` beats the best so far by more than the tie tolerance (1e-9
// relative): the smaller of two equal micro-batches stays chosen.
inline bool faster_micro_batch(double tokens_per_sec, double best) { return tokens_per_sec > best * (1 + 1e-9); }
Expected<LlmEstimate> estimate_llm_idle_fastest_micro_batch(const LlmModel& model, ParallelConfig config, const NodeModel& node,
                                                            const NetworkModel& net = {}, std::optional<double> efficiency = {},
                                                            int nvlink_domain_nodes = 0, int segment_nodes = 0);

}  // namespace topsim
