#include "core/throughput.h"

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include "core/hardware.h"
#include "core/model_layers.h"

namespace topsim {
namespace {

// REFERENCE.md "Data-parallel step": the backward pass is ~2/3 of the compute time.
constexpr double kBackwardShare = 2.0 / 3.0;

Status validate_path(const CommPath& path) {
  if (path.ranks < 1) return Error{"communication path: ranks must be at least 1, got " + std::to_string(path.ranks)};
  if (path.hosts < 1 || path.hosts > path.ranks)
    return Error{"communication path: hosts must be in 1.." + std::to_string(path.ranks) + ", got " + std::to_string(path.hosts)};
  if (path.ranks > 1 && !(path.bus_bandwidth_gbps > 0))
    return Error{"communication path: " + std::to_string(path.ranks) + " ranks need a positive bus bandwidth"};
  return Status::success();
}

// Egress (or ingress) hops per node of a rank-ordered ring that cross nodes.
std::vector<int> crossing_hops_per_node(const std::vector<int>& rank_nodes, size_t node_count, bool egress) {
  std::vector<int> hops(node_count, 0);
  for (size_t i = 0; i < rank_nodes.size(); ++i) {
    const int from = rank_nodes[i], to = rank_nodes[(i + 1) % rank_nodes.size()];
    if (from != to) ++hops[egress ? from : to];
  }
  return hops;
}

}  // namespace

AllReduceAlgos CommPath::algos() const {
  // A candidate as it runs and as NCCL's tuner sees it (negative: the same), after whatever cut
  // bus_bandwidth_gbps: the chosen one runs at it; another is seen at most at it. Where the two
  // figures differ (3 hosts) the other one scales with the first.
  const auto candidate = [&](NcclAlgorithm a, double gbps, double tuner_gbps) -> std::pair<double, double> {
    if (tuner_gbps < 0) return {algorithm == a ? bus_bandwidth_gbps : std::min(gbps, bus_bandwidth_gbps), tuner_gbps};
    if (algorithm == a) return {bus_bandwidth_gbps, gbps > 0 ? tuner_gbps * bus_bandwidth_gbps / gbps : tuner_gbps};
    const double seen = std::min(tuner_gbps, bus_bandwidth_gbps);
    return {tuner_gbps > 0 ? gbps * seen / tuner_gbps : std::min(gbps, bus_bandwidth_gbps), seen};
  };
  AllReduceAlgos algos;
  algos.nvls_kind = hosts > 1 ? NcclAlgorithm::NVLSTree : NcclAlgorithm::NVLS;
  algos.ring_bus_gbps = candidate(NcclAlgorithm::Ring, ring_bus_gbps, -1).first;
  std::tie(algos.nvls_bus_gbps, algos.nvls_tuner_bus_gbps) = candidate(algos.nvls_kind, nvls_bus_gbps, nvls_tuner_bus_gbps);
  std::tie(algos.tree_bus_gbps, algos.tree_tuner_bus_gbps) = candidate(NcclAlgorithm::Tree, tree_bus_gbps, tree_tuner_bus_gbps);
  return algos;
}

AllReduceEstimate path_allreduce_time(double bytes, const CommPath& path) {
  return allreduce_time(bytes, path.ranks, path.hosts, path.algos(), path.nvlink_hops, path.net_latency_us);
}

void choose_algorithm(CommPath& path, const AllReduceAlgos& algos) {
  path.algorithm = algos.large_message_algorithm();
  path.bus_bandwidth_gbps = algos.large_message_bus_gbps();
  path.ring_bus_gbps = algos.ring_bus_gbps;
  path.nvls_bus_gbps = algos.nvls_bus_gbps;
  path.tree_bus_gbps = algos.tree_bus_gbps;
  // Kept only where they differ (3 hosts), so most paths carry -1.
  path.nvls_tuner_bus_gbps = algos.nvls_tuner_gbps() < algos.nvls_bus_gbps ? algos.nvls_tuner_gbps() : -1;
  path.tree_tuner_bus_gbps = algos.tree_tuner_gbps() < algos.tree_bus_gbps ? algos.tree_tuner_gbps() : -1;
}

CommPath ring_plan_path(const RingPlan& plan) {
  CommPath path;
  path.ranks = std::max<int>(1, static_cast<int>(plan.order.size()));
  if (path.ranks < 2) return path;
  choose_algorithm(path, {plan.bus_bandwidth_gbps, plan.nvls_bus_gbps, NcclAlgorithm::NVLS});
  path.nvlink_hops = plan.nvlink_only;
  if (plan.nvlink_only)
    path.transport = CommTransport::NvLinkP2p;
  else
    path.transport = plan.worst_hop <= LinkClass::PXB ? CommTransport::PcieP2p : CommTransport::Shm;
  return path;
}

Expected<double> network_hop_gbps(CommTransport transport, double nic_speed_gbit, const NetworkModel& net, NicTransport fabric) {
  if (transport == CommTransport::PodSockets) return kPodSocketGbps;
  if (transport != CommTransport::Tcp && transport != CommTransport::Rdma)
    return Error{"network_hop_gbps: " + std::string(enum_name(transport)) +
                 " is an intra-host transport; its bandwidth comes from the ring model"};
  if (!(nic_speed_gbit > 0))
    return Error{"network_hop_gbps: NIC speed must be positive, got " + std::to_string(nic_speed_gbit) + " Gb/s"};
  if (transport == CommTransport::Tcp) return network_gbps(nic_speed_gbit) * net.tcp_socket_efficiency;
  if (fabric == NicTransport::Ethernet)
    return Error{"network_hop_gbps: RDMA needs an InfiniBand or RoCE fabric, not plain Ethernet"};
  return network_gbps(nic_speed_gbit) * net.efficiency(fabric);
}

Expected<double> socket_ring_bus_gbps(const std::vector<int>& rank_nodes, const std::vector<double>& node_nic_gbit,
                                      const NetworkModel& net, double pod_socket_gbps) {
  for (int node : rank_nodes)
    if (node < 0 || node >= static_cast<int>(node_nic_gbit.size()))
      return Error{"socket ring: node " + std::to_string(node) + " has no NIC speed (" + std::to_string(node_nic_gbit.size()) +
                   " given)"};
  if (rank_nodes.size() < 2) return 0.0;
  const std::vector<int> egress = crossing_hops_per_node(rank_nodes, node_nic_gbit.size(), true);
  const std::vector<int> ingress = crossing_hops_per_node(rank_nodes, node_nic_gbit.size(), false);
  double bus_gbps = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < rank_nodes.size(); ++i) {
    const int from = rank_nodes[i], to = rank_nodes[(i + 1) % rank_nodes.size()];
    if (from == to) {
      bus_gbps = std::min(bus_gbps, pod_socket_gbps);
      continue;
    }
    auto send = network_hop_gbps(CommTransport::Tcp, node_nic_gbit[from], net);
    auto receive = network_hop_gbps(CommTransport::Tcp, node_nic_gbit[to], net);
    if (!send) return send.error();
    if (!receive) return receive.error();
    bus_gbps = std::min({bus_gbps, *send / egress[from], *receive / ingress[to]});
  }
  return bus_gbps;
}

