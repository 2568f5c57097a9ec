#include "core/llm_estimate.h"

#include <algorithm>
#include <optional>
#include <string>

#include "core/allocator.h"
#include "core/model_catalog.h"
#include "core/nccl_algo.h"
#include "core/topology.h"
#include "util/text.h"

namespace topsim {

Expected<int> segment_domain_nodes(int domain_nodes, int segment, int job_nodes) {
  const std::string what = "a segment of " + std::to_string(segment) + " node" + (segment == 1 ? "" : "s");
  if (domain_nodes == 0) return Error{what + " needs nodes in multi-node NVLink domains (the node has none)"};
  if (segment < 1) return Error{"a segment must hold at least 1 node, got " + std::to_string(segment)};
  if (segment > domain_nodes) return Error{what + " does not fit an NVLink domain of " + std::to_string(domain_nodes) + " nodes"};
  if (job_nodes % segment != 0)
    return Error{what + " does not divide the job's " + std::to_string(job_nodes) + " nodes (Slurm's --segment rule)"};
  return segment_fill(domain_nodes, segment);
}

void assign_domains(std::vector<LinkNode>& nodes, int domain_job_nodes) {
  for (size_t i = 0; i < nodes.size(); ++i)
    nodes[i].nvlink_domain = domain_job_nodes > 0 ? static_cast<int>(i) / domain_job_nodes : -1;
}

std::vector<int> default_segments(int domain_nodes, int job_nodes) {
  if (job_nodes <= domain_nodes) return {job_nodes};
  std::vector<int> segments{1};
  if (job_nodes % kLargeJobSegmentNodes == 0 && kLargeJobSegmentNodes <= domain_nodes) segments.push_back(kLargeJobSegmentNodes);
  return segments;
}

Expected<LlmEstimate> estimate_llm_idle(const LlmModel& model, const ParallelConfig& config, const NodeModel& node,
                                        const NetworkModel& net, std::optional<double> efficiency, int nvlink_domain_nodes,
                                        int segment_nodes) {
  if (node.gpus.empty()) return Error{"node " + node.name + " has no GPUs"};
  auto gpu = training_gpu(node.gpus.front().model);
  if (!gpu) return gpu.error();
  if (auto valid = validate_parallel(model, config, **gpu); !valid) return valid.error();
  if (auto fits = validate_host_memory(model, config, node); !fits) return fits.error();
  auto topology = Topology::build(node);
  if (!topology) return topology.error();
  const Allocator allocator(*topology);
  auto sites = idle_rank_sites(allocator, config.gpus());
  if (!sites) return sites.error();
  const int domain_nodes = nvlink_domain_nodes > 1 ? nvlink_domain_nodes : 0;
  std::vector<int> every_gpu(static_cast<size_t>(topology->gpu_count()));
  for (size_t g = 0; g < every_gpu.size(); ++g) every_gpu[g] = static_cast<int>(g);
  if (domain_nodes > 0 && !(nvswitch_link_gbps(*topology, every_gpu) > 0))
    return Error{"node " + node.name +
                 "'s GPUs are not on an NVLink switch, so its nodes cannot share a multi-node NVLink domain"};
  const int job_nodes = sites->back().node + 1;
  if (node.nics.empty() && job_nodes > std::max(1, domain_nodes)) {
    const int node_gpus = topology->gpu_count();
    return Error{"node " + node.name + " has no NIC: a job of " + counted(config.gpus(), "GPU") + " spans " +
                 counted(job_nodes, "node") + " of " + counted(node_gpus, "GPU") +
                 ", and its parallel groups cannot reach across them; list the node's NICs (docs/node-format.md) or "
                 "estimate at most " +
                 counted(std::max(1, domain_nodes) * node_gpus, "GPU")};
  }
  // The job laid out in segments of `segment` nodes (0: no domains).
  auto laid_out = [&](int segment) -> Expected<LlmEstimate> {
    std::vector<LinkNode> nodes(static_cast<size_t>(job_nodes), LinkNode{&allocator, 0});
    int per_domain = 0;
    if (segment > 0) {
      auto fill = segment_domain_nodes(domain_nodes, segment, job_nodes);
      if (!fill) return fill.error();
      per_domain = *fill;
    }
    assign_domains(nodes, per_domain);
    LinkOptions options;
    options.net = net;
    auto links = llm_links(config, *sites, nodes, options);
    if (!links) return links.error();
    auto step = efficiency ? llm_step(model, config, **gpu, *links, *efficiency) : llm_step(model, config, **gpu, *links);
    if (!step) return step.error();
    return LlmEstimate{*step, *links, job_nodes, *gpu, domain_nodes, segment, per_domain, config.micro_batch};
  };
  if (segment_nodes != 0) return laid_out(segment_nodes);
  if (domain_nodes == 0) return laid_out(0);
  // The default layouts; the faster step wins, the first on a tie.
  Expected<LlmEstimate> best = Error{"no layout"};
  for (int segment : default_segments(domain_nodes, job_nodes)) {
    auto estimate = laid_out(segment);
    if (!estimate) return estimate.error();
    if (!best || estimate->step.step_ms < best->step.step_ms) best = std::move(estimate);
  }
  return best;
}

std::vector<int> micro_batch_sizes(const ParallelConfig& config) {
  const int per_rank = config.global_batch / config.dp;
  std::vector<int> sizes;
  for (int d = 1; 1LL * d * d <= per_rank; ++d)
    if (per_rank % d == 0) {
      sizes.push_back(d);
      if (d != per_rank / d) sizes.push_back(per_rank / d);
    }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

Expected<LlmEstimate> estimate_llm_idle_fastest_micro_batch(const LlmModel& model, ParallelConfig config, const NodeModel& node,
                                                            const NetworkModel& net, std::optional<double> efficiency,
                                                            int nvlink_domain_nodes, int segment_nodes) {
  if (config.global_batch < 1)
    return Error{"choosing the micro-batch needs the global batch (the sequences a step takes), got " +
                 std::to_string(config.global_batch)};
  if (config.dp < 1 || config.global_batch % config.dp != 0)
    return Error{"global_batch " + std::to_string(config.global_batch) +
                 " is not a multiple of dp = " + std::to_string(config.dp)};
  std::optional<LlmEstimate> best;
  std::optional<Error> smallest_error;
  for (int size : micro_batch_sizes(config)) {
    config.micro_batch = size;
    auto estimate = estimate_llm_idle(model, config, node, net, efficiency, nvlink_domain_nodes, segment_nodes);
    if (!estimate) {
      if (!smallest_error) smallest_error = estimate.error();
      continue;
    }
    if (!best || faster_micro_batch(estimate->step.tokens_per_sec, best->step.tokens_per_sec)) best = std::move(*estimate);
  }
  if (!best) return *smallest_error;
  return *best;
}

}  // namespace topsim
