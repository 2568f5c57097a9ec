// Default Kubernetes scheduling (BRIEF section 2): pods placed one at a time, no gang; nodes
// scored like kube-scheduler's default NodeResourcesFit "LeastAllocated" strategy, which
// spreads; GPU ids chosen by the NVIDIA device plugin's best-effort policy; every pod is its
// own host to NCCL, so pods talk over sockets (pod network inside a node, TCP across nodes).
//
// Scoring (kube-scheduler pkg/scheduler/framework/plugins/noderesources/least_allocated.go):
// score = (allocatable - requested) x 100 / allocatable in integer arithmetic, requested
// including the incoming pod; GPUs stand in for the pod's resources (GPU pods ask CPU and memory
// in proportion). Equal top scores are broken at random (selectHost's reservoir sampling),
// here with the run's seeded generator. Not modelled: percentageOfNodesToScore sampling and
// the other score plugins.
#include <algorithm>

#include "sim/engine.h"
#include "sim/workload_mix.h"

namespace topsim {

int Engine::pick_spreading_node(int gpus) {
  int best_score = -1, ties = 0;
  for (int t = 0; t < index_.type_count(); ++t) {
    const int capacity = index_.type_gpus(t);
    for (int c = gpus; c <= capacity; ++c) {
      const int count = static_cast<int>(index_.bucket(serving_, t, c).size());
      if (count == 0) continue;
      const int score = (c - gpus) * 100 / capacity;
      if (score > best_score) { best_score = score; ties = 0; }
      if (score == best_score) ties += count;
    }
  }
  if (best_score < 0) return -1;
  // One draw mapped by the project's own arithmetic (standard distributions differ between
  // standard libraries; this keeps a seed's output identical everywhere).
  int pick = std::min(ties - 1, static_cast<int>(uniform01(rng_) * ties));
  for (int t = 0; t < index_.type_count(); ++t) {
    const int capacity = index_.type_gpus(t);
    for (int c = gpus; c <= capacity; ++c) {
      const std::vector<int>& bucket = index_.bucket(serving_, t, c);
      if (bucket.empty() || (c - gpus) * 100 / capacity != best_score) continue;
      if (pick < static_cast<int>(bucket.size())) return bucket[pick];
      pick -= static_cast<int>(bucket.size());
    }
  }
  return -1;
}

bool Engine::place_default_pods(uint32_t id) {
  const JobSpec& job = workload_.jobs[id];
  JobRecord& r = result_.jobs[id];
  while (r.pods.size() < job.workers) {
    const int gpus = job.unequal_pod_gpus.empty() ? job.gpus_per_worker : job.unequal_pod_gpus[r.pods.size()];
    const int node = pick_spreading_node(gpus);
    if (node < 0) return false;
    PlacementRequest request;
    request.gpus = gpus;
    request.policy = PlacementPolicy::DevicePlugin;
    auto placement = cluster_.type_of(node).allocator->place(cluster_.node(node).free, request);
    if (!placement) return false;  // cannot happen: the node has `gpus` free
    take(node, placement->gpus);
    r.pods.push_back({node, placement->gpus, now_ms_});
    if (r.first_pod_ms < 0) r.first_pod_ms = now_ms_;
    if (r.pods.size() < job.workers && r.state != JobState::Partial) set_state(id, JobState::Partial);
  }
  // Ranks are handed out host by host (mpirun's by-slot mapping over a host list): pods of one
  // node get consecutive ranks, nodes in the order they were first used.
  std::vector<int> first_use;
  for (const PodPlacement& pod : r.pods)
    if (std::find(first_use.begin(), first_use.end(), pod.node) == first_use.end()) first_use.push_back(pod.node);
  std::stable_sort(r.pods.begin(), r.pods.end(), [&](const PodPlacement& a, const PodPlacement& b) {
    return std::find(first_use.begin(), first_use.end(), a.node) < std::find(first_use.begin(), first_use.end(), b.node);
  });
  r.comm = default_comm_path(r);
  return true;
}

CommPath Engine::default_comm_path(const JobRecord& record) const {
  std::vector<int> nodes;  // distinct nodes, index into node_nic_gbit
  std::vector<double> node_nic_gbit;
  std::vector<RingPlan> plans(record.pods.size());
  std::vector<PodInRing> pods;
  for (size_t i = 0; i < record.pods.size(); ++i) {
    const PodPlacement& pod = record.pods[i];
    auto at = std::find(nodes.begin(), nodes.end(), pod.node);
    if (at == nodes.end()) {
      nodes.push_back(pod.node);
      node_nic_gbit.push_back(cluster_.type_of(pod.node).primary_nic_gbit);
      at = nodes.end() - 1;
    }
    PodInRing in_ring{static_cast<int>(at - nodes.begin()), nullptr};
    if (pod.gpus.size() > 1) {
      plans[i] = cluster_.type_of(pod.node).allocator->rings().plan(pod.gpus);
      in_ring.gpus = &plans[i];
    }
    pods.push_back(in_ring);
  }
  auto path = pod_socket_path(pods, node_nic_gbit, options_.network);
  if (!path) return CommPath{};
  if (spans_racks(nodes)) path->bus_bandwidth_gbps /= cluster_.network().rack_oversubscription;  // network-bound ring
  return *path;
}

}  // namespace topsim
