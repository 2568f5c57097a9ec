// NCCL configuration for one allocation on one node: the environment a launcher exports to
// the job's processes there. The NCCL topology XML that NCCL_TOPO_FILE points at is a file
// format, written by formats/hardware/nccl_xml.h (export_nccl_xml of the GPUs, ascending).
//
// Environment, in this order (names and accepted values: NCCL's env.html):
// - CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA numbers devices like nvidia-smi (our GPU ids) rather
//   than fastest first, so the next line names the intended GPUs.
// - CUDA_VISIBLE_DEVICES: the GPU ids, ascending. Ascending (not ring order) so that CUDA
//   device k is the k-th lowest id, which is also `dev` k in the exported topology XML; NCCL
//   finds the ring order itself from the topology.
// - NCCL_P2P_LEVEL: NVL when every channel of the ring is on NVLink; else the ring's worst hop
//   (PIX, PXB, PHB, SYS; nvidia-smi NODE is NCCL's PHB), so that NCCL uses direct P2P on every
//   hop the ring model routes (NCCL's default stops at PXB and would stage PHB/SYS hops through
//   host memory). LOC for a single GPU (no peer).
// - NCCL_ALGO: the algorithm the model predicts for large messages (core/nccl_algo.h): NVLS when
//   NVLink SHARP beats the ring on the node's GPUs, NVLSTree, Tree or Ring across nodes (the
//   caller's gang_comm_path choice), else Ring.
// - NCCL_PROTO=Simple: gradient all-reduces move MB-sized buckets, where Simple is the fastest
//   protocol (bandwidth efficiency 1.0 versus LL128 0.92 and LL 0.5, tuning.cc) and the only one
//   NVLS and NVLSTree run (Tree's Simple is its large-message protocol too); LL/LL128 only win
//   for small messages, which this pin gives up.
// - NCCL_NVLS_ENABLE: 1 when NVLink SHARP is possible (NVSwitch gen 3, i.e. sm >= 90, every
//   chosen GPU attached to the node's NVSwitch fabric, at least 2 of them), else 0. With
//   NCCL_ALGO=Ring it only allows NVLS resources for a user who lifts the Ring pin.
// - NCCL_TOPO_FILE: the caller's path for the topology XML.
// - Multi-node only, from the NICs the GPUs use (gang.h network_nics): NCCL_IB_HCA with the
//   InfiniBand/RoCE ones when there are any (NCCL prefers verbs), else NCCL_SOCKET_IFNAME with
//   the Ethernet ones and NCCL_IB_DISABLE=1 (TCP sockets). Lists start with '=' so NCCL matches
//   the names exactly ("mlx5_1" alone would also match mlx5_10...). Model NIC names are used as
//   they are: for Ethernet NICs they should be the interface names.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/gang.h"
#include "core/ring.h"
#include "core/topology.h"

namespace topsim {

inline constexpr std::string_view kDefaultNcclTopoFile = "nccl-topo.xml";

struct NcclConfig {
  std::vector<std::pair<std::string, std::string>> env;  // name, value; order above

  // The value of `name`, or nullptr when it is not set.
  const std::string* find(std::string_view name) const;
};

// The algorithm NCCL runs for large messages on one node's `ring`: NVLS when its bus bandwidth
// beats the ring's, else Ring.
NcclAlgorithm single_node_algorithm(const RingPlan& ring);

// NCCL_ALGO is single_node_algorithm(ring) on one node, Ring when `multi_node`.
// REQUIRES: `gpus` non-empty, distinct and valid on `node`; `ring` was planned over them.
NcclConfig nccl_config(const Topology& node, const std::vector<int>& gpus, const RingPlan& ring, bool multi_node,
                       std::string_view topo_file = kDefaultNcclTopoFile);

// The configuration of the `slot`-th node of a gang (all of its workers' GPUs), with NCCL_ALGO
// `algorithm` (gang_comm_path's choice, core/throughput.h).
// REQUIRES: slot < gang.nodes.size(); `node` is the topology of gang.nodes[slot].
NcclConfig nccl_config(const Topology& node, const GangPlacement& gang, size_t slot, NcclAlgorithm algorithm,
                       std::string_view topo_file = kDefaultNcclTopoFile);

}  // namespace topsim