Expected<CommPath> pod_socket_path(const std::vector<PodInRing>& pods, const std::vector<double>& node_nic_gbit,
                                   const NetworkModel& net, double pod_socket_gbps) {
  if (pods.size() == 1) return pods.front().gpus ? ring_plan_path(*pods.front().gpus) : CommPath{};
  std::vector<int> rank_nodes;
  std::vector<TreeHost> tree;  // each pod is a host of NCCL's Tree too
  CommPath path;
  path.ranks = 0;
  bool all_pods_nvlink = true, any_multi_gpu_pod = false;
  double bus_gbps = std::numeric_limits<double>::infinity();
  for (const PodInRing& pod : pods) {
    rank_nodes.push_back(pod.node);
    const int gpus = pod.gpus ? std::max<int>(1, static_cast<int>(pod.gpus->order.size())) : 1;
    path.ranks += gpus;
    tree.push_back({gpus, gpus > 1 ? pod.gpus->bus_bandwidth_gbps : 0, 0});
    if (gpus < 2) continue;
    bus_gbps = std::min(bus_gbps, pod.gpus->bus_bandwidth_gbps);
    any_multi_gpu_pod = true;
    all_pods_nvlink = all_pods_nvlink && pod.gpus->nvlink_only;
  }
  auto ring_gbps = socket_ring_bus_gbps(rank_nodes, node_nic_gbit, net, pod_socket_gbps);
  if (!ring_gbps) return ring_gbps.error();
  if (pods.empty()) return CommPath{};
  path.hosts = static_cast<int>(pods.size());
  path.nvlink_hops = any_multi_gpu_pod && all_pods_nvlink;
  for (TreeHost& host : tree) host.network_gbps = *ring_gbps;  // its sockets carry what they carry in the ring
  choose_algorithm(path, {std::min(bus_gbps, *ring_gbps), 0, NcclAlgorithm::NVLS, tree_bus_gbps(tree), -1,
                          tree_bus_gbps(tree, TreeFlows::TunerCounted)});
  const bool crosses_nodes = std::any_of(rank_nodes.begin(), rank_nodes.end(), [&](int n) { return n != rank_nodes[0]; });
  path.transport = crosses_nodes ? CommTransport::Tcp : CommTransport::PodSockets;
  return path;
}

