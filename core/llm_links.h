// The links a placement gives the parallel groups of an LLM training job (core/llm_step.h): which
// GPUs form each tensor-, context-, data-, expert-parallel group and pipeline neighbour pair, and
// the communication path of the slowest group of each kind.
//
// Ranks are ordered as Megatron-Core builds its groups (megatron/core/parallel_state.py,
// RankGenerator, default order "tp-cp-ep-dp-pp"; the first dimension varies fastest): rank =
// tp_i + TP x (cp_i + CP x (dp_i + DP x pp_i)). TP groups are TP consecutive ranks; the DP x CP
// group (gradients) the ranks of one (tp_i, pp_i); EP groups EP consecutive members of it
// (expert generator order etp-ep-edp-pp); pipeline neighbours are r and r + TP x CP x DP.
//
// A group's path (core/throughput.h CommPath), by where its ranks are:
// - one host (one node with host networking, or one pod): the ring over its GPUs on that node,
//   and NVLS beside it on an NVSwitch node;
// - several nodes with host networking: by NVLink domain, as a gang (core/domain_comm.h): a node
//   is a domain, or the nodes of one multi-node NVLink domain (LinkNode::nvlink_domain) are one,
//   meeting at its switch without a NIC. NCCL's ring visits each domain once, so its bus
//   bandwidth is the least, over its domains, of the NVLink ring there and of the domain's network
//   bandwidth for the group's GPUs (core/network_model.h) divided by the number of groups of the
//   same kind that cross the network through the same NIC (they run at once: every TP group
//   all-reduces in the same layer, every DP group reduces gradients together; pipeline pairs under
//   plain 1F1B, VPP 1, by the ranks behind the NIC: a stage exchanges with one neighbour at a
//   time); NVLSTree beside
//   it where every domain holds 2 of the group's GPUs on an NVLink switch. Where node pairs were
//   measured (LinkOptions::measured), its ring over its nodes in rank order runs at most at the
//   slowest measured hop and pays the largest measured latency;
// - pods without host networking (default scheduling): the pod-socket ring (pod_socket_path).
// The path's algorithm is the one an all-reduce takes; the step model (core/llm_step.cpp) runs
// reduce-scatter, all-gather, sends and all-to-all on its ring, as NCCL does.
#pragma once

#include <vector>

#include "core/allocator.h"
#include "core/llm_step.h"
#include "core/measured_links.h"
#include "core/network_model.h"
#include "core/throughput.h"

namespace topsim {

struct RankSite {
  int node = 0;  // index into the nodes given to llm_links
  int gpu = 0;   // the node's GPU id
  int pod = 0;   // the pod it runs in (any distinct ids; used without host networking)
};

struct LinkNode {
  const Allocator* allocator = nullptr;  // the node's allocator (its topology and ring memo)
  double primary_nic_gbit = 0;           // the pod network's NIC, Gb/s (without host networking)
  // Multi-node NVLink domain, as GangNode::nvlink_domain (core/gang.h); default -1 = none.
  int nvlink_domain = -1;
};

struct LinkOptions {
  bool host_network = true;  // pods share the host's network and IPC namespaces
  NetworkModel net;
  double pod_socket_gbps = kPodSocketGbps;
  // Measured links between the nodes (indices into `nodes`; core/measured_links.h): a group's
  // ring across nodes (its nodes in rank order) is capped and delayed by them. Default none.
  MeasuredLinks measured;
};

// REQUIRES: ranks.size() == config.gpus(), every site's node within `nodes` and GPU within it.
Expected<LlmLinks> llm_links(const ParallelConfig& config, const std::vector<RankSite>& ranks, const std::vector<LinkNode>& nodes,
                             const LinkOptions& options = {});

// The rank sites of a job of `gpus` GPUs on idle nodes of one type as the topology-aware
// scheduler places it: the allocator's best set on one node, or whole nodes in order (the last
// one partly), ranks in GPU order within each node. All ranks share one pod per node.
Expected<std::vector<RankSite>> idle_rank_sites(const Allocator& allocator, int gpus);

}  // namespace topsim
