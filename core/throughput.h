// Training-throughput model: how many samples/sec a data-parallel job trains at, given what its
// placement gives the gradient all-reduce (ranks, hosts, ring bus bandwidth, transport).
//
// Step model (REFERENCE.md "Data-parallel step"), per GPU and step:
//   compute_ms  = compute_step_ms(model, GPU, framework, batch)   (core/model_catalog.h)
//   backward_ms = 2/3 x compute_ms
//   comm_ms     = allreduce_time(4 x params bytes, ranks, hosts, bus GB/s, nvlink hops) (ring.h);
//                 PyTorch: summed over its DDP buckets, each paying NCCL's latency
//   hidden_ms   = TensorFlow + Horovod: min(comm_ms, overlap x backward_ms), one calibrated share;
//                 PyTorch (DistributedDataParallel): what its bucket pipeline hides (ddp_pipeline)
//   step_ms     = compute_ms + (comm_ms - hidden_ms)
//   samples/sec = ranks x batch / step_ms (the whole job)
// `overlap` (OverlapModel) is, for TensorFlow, the share of the backward pass during which the
// all-reduce effectively runs concurrently; for PyTorch, the rate at which an all-reduce
// progresses beside the backward pass. Values and reasoning in docs/throughput-model.md.
//
// Communication path. The simulator describes each placement with a CommPath:
// - one node, pods with host IPC/network (topology-aware): ring_plan_path(RingPlan) - NVLink
//   P2P, PCIe P2P, or SHM through host memory, with the RingModel's bus bandwidth;
// - several nodes with host networking: gang_comm_path(GangPlacement) - TCP or RDMA across
//   nodes with gang.h's bandwidth model;
// - pods without host IPC/network (default scheduling): every pod is its own host to NCCL
//   (hostname/boot-id hash), so pods on one node talk over sockets through the pod network and
//   pods on different nodes over TCP through each node's NIC: pod_socket_path(...).
// The model never looks at the model name or job shape beyond these inputs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/gang.h"
#include "core/model_catalog.h"
#include "core/model_layers.h"
#include "core/nccl_algo.h"
#include "core/node_model.h"
#include "core/ring.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

// The transport the all-reduce ring actually uses (its slowest kind of hop).
enum class CommTransport : uint8_t {
  None,        // one GPU: no communication
  NvLinkP2p,   // one host, every hop NVLink (direct or NVSwitch)
  PcieP2p,     // one host, GPU P2P over PCIe (NCCL P2P level: up to PXB)
  Shm,         // one host, through host memory (PHB/NODE/SYS pairs)
  PodSockets,  // one node, separate pods: TCP sockets over the pod network (veth/bridge)
  Tcp,         // across nodes, TCP sockets over the node NIC
  Rdma,        // across nodes, InfiniBand or RoCE verbs
};
template <>
struct EnumNames<CommTransport> {
  static constexpr std::array<EnumName<CommTransport>, 7> table{{{CommTransport::None, "none"},
                                                                 {CommTransport::NvLinkP2p, "nvlink-p2p"},
                                                                 {CommTransport::PcieP2p, "pcie-p2p"},
                                                                 {CommTransport::Shm, "shm"},
                                                                 {CommTransport::PodSockets, "pod-sockets"},
                                                                 {CommTransport::Tcp, "tcp"},
                                                                 {CommTransport::Rdma, "rdma"}}};
};