DdpPipeline ddp_pipeline(const std::vector<GradientBucket>& buckets, double backward_ms, const CommPath& path, double rate) {
  DdpPipeline out;
  if (path.ranks < 2) return out;
  double stream_free_ms = 0, largest_bytes = 0;  // from the start of the backward pass
  for (const GradientBucket& bucket : buckets) {
    const AllReduceEstimate allreduce = path_allreduce_time(bucket.bytes, path);
    const double work_ms = allreduce.time_us / 1e3;
    out.comm_ms += work_ms;
    if (bucket.bytes > largest_bytes) {
      largest_bytes = bucket.bytes;
      out.protocol = allreduce.protocol;
    }
    const double start_ms = std::max(stream_free_ms, bucket.ready_share * backward_ms);
    if (start_ms >= backward_ms) {
      stream_free_ms = start_ms + work_ms;
      continue;
    }
    const double done_beside_backward = rate * (backward_ms - start_ms);  // standalone ms of work
    stream_free_ms = (rate > 0 && done_beside_backward >= work_ms) ? start_ms + work_ms / rate
                                                                   : backward_ms + (work_ms - done_beside_backward);
  }
  out.exposed_ms = std::max(0.0, stream_free_ms - backward_ms);
  return out;
}

Expected<ThroughputEstimate> estimate_throughput(const TrainingJob& job, const CommPath& path, const OverlapModel& overlap) {
  if (Status valid = validate_path(path); !valid) return valid.error();
  const double overlap_share = overlap.fraction(job.framework);
  if (!(overlap_share >= 0 && overlap_share <= 1))
    return Error{"overlap for " + std::string(enum_name(job.framework)) + " must be in [0, 1], got " +
                 std::to_string(overlap_share)};
  if (job.gpu == nullptr) return Error{"the job's GPU model is not known"};
  auto compute_ms = compute_step_ms(job.model, *job.gpu, job.framework, job.batch_per_gpu);
  if (!compute_ms) return compute_ms.error();

  ThroughputEstimate estimate;
  estimate.compute_ms = *compute_ms;
  const double backward_ms = kBackwardShare * estimate.compute_ms;
  if (path.ranks > 1 && job.framework == TrainingFramework::PyTorch) {
    const DdpPipeline pipeline = ddp_pipeline(ddp_buckets(job.model), backward_ms, path, overlap_share);
    estimate.comm_ms = pipeline.comm_ms;
    estimate.exposed_comm_ms = pipeline.exposed_ms;
    estimate.protocol = pipeline.protocol;
  } else if (path.ranks > 1) {
    const AllReduceEstimate allreduce = path_allreduce_time(model_at(job.model)->gradient_bytes(), path);
    estimate.comm_ms = allreduce.time_us / 1e3;
    estimate.protocol = allreduce.protocol;
    estimate.exposed_comm_ms = estimate.comm_ms - std::min(estimate.comm_ms, overlap_share * backward_ms);
  }
  estimate.step_ms = estimate.compute_ms + estimate.exposed_comm_ms;
  estimate.samples_per_sec = path.ranks * static_cast<double>(job.batch_per_gpu) * 1e3 / estimate.step_ms;
  return estimate;
}

}  // namespace topsim
