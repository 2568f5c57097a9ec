// A collective group's communication path over several nodes, by NVLink domain (a node, or the
// nodes sharing one multi-node NVLink domain id, GB200 NVL72): what a gang (core/gang.h
// gang_comm_path) and an LLM job's parallel groups on such a fabric (core/llm_links.h) run at.
//
// - one domain: NCCL sees one host whose GPUs meet at the NVLink switch: the ring at the least
//   NVLink rate of its nodes (a node's ring, or its GPUs' link into the switch) and NVLS over all
//   its ranks (core/nccl_algo.h);
// - several domains: hosts = domains; the ring visits each domain once, so its bus bandwidth is
//   the least over domains of min(the domain's NVLink ring, the achieved network bandwidth of its
//   nodes' NICs for the group), where a multi-node domain crosses the network through at most
//   kNcclMnnvlNetNics of its NICs (NCCL 2.27.3); NVLSTree beside it when every domain can run
//   NVLS, and Tree (each domain a host: its chain at its NVLink ring rate, its network figure).
// A node whose GPUs in the group are not on an NVLink switch is a domain of its own, whatever
// its id. The caller sets the transport between domains.
#pragma once

#include <vector>

#include "core/ring.h"
#include "core/throughput.h"
#include "core/topology.h"

namespace topsim {

// The group's part on one node.
struct NodePart {
  const Topology* topology = nullptr;
  std::vector<int> gpus;           // the group's GPUs on the node
  const RingPlan* ring = nullptr;  // the ring over `gpus` (read when it holds 2 GPUs or more)
  double network_gbps = 0;         // achieved NIC bandwidth the node gives the group, GB/s
  int nics = 0;                    // NICs the group uses on the node
  int nvlink_domain = -1;          // multi-node NVLink domain id; -1 = none
};

// REQUIRES: parts non-empty, each with a topology, and the ring of every part of 2 GPUs or more.
CommPath domain_comm_path(const std::vector<NodePart>& parts);

}  // namespace topsim
