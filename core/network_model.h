// The network side of a multi-node job (gang.h): which NIC each GPU of a node uses for inter-node
// traffic, how much of a NIC's line rate that traffic achieves by transport (NetworkModel), and
// the resulting network bandwidth of a node's GPU set, in GB/s.
//
// Model: a node's network bandwidth is the sum over the distinct NICs its chosen GPUs use of
// network_gbps(speed) x NetworkModel::efficiency(transport), each capped by the widest GPU-to-NIC
// PCIe/CPU path among the GPUs using it (NCCL's GPU-to-NET path bandwidth: DGX-1 GPU 5 reaches
// mlx5_0 across QPI at 6 GB/s). Each GPU uses one of its nearest NICs (best link class, then
// bandwidth); GPUs that share the same nearest NICs are spread over them by their rank in that
// group, as NCCL's ncclTopoGetLocalNet does (search.cc, without its bit mirroring), so DGX A100
// GPUs 0 and 1 use mlx5_0 and mlx5_1. PXN / rail-optimised routing is not modelled.
//
// How a multi-node ring is bounded (gang.h), mechanism by mechanism, on 2 x DGX A100 (16 GPUs):
// - NICs per node and their GPU affinity: each pair of GPUs shares a PCIe switch with two HDR
//   NICs; the rule above gives every GPU its own NIC, so 8 rails per node are used.
// - Rail alignment: NIC i of every node is assumed on the same leaf switch (DGX SuperPOD's
//   rail-optimised fabric), so no rail crosses a spine and no link is shared by two rails.
// - The ring crossing the node boundary: each channel enters and leaves every node once, on
//   full-duplex NICs, so a channel costs each NIC one flow per direction; with 8 channels every
//   NIC carries one, and the ring's hop rate is the NIC's achieved rate.
// - Per-NIC achieved rate: kInfiniBandEfficiency below (several rails at once reach less of the
//   line rate than one), capped by the GPU-to-NIC PCIe path (Gen4 x16: 24 GB/s in NCCL's model).
// - The algorithm: at large sizes NCCL's tuner picks Ring for A100 without SHARP (tuning.cc: the
//   tree's bandwidth is halved and scaled by 0.92, below the ring's); tree figures on two nodes
//   are not ring figures (nccl#1576).
// Bus bandwidth: min(intra-node 240, 8 x 25 x 0.885 = 177) = 177 GB/s (was 188 with 0.94).
#pragma once

#include <vector>

#include "core/node_model.h"
#include "core/topology.h"

namespace topsim {

// Achieved fraction of NIC line rate for NCCL's inter-node ring traffic (large messages), what
// a ring all-reduce's bus bandwidth reaches against the line rate of the NICs it uses.
// InfiniBand. One rail alone comes close to line rate: 12.2 of 12.5 GB/s on one EDR NIC
// (nccl-tests#29), 24 of 25 on one HDR NIC (nccl#1048). Several rails per node at once, which
// is what a multi-node job on 8-GPU nodes uses, reach less: two A100 nodes with 4 x HDR each,
// 86 of 100 GB/s (nccl#1048) and 91 of 100 (nccl-tests#100): 0.86 and 0.91, mean 0.885. (DGX-1's
// 4 x EDR reached ~47 of 50, nccl#307: 0.885 is 6% under it, inside the +-10% tolerance.) The
// often quoted "192 GB/s on DGX A100's 8 x HDR" (nccl#1576) is a two-node Tree figure: on two
// hosts a tree sends each byte once per direction where a ring sends 2(k-1)/k (core/nccl_algo.h
// models it, NVLink-bound there at 202.5), so it bounds no ring.
// Not per generation: NCCL's maintainers quote the same share of line rate for well-tuned HDR and
// NDR fabrics, "24" of 25 GB/s per HDR NIC (nccl-tests#160, #252) and "46-48" of 50 per NDR NIC
// (nccl-tests#290), 0.92-0.96; measured NDR rings spread around that as HDR runs do: 41.4 per
// NIC (4 x 8 H100, Voltage Park), 45.7 (nccl-tests#309), 48.3 (CoreWeave, 8 x 8 H100), 49.2
// (GB200 partitions, nccl#1801) (tests/core/nccl_published.h). 0.885 keeps every H100 row within
// 10%; it leaves nccl#1801's rings 10.0% under.
inline constexpr double kInfiniBandEfficiency = 0.885;
// RoCE v2 carries the same verbs traffic in Ethernet framing: per 4096-byte payload IB adds 26
// bytes (LRH 8, BTH 12, ICRC 4, VCRC 2), RoCE v2 82 (Ethernet 14 + FCS 4 + preamble/gap 20,
// IPv4 20, UDP 8, BTH 12, ICRC 4), so RoCE reaches (4096 + 26) / (4096 + 82) of IB's rate.
inline constexpr double kRoceFramingRatio = (4096.0 + 26.0) / (4096.0 + 82.0);
inline constexpr double kRoceEfficiency = kInfiniBandEfficiency * kRoceFramingRatio;  // ~0.873
// NCCL's socket transport (TCP, default 1 thread x 1 socket per peer) is CPU- and
// single-flow-bound: at most ~60% of wire speed on 32 Gb/s (nccl#209), 4-6 GB/s bus bandwidth
// on 100 Gb/s, i.e. 0.32-0.48 (nccl#450); half the line rate is taken.
inline constexpr double kTcpSocketEfficiency = 0.5;

// How much of each NIC's line rate inter-node traffic achieves, by transport.
struct NetworkModel {
  double infiniband_efficiency = kInfiniBandEfficiency;  // default 0.885
  double roce_efficiency = kRoceEfficiency;              // default ~0.873
  double tcp_socket_efficiency = kTcpSocketEfficiency;   // Ethernet NICs (TCP sockets); default 0.5

  double efficiency(NicTransport transport) const;
  // Achieved GB/s of one NIC: network_gbps(speed) x efficiency(transport).
  double nic_gbps(const Nic& nic) const;
};

// The NIC each GPU uses for inter-node traffic (model above); -1 when the node has no NIC.
// REQUIRES: 0 <= gpu < node.gpu_count()
int network_nic(const Topology& node, int gpu);
// The distinct NICs used by `gpus`, ascending; empty when the node has no NIC.
std::vector<int> network_nics(const Topology& node, const std::vector<int>& gpus);
// Achieved inter-node bandwidth of those NICs (model above), GB/s; 0 without NICs.
double node_network_gbps(const Topology& node, const std::vector<int>& gpus, const NetworkModel& net);

}  // namespace topsim
