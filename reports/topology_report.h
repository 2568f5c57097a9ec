// Renderers of a node's analysed topology (`topsim topo show`): an nvidia-smi-like text report
// and a machine-readable JSON document.
#pragma once

#include <string>

#include "core/topology.h"

namespace topsim {

// Text report: a header (name, description, GPUs, NUMA nodes, NVSwitch or not), the link
// matrix of GPUs and NICs with nvidia-smi codes and CPU / NUMA affinity, the P2P bandwidth
// matrix in GB/s (pairs without NCCL P2P marked '*'), each GPU's NUMA node and nearest NIC, and
// a legend. Deterministic; ends with a newline.
std::string render_topology(const Topology& topology);

// JSON report (2-space indent): name, description, nvswitch, numa_nodes, gpus, nics, pairs
// (every GPU-GPU and GPU-NIC pair with class, nvlinks, via_nvswitch, bandwidth_gbps, p2p) and
// nvlinks. Bandwidths are GB/s in one direction, rounded to 0.001.
std::string render_topology_json(const Topology& topology);

}  // namespace topsim
