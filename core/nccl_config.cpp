#include "core/nccl_config.h"
#include "util/text.h"

#include <algorithm>

namespace topsim {
namespace {

// NCCL_P2P_LEVEL value for a ring (NCCL accepts LOC, NVL, PIX, PXB, PHB, SYS).
std::string p2p_level(const RingPlan& ring) {
  if (ring.order.size() < 2) return "LOC";
  if (ring.nvlink_only) return "NVL";
  switch (ring.worst_hop) {
    case LinkClass::Self: return "LOC";
    case LinkClass::NVLink: return "NVL";
    case LinkClass::PIX: return "PIX";
    case LinkClass::PXB: return "PXB";
    case LinkClass::PHB:
    case LinkClass::Node: return "PHB";  // NCCL has no NODE level: a path via host bridges is PHB
    case LinkClass::Sys: return "SYS";
  }
  return "SYS";
}

// NVLink SHARP needs third-generation NVSwitch (Hopper and later) under every chosen GPU.
bool nvls_capable(const Topology& node, const std::vector<int>& gpus) {
  if (!node.has_nvswitch() || gpus.size() < 2) return false;
  return std::all_of(gpus.begin(), gpus.end(), [&](int g) {
    const Gpu& gpu = node.model().gpus[g];
    return gpu.sm >= 90 && gpu.nvswitch_links > 0;
  });
}

std::string exact_list(const std::vector<std::string>& names) { return "=" + join(names, ","); }

// NCCL_IB_HCA, or NCCL_SOCKET_IFNAME + NCCL_IB_DISABLE, for the NICs the GPUs use.
void add_network_env(const Topology& node, const std::vector<int>& gpus, NcclConfig& config) {
  std::vector<std::string> rdma, sockets;
  for (int nic : network_nics(node, gpus)) {
    const Nic& n = node.model().nics[nic];
    (n.transport == NicTransport::Ethernet ? sockets : rdma).push_back(n.name);
  }
  if (!rdma.empty()) {
    config.env.emplace_back("NCCL_IB_HCA", exact_list(rdma));
  } else if (!sockets.empty()) {
    config.env.emplace_back("NCCL_SOCKET_IFNAME", exact_list(sockets));
    config.env.emplace_back("NCCL_IB_DISABLE", "1");
  }
}

}  // namespace

const std::string* NcclConfig::find(std::string_view name) const {
  for (const auto& [key, value] : env)
    if (key == name) return &value;
  return nullptr;
}

NcclAlgorithm single_node_algorithm(const RingPlan& ring) {
  return ring.nvls_bus_gbps > ring.bus_bandwidth_gbps ? NcclAlgorithm::NVLS : NcclAlgorithm::Ring;
}

namespace {

NcclConfig make_config(const Topology& node, const std::vector<int>& gpus, const RingPlan& ring, bool multi_node,
                       NcclAlgorithm algorithm, std::string_view topo_file) {
  std::vector<int> ascending = gpus;
  std::sort(ascending.begin(), ascending.end());
  NcclConfig config;
  config.env.emplace_back("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
  config.env.emplace_back("CUDA_VISIBLE_DEVICES", format_ids(ascending));
  config.env.emplace_back("NCCL_P2P_LEVEL", p2p_level(ring));
  config.env.emplace_back("NCCL_ALGO", std::string(enum_name(algorithm)));
  config.env.emplace_back("NCCL_PROTO", "Simple");
  config.env.emplace_back("NCCL_NVLS_ENABLE", nvls_capable(node, ascending) ? "1" : "0");
  config.env.emplace_back("NCCL_TOPO_FILE", std::string(topo_file));
  if (multi_node) add_network_env(node, ascending, config);
  return config;
}

}  // namespace

NcclConfig nccl_config(const Topology& node, const std::vector<int>& gpus, const RingPlan& ring, bool multi_node,
                       std::string_view topo_file) {
  return make_config(node, gpus, ring, multi_node, multi_node ? NcclAlgorithm::Ring : single_node_algorithm(ring), topo_file);
}

NcclConfig nccl_config(const Topology& node, const GangPlacement& gang, size_t slot, NcclAlgorithm algorithm,
                       std::string_view topo_file) {
  std::vector<int> gpus;
  for (const WorkerPlacement& w : gang.workers)
    if (w.node == gang.nodes[slot]) gpus.insert(gpus.end(), w.gpus.begin(), w.gpus.end());
  return make_config(node, gpus, gang.node_rings[slot], gang.multi_node(), algorithm, topo_file);
}

}  // namespace topsim
