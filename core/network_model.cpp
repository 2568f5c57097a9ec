// The network model of multi-node jobs: NIC efficiency, GPU-to-NIC choice, node network
// bandwidth (see network_model.h).
#include "core/network_model.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace topsim {

double NetworkModel::efficiency(NicTransport transport) const {
  switch (transport) {
    case NicTransport::InfiniBand: return infiniband_efficiency;
    case NicTransport::RoCE: return roce_efficiency;
    case NicTransport::Ethernet: return tcp_socket_efficiency;
  }
  return tcp_socket_efficiency;
}

double NetworkModel::nic_gbps(const Nic& nic) const { return network_gbps(nic.speed_gbit) * efficiency(nic.transport); }

int network_nic(const Topology& node, int gpu) { return node.network_nic(gpu); }

std::vector<int> network_nics(const Topology& node, const std::vector<int>& gpus) {
  std::vector<int> nics;
  for (int gpu : gpus)
    if (const int nic = network_nic(node, gpu); nic >= 0) nics.push_back(nic);
  std::sort(nics.begin(), nics.end());
  nics.erase(std::unique(nics.begin(), nics.end()), nics.end());
  return nics;
}

double node_network_gbps(const Topology& node, const std::vector<int>& gpus, const NetworkModel& net) {
  std::map<int, double> best_path_gbps;  // NIC -> widest GPU-to-NIC path among the GPUs using it
  for (int gpu : gpus)
    if (const int nic = network_nic(node, gpu); nic >= 0)
      best_path_gbps[nic] = std::max(best_path_gbps[nic], node.gpu_nic(gpu, nic).bandwidth_gbps);
  double total = 0;
  for (const auto& [nic, path_gbps] : best_path_gbps) total += std::min(net.nic_gbps(node.model().nics[nic]), path_gbps);
  return total;
}

}  // namespace topsim
