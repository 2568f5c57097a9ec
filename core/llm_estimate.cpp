#include "core/llm_estimate.h"

#include "core/allocator.h"
#include "core/model_catalog.h"
#include "core/topology.h"

namespace topsim {

Expected<LlmEstimate> estimate_llm_idle(const LlmModel& model, const ParallelConfig& config, const NodeModel& node,
                                        const NetworkModel& net, std::optional<double> efficiency) {
  if (node.gpus.empty()) return Error{"node " + node.name + " has no GPUs"};
  auto gpu = training_gpu(node.gpus.front().model);
  if (!gpu) return gpu.error();
  if (auto valid = validate_parallel(model, config, **gpu); !valid) return valid.error();
  auto topology = Topology::build(node);
  if (!topology) return topology.error();
  const Allocator allocator(*topology);
  auto sites = idle_rank_sites(allocator, config.gpus());
  if (!sites) return sites.error();
  std::vector<LinkNode> nodes(static_cast<size_t>(sites->back().node) + 1, LinkNode{&allocator, 0});
  LinkOptions options;
  options.net = net;
  auto links = llm_links(config, *sites, nodes, options);
  if (!links) return links.error();
  auto step = efficiency ? llm_step(model, config, **gpu, *links, *efficiency) : llm_step(model, config, **gpu, *links);
  if (!step) return step.error();
  return LlmEstimate{*step, *links, static_cast<int>(nodes.size()), *gpu};
}

}  // namespace topsim
