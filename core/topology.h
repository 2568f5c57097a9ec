// The analysed topology of one node: for every pair of GPUs and NICs, the nvidia-smi link
// class, the P2P path bandwidth and whether NCCL allows P2P, and the routes GPU traffic takes
// over the node's hardware graph (its links as numbered directed edges with capacities).
//
// Model (NCCL `src/graph/paths.cc`, `topo.h`, REFERENCE.md):
// - A pair joined by direct NVLinks, or both attached to the node's NVSwitch fabric, is `NV#`
//   and uses NVLink: bandwidth = links x per-link bandwidth of the GPU generation. Through an
//   NVSwitch the count shown is the GPU's links into the fabric, and that bandwidth is the GPU's
//   total, shared by all of its peers (the ring model accounts for the sharing).
// - Otherwise traffic follows the PCIe tree and, across NUMA nodes, the CPU interconnect. The
//   class is the path's worst hop: PIX (one switch), PXB (several switches), PHB (a host
//   bridge), NODE (between host bridges of one NUMA node), SYS (across NUMA nodes). The
//   bandwidth is the widest path's bottleneck (min over hops) over PCIe/CPU edges only (a path
//   never passes through another GPU or NIC), divided by 1.2 for GPU-to-GPU paths through an
//   Intel CPU (NCCL INTEL_P2P_OVERHEAD).
// - NCCL's default P2P level is PXB: P2P is allowed for NV#, PIX and PXB pairs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/node_model.h"
#include "util/expected.h"

namespace topsim {

// Ordered best to worst, so `a < b` means "a is the better connection".
enum class LinkClass : uint8_t { Self, NVLink, PIX, PXB, PHB, Node, Sys };

// nvidia-smi code: "X", "NV2", "PIX", "PXB", "PHB", "NODE", "SYS".
std::string link_code(LinkClass cls, int nvlinks = 0);
struct LinkCode {
  LinkClass cls;
  int nvlinks;
};
// Parses an nvidia-smi code (also "NV#" with any count); nullopt for anything else.
std::optional<LinkCode> parse_link_code(std::string_view code);

struct PairLink {
  LinkClass cls = LinkClass::Sys;
  int nvlinks = 0;                      // NVLinks shown by nvidia-smi (NVLink class only)
  bool via_nvswitch = false;            // NVLink through the NVSwitch fabric rather than direct
  double bandwidth_gbps = 0;            // P2P path bandwidth, GB/s one direction
  bool p2p = false;                     // NCCL's default P2P level (PXB) allows direct P2P
  LinkClass pcie_cls = LinkClass::Sys;  // the PCIe/CPU relation alone, even when NVLink exists
};

namespace detail {
class TopologyGraph;  // the hardware graph; private to core's implementation
}

class Topology {
 public:
  // Validates the model and computes every pair. Errors name the model field at fault.
  static Expected<Topology> build(NodeModel model);

  const NodeModel& model() const { return model_; }
  const std::string& name() const { return model_.name; }
  int gpu_count() const { return static_cast<int>(model_.gpus.size()); }
  int nic_count() const { return static_cast<int>(model_.nics.size()); }

  // REQUIRES: indices in range. gpu_pair(a, a) is Self.
  const PairLink& gpu_pair(int a, int b) const { return pairs_[a * endpoints_ + b]; }
  const PairLink& gpu_nic(int gpu, int nic) const { return pairs_[gpu * endpoints_ + gpu_count() + nic]; }
  const PairLink& nic_pair(int a, int b) const { return pairs_[(gpu_count() + a) * endpoints_ + gpu_count() + b]; }

  int gpu_numa(int gpu) const { return gpu_numa_[gpu]; }  // index into model().numa_nodes
  int nic_numa(int nic) const { return nic_numa_[nic]; }
  // The NIC with the best link class to `gpu` (then bandwidth, then lowest index); -1 if none.
  int nearest_nic(int gpu) const { return nearest_nic_[gpu]; }
  // The NIC the GPU's network traffic goes through, as NCCL picks it; -1 if none (network_nic()).
  int network_nic(int gpu) const { return network_nic_[gpu]; }
  bool has_nvswitch() const { return has_nvswitch_; }

  // The node's links as directed edges (each link once per direction), numbered
  // 0..directed_edge_gbps().size()-1: the capacity of each in GB/s.
  const std::vector<double>& directed_edge_gbps() const;
  // The directed edges crossed by traffic from `gpu_a` to `gpu_b` on the link gpu_pair(a, b)
  // describes: the direct NVLink bond, GPU -> NVSwitch fabric -> GPU, or the widest PCIe/CPU
  // path (which never passes through a third GPU or NIC). REQUIRES: gpu_a != gpu_b, in range
  std::vector<int> gpu_route(int gpu_a, int gpu_b) const;

 private:
  explicit Topology(NodeModel model) : model_(std::move(model)) {}
  void compute_numa();
  void compute_pairs();
  PairLink pcie_pair(int endpoint_a, int endpoint_b) const;
  std::optional<PairLink> nvlink_pair(int gpu_a, int gpu_b) const;
  int endpoint_bridge(int endpoint) const;

  NodeModel model_;
  std::shared_ptr<const detail::TopologyGraph> graph_;  // immutable, shared by copies
  int endpoints_ = 0;                                   // GPUs then NICs
  std::vector<PairLink> pairs_;
  std::vector<int> gpu_numa_, nic_numa_, nearest_nic_, network_nic_;
  bool has_nvswitch_ = false;
};

}  // namespace topsim