struct CommPath {
  int ranks = 1;  // GPUs in the all-reduce (workers x GPUs per worker)
  // Hosts as NCCL sees them: NVLink domains (a node, or the nodes of one multi-node NVLink
  // domain) with host IPC/network, else pods.
  int hosts = 1;
  double bus_bandwidth_gbps = 0;  // bus bandwidth of `algorithm`, GB/s; > 0 when ranks > 1
  bool nvlink_hops = false;       // intra-host hops are NVLink (NVLink rather than PCIe hop latency)
  CommTransport transport = CommTransport::None;
  // The algorithm NCCL runs for large messages (core/nccl_algo.h); default Ring.
  NcclAlgorithm algorithm = NcclAlgorithm::Ring;
  // Each candidate's bus bandwidth when the path was made (NCCL's tuner chooses per message size,
  // so smaller messages may still run another), GB/s; 0 = not possible (NVLS before Hopper, Tree
  // on one host). The chosen algorithm's figure is bus_bandwidth_gbps, which callers may lower
  // (oversubscription, contention, a measured pair); algos() caps the others at it.
  double ring_bus_gbps = 0;
  double nvls_bus_gbps = 0;  // NVLS on one host, NVLSTree across hosts
  double tree_bus_gbps = 0;
  // What NCCL's tuner expects of NVLS/NVLSTree and Tree where it differs from their figures above
  // (AllReduceAlgos), GB/s; negative: the same.
  double nvls_tuner_bus_gbps = -1;
  double tree_tuner_bus_gbps = -1;
  // What the network adds to each inter-host step of the all-reduce beyond NCCL's per-hop
  // constants (ring.h allreduce_time: a measured pair's latency), us; default 0.
  double net_latency_us = 0;

  // The candidates NCCL's tuner chooses from: `algorithm`'s at bus_bandwidth_gbps, the others
  // seen by the tuner at most at that (what they would carry scaled with it where it differs).
  AllReduceAlgos algos() const;
};

// The all-reduce of `bytes` over `path`: nccl_algo.h allreduce_time with its ranks, hosts,
// algorithms and network latency.
AllReduceEstimate path_allreduce_time(double bytes, const CommPath& path);

// Pods on one node exchanging data over sockets through the pod network (veth pair + bridge).
// The bytes never reach a NIC: a veth pair and a bridge hand packets between two network
// namespaces inside the kernel, so the hop is bound by the copies on either side, not by any
// line rate. On a veth NCCL's socket transport finds no PCI vendor for the device and so
// starts no helper threads and one socket per connection (net_socket.cc auto-detection): its
// proxy thread moves every byte through send()/recv(). That transport's own ceiling was
// measured at 2.4 GB/s, ~60% of a 32 Gb/s link it could not fill (nccl#209); a single netperf
// TCP stream between containers over a Linux bridge measured 2.23 GB/s (mtarsel.github.io 2017
// "docker-thruput"), within 8%. The NCCL figure is taken, as it measures the transport used.
inline constexpr double kPodSocketGbps = 2.4;

// Communication path of a single-host ring (`plan` over the job's GPUs of one node, all pods
// sharing host IPC): NVLink P2P when the plan is NVLink-only, PCIe P2P when its worst hop is
// at most PXB (NCCL's default P2P level), else SHM. One GPU: ranks 1, transport None.
CommPath ring_plan_path(const RingPlan& plan);

// Sets `path`'s bus bandwidth and algorithm to what NCCL runs for large messages among `algos`,
// keeping every candidate's figure.
void choose_algorithm(CommPath& path, const AllReduceAlgos& algos);

// Communication path of a host-networked gang (gang.h), ranks W x G, by NVLink domain (a node,
// or the nodes sharing one GangNode::nvlink_domain id):
// - one domain: on one node ring_plan_path of its ring; across the nodes of a multi-node NVLink
//   domain, NVLink P2P through the domain's switch, one host to NCCL: the ring at the least
//   NVLink rate of its nodes (a node's ring, or its GPUs' link into the switch) and NVLS over all
//   ranks (core/nccl_algo.h);
// - several domains: hosts = domains; the ring visits each domain once, so its bus bandwidth is
//   the least over domains of min(the domain's NVLink ring, the achieved network bandwidth of
//   its nodes' NICs, at most kNcclMnnvlNetNics of them in a multi-node domain) (gang.h); NVLSTree beside it when every domain can
//   run NVLS; NVLink hops when every node's ring is NVLink-only; RDMA when every NIC used is InfiniBand/RoCE, TCP when any is
//   Ethernet.
// `bus_bandwidth_gbps` and `algorithm` are the larger of ring and NVLS/NVLSTree.
// REQUIRES: `nodes` is the list `placement` was made from; the nodes of one nvlink_domain hold one
// GPU model (an input with a mixed domain is the loader's error; here the least sm and link of
// the domain would be taken).
CommPath gang_comm_path(const GangPlacement& placement, const std::vector<GangNode>& nodes);

