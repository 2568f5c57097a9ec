// gang_comm_path (core/throughput.h): a gang's communication path by NVLink domain
// (core/domain_comm.h).
#include <algorithm>

#include "core/domain_comm.h"
#include "core/throughput.h"

namespace topsim {

CommPath gang_comm_path(const GangPlacement& placement, const std::vector<GangNode>& nodes) {
  if (!placement.multi_node()) return placement.node_rings.empty() ? CommPath{} : ring_plan_path(placement.node_rings.front());
  std::vector<NodePart> parts(placement.nodes.size());
  for (size_t slot = 0; slot < placement.nodes.size(); ++slot) {
    const GangNode& node = nodes[static_cast<size_t>(placement.nodes[slot])];
    parts[slot] = {&node.allocator->topology(),
                   {},
                   &placement.node_rings[slot],
                   placement.node_network_gbps[slot],
                   static_cast<int>(placement.nics_per_node[slot].size()),
                   node.nvlink_domain};
  }
  for (const WorkerPlacement& w : placement.workers) {
    const auto slot = std::find(placement.nodes.begin(), placement.nodes.end(), w.node) - placement.nodes.begin();
    std::vector<int>& gpus = parts[static_cast<size_t>(slot)].gpus;
    gpus.insert(gpus.end(), w.gpus.begin(), w.gpus.end());
  }
  CommPath path = domain_comm_path(parts);
  if (path.hosts == 1) return path;
  path.transport = CommTransport::Rdma;
  for (size_t i = 0; i < placement.nodes.size(); ++i) {
    const auto& nics = nodes[static_cast<size_t>(placement.nodes[i])].allocator->topology().model().nics;
    for (int nic : placement.nics_per_node[i])
      if (nics[nic].transport == NicTransport::Ethernet) path.transport = CommTransport::Tcp;
  }
  return path;
}

}  // namespace topsim
