// Measured links between node pairs: bus bandwidth and latency from an all-pairs test (such as
// nccl-tests run between each pair of nodes) that override the network model for those pairs, as
// topology-aware scheduler designs keep a matrix of inter-node bandwidth and latency beside each
// node's GPU matrix.
//
// Model. A ring over several nodes crosses the network between consecutive nodes (closing the
// loop): a measured hop caps the ring's bus bandwidth at its measured figure, and the ring's
// inter-node steps pay the largest measured latency among its hops (each step waits for the
// slowest hop; ring.h allreduce_time, net_latency_us). Unmeasured hops keep the model.
#pragma once

#include <functional>
#include <vector>

namespace topsim {

struct CommPath;  // core/throughput.h

struct MeasuredLink {
  double bus_gbps = 0;    // measured bus bandwidth, GB/s; 0 = not measured (the model's)
  double latency_us = 0;  // what the pair's network adds to each hop beyond NCCL's constants, us; default 0
};

// The measured link between two nodes (indices the caller defines); {} when not measured.
using MeasuredLinks = std::function<MeasuredLink(int a, int b)>;

// The measured figures of a ring visiting `ring_nodes` in order, closing the loop: the least
// measured bus bandwidth (0: none measured) and the largest latency. Fewer than 2 nodes: {}.
MeasuredLink measured_ring(const std::vector<int>& ring_nodes, const MeasuredLinks& measured);

// Applies measured_ring to `path` (a path over those nodes): its bus bandwidth (and its ring's)
// at most the least measured, its net_latency_us at least the largest. No-op without `measured`.
void apply_measured(CommPath& path, const std::vector<int>& ring_nodes, const MeasuredLinks& measured);

}  // namespace topsim
