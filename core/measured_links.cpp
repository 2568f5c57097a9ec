#include "core/measured_links.h"

#include <algorithm>

#include "core/throughput.h"

namespace topsim {

MeasuredLink measured_ring(const std::vector<int>& ring_nodes, const MeasuredLinks& measured) {
  MeasuredLink ring;
  if (!measured || ring_nodes.size() < 2) return ring;
  const size_t hops = ring_nodes.size() == 2 ? 1 : ring_nodes.size();  // two nodes: one pair, both ways
  for (size_t i = 0; i < hops; ++i) {
    const MeasuredLink hop = measured(ring_nodes[i], ring_nodes[(i + 1) % ring_nodes.size()]);
    if (hop.bus_gbps > 0) ring.bus_gbps = ring.bus_gbps > 0 ? std::min(ring.bus_gbps, hop.bus_gbps) : hop.bus_gbps;
    ring.latency_us = std::max(ring.latency_us, hop.latency_us);
  }
  return ring;
}

void apply_measured(CommPath& path, const std::vector<int>& ring_nodes, const MeasuredLinks& measured) {
  const MeasuredLink ring = measured_ring(ring_nodes, measured);
  if (ring.bus_gbps > 0) {
    path.bus_bandwidth_gbps = std::min(path.bus_bandwidth_gbps, ring.bus_gbps);
    for (double* candidate :
         {&path.ring_bus_gbps, &path.nvls_bus_gbps, &path.tree_bus_gbps, &path.nvls_tuner_bus_gbps, &path.tree_tuner_bus_gbps})
      *candidate = std::min(*candidate, ring.bus_gbps);  // a tuner figure's -1 (the same) stays
  }
  path.net_latency_us = std::max(path.net_latency_us, ring.latency_us);
}

}  // namespace topsim