// Achieved GB/s of one ring hop over `transport` with a NIC of `nic_speed_gbit` Gb/s:
// PodSockets: kPodSocketGbps (no NIC on the path; the speed is ignored); Tcp:
// network_gbps(speed) x net.tcp_socket_efficiency; Rdma: network_gbps(speed) x
// net.efficiency(fabric) with fabric InfiniBand or RoCE. Errors: an intra-host transport
// (NVLink/PCIe/SHM/None: their bandwidth comes from the RingModel), a non-positive NIC speed,
// RDMA over a plain Ethernet fabric.
Expected<double> network_hop_gbps(CommTransport transport, double nic_speed_gbit, const NetworkModel& net = {},
                                  NicTransport fabric = NicTransport::InfiniBand);

// Bus bandwidth (GB/s) of a ring of single-GPU pods in rank order (rank i sends to rank i+1,
// the last to rank 0; NCCL orders the ring of separate hosts by rank). `rank_nodes[i]` is the
// node of rank i, `node_nic_gbit[n]` node n's NIC line rate. A hop between pods of one node
// runs over the pod network at `pod_socket_gbps`; a hop between nodes is TCP at the sending
// NIC's egress and the receiving NIC's ingress rate (network_hop_gbps(Tcp)), each divided by
// the number of ring hops leaving (entering) that NIC: ring hops in one direction share it.
// The ring's bus bandwidth is its slowest hop. Fewer than 2 ranks: 0.
// Errors: a node index outside node_nic_gbit, a non-positive NIC speed on a used node.
Expected<double> socket_ring_bus_gbps(const std::vector<int>& rank_nodes, const std::vector<double>& node_nic_gbit,
                                      const NetworkModel& net = {}, double pod_socket_gbps = kPodSocketGbps);

// One pod of a socket ring: the node it runs on and, for pods with several GPUs, the rings
// over its GPUs (inside one container NCCL uses P2P/SHM as on one host).
struct PodInRing {
  int node = 0;                    // index into node_nic_gbit
  const RingPlan* gpus = nullptr;  // nullptr: a 1-GPU pod. REQUIRES: outlives the call
};

// Communication path of pods without host IPC/network, in rank order: ranks = total GPUs,
// hosts = pods, the ring's bus = min(socket_ring_bus_gbps over the pods, every multi-GPU pod's
// ring bus bandwidth), Tree beside it (core/nccl_algo.h; each pod a host whose network is the
// socket ring's figure), bus_bandwidth_gbps the larger; transport Tcp when the ring crosses nodes else PodSockets (pod-to-pod
// hops are network hops to NCCL); nvlink_hops when there are multi-GPU pods and all their rings are NVLink-only. A single pod is
// one host: ring_plan_path of its GPUs. No pods: one idle rank.
Expected<CommPath> pod_socket_path(const std::vector<PodInRing>& pods, const std::vector<double>& node_nic_gbit,
                                   const NetworkModel& net = {}, double pod_socket_gbps = kPodSocketGbps);

// Share of the backward pass the gradient all-reduce effectively overlaps, per framework.
// Calibrated from the brief's TensorFlow + Horovod table (docs/throughput-model.md): the two
// default-placement targets are both met within +-10% for any value in [0, 0.5] with the
// calibration network; 0.33 is their least-squares centre in relative error (0.328 to three
// digits: VGG16 -2.39%, ResNet50 +0.96%; rounded to 0.3 until this release, which left
// VGG16 -2.77% and ResNet50 -0.07%, a larger sum of squares). It is far below what
// gradient readiness alone would allow (reverse-order gradients: most bytes are ready early in
// the backward pass), because concurrent NCCL and compute kernels share the GPU and Horovod
// issues one fused all-reduce (<= 64 MB) at a time, negotiated every 5 ms cycle.
inline constexpr double kTensorFlowHorovodOverlap = 0.33;
// PyTorch jobs run DistributedDataParallel's bucket pipeline (ddp_pipeline); this is the rate at
// which an all-reduce progresses beside the backward pass, relative to its speed alone. It is
// the TensorFlow calibration's share read as what it measures: there an all-reduce is in flight
// for the whole backward pass (bytes ready early, the all-reduce outlasting the pass), so the
// hidden share of the pass is that rate. Not fitted to any PyTorch figure; no source measures
// DDP's separately.
inline constexpr double kPyTorchDdpRate = kTensorFlowHorovodOverlap;

