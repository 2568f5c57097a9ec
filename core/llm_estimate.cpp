#include "core/llm_estimate.h"

#include "core/allocator.h"
#include "core/model_catalog.h"
#include "core/nccl_algo.h"
#include "core/topology.h"

namespace topsim {

Expected<LlmEstimate> estimate_llm_idle(const LlmModel& model, const ParallelConfig& config, const NodeModel& node,
                                        const NetworkModel& net, std::optional<double> efficiency, int nvlink_domain_nodes) {
  if (node.gpus.empty()) return Error{"node " + node.name + " has no GPUs"};
  auto gpu = training_gpu(node.gpus.front().model);
  if (!gpu) return gpu.error();
  if (auto valid = validate_parallel(model, config, **gpu); !valid) return valid.error();
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
  std::vector<LinkNode> nodes(static_cast<size_t>(sites->back().node) + 1, LinkNode{&allocator, 0});
  if (domain_nodes > 0)
    for (size_t i = 0; i < nodes.size(); ++i) nodes[i].nvlink_domain = static_cast<int>(i) / domain_nodes;
  LinkOptions options;
  options.net = net;
  auto links = llm_links(config, *sites, nodes, options);
  if (!links) return links.error();
  auto step = efficiency ? llm_step(model, config, **gpu, *links, *efficiency) : llm_step(model, config, **gpu, *links);
  if (!step) return step.error();
  return LlmEstimate{*step, *links, static_cast<int>(nodes.size()), *gpu, domain_nodes};
}

}  // namespace topsim