// The calibration network: the brief's 2 x dgx1-v100 cluster as the default scheduler uses it
// (docs/throughput-model.md). Scenario parameters, not defaults: a cluster sets them through
// its NetworkModel and NIC speed.
// - NIC: 10 GbE. With overlap 0.33 the two default-placement targets are both met within 10%
//   for a TCP hop of 0.69-0.86 GB/s (a 2 + 2 ring grouped by node crosses each NIC once per
//   direction). 25 GbE would need an efficiency of 0.22-0.28, below the lowest documented
//   socket-transport figure (0.32, nccl#450); 10 GbE needs 0.55-0.69, around the documented top.
// - TCP efficiency 0.6: NCCL's socket transport reached at most ~60% of wire speed (nccl#209,
//   32 Gb/s); pods add the pod network's per-packet cost on top of NCCL's single-socket proxy,
//   so the top of the range is not exceeded even on a slower link. gang.h's default (0.5)
//   would give 0.625 GB/s and miss both targets by 10-17%.
inline constexpr double kCalibrationNicGbit = 10;
inline constexpr double kCalibrationTcpSocketEfficiency = 0.6;

struct OverlapModel {
  double tensorflow = kTensorFlowHorovodOverlap;  // default 0.33
  double pytorch = kPyTorchDdpRate;               // default 0.33: DDP's concurrency rate
  double fraction(TrainingFramework framework) const { return framework == TrainingFramework::TensorFlow ? tensorflow : pytorch; }
};

struct TrainingJob {
  int model = 0;  // index into model_catalog()
  TrainingFramework framework = TrainingFramework::PyTorch;
  int batch_per_gpu = 64;
  const GpuModel* gpu = nullptr;  // the job's GPUs (a catalog entry; training_gpu() maps a name)
};

struct ThroughputEstimate {
  double samples_per_sec = 0;                    // whole job (all ranks), in the model's unit
  double step_ms = 0;                            // compute + exposed communication
  double compute_ms = 0;                         // per GPU: forward + backward + update
  double comm_ms = 0;                            // full gradient all-reduce time
  double exposed_comm_ms = 0;                    // the part not hidden behind the backward pass
  NcclProtocol protocol = NcclProtocol::Simple;  // chosen by allreduce_time (meaningless without comm)
};

// PyTorch DistributedDataParallel's gradient pipeline over one step's backward pass (Li et al.,
// "PyTorch Distributed: Experiences on Accelerating Data Parallel Training", VLDB 2020, and
// torch.nn.parallel.DistributedDataParallel): each bucket (core/model_layers.h ddp_buckets) is
// all-reduced as soon as its last gradient is ready and the previous bucket's all-reduce is done
// (one NCCL stream, so all-reduces run one after another); the optimizer waits for the last one.
// Each bucket's all-reduce takes allreduce_time(bucket bytes, ...) alone: buckets pay NCCL's
// latency each. While the backward pass runs, an all-reduce progresses at `rate` of its speed
// alone (compute and communication kernels share the GPU); after it, at full speed.
struct DdpPipeline {
  double comm_ms = 0;                            // every bucket's all-reduce time alone, summed
  double exposed_ms = 0;                         // how long the last all-reduce ends after the backward pass
  NcclProtocol protocol = NcclProtocol::Simple;  // the largest bucket's
};
// REQUIRES: 0 <= rate <= 1, backward_ms >= 0, a path valid for estimate_throughput. Fewer than 2
// ranks: nothing to all-reduce.
DdpPipeline ddp_pipeline(const std::vector<GradientBucket>& buckets, double backward_ms, const CommPath& path, double rate);

// Errors: unknown model index, unsupported GPU generation, batch < 1, ranks < 1, hosts < 1 or
// hosts > ranks, ranks > 1 with a non-positive bus bandwidth, overlap outside [0, 1].
Expected<ThroughputEstimate> estimate_throughput(const TrainingJob& job, const CommPath& path, const OverlapModel& overlap = {});

}  // namespace topsim
