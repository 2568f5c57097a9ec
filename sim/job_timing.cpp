#include "sim/job_timing.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/builtin_models.h"
#include "core/gang.h"

namespace topsim {

JobTimer::JobTimer(const ClusterState& cluster, const NetworkModel& network, const OverlapModel& overlap,
                   const std::string& reference_gpu)
    : cluster_(cluster), network_(network), overlap_(overlap) {
  if (!reference_gpu.empty()) reference_gpu_ = find_gpu_model(reference_gpu);
}

Expected<ThroughputEstimate> JobTimer::throughput(const JobSpec& job, const NodeType& type, const CommPath& path) const {
  const TrainingJob tj{job.model, job.framework, job.batch_per_gpu, type.gpu};
  return estimate_throughput(tj, path, overlap_);
}

const NodeType* JobTimer::reference_type(const JobSpec& job) {
  const GpuModel* gpu = job.reference_gpu == kWorkloadReference ? reference_gpu_ : gpu_at(job.reference_gpu);
  if (gpu == nullptr) return nullptr;
  auto [it, fresh] = reference_types_.emplace(gpu->catalog_index, nullptr);
  if (fresh) {
    NodeGroupSpec group;
    group.model = reference_node_model(*gpu);
    group.count = 1;
    auto type = modelled_type(group, cluster_.network());  // on the cluster's network, as its own nodes
    if (type) it->second = std::move(type).value();
  }
  return it->second.get();
}

double JobTimer::ideal_samples_per_sec(const JobSpec& job, const NodeType& type, int type_key) {
  const auto key = std::make_tuple(type_key, int{job.workers}, int{job.gpus_per_worker}, int{job.model},
                                   static_cast<int>(job.framework), int{job.batch_per_gpu});
  if (auto it = ideal_cache_.find(key); it != ideal_cache_.end()) return it->second;
  const int node_gpus = type.gpus;
  CommPath path;
  if (job.total_gpus() <= node_gpus) {
    PlacementRequest request;
    request.gpus = job.total_gpus();
    auto placement = type.allocator->place(all_gpus(node_gpus), request);
    if (placement) path = ring_plan_path(placement->ring);
  } else {
    const size_t nodes = static_cast<size_t>((job.total_gpus() + node_gpus - 1) / node_gpus);
    std::vector<GangNode> idle(nodes, GangNode{type.allocator.get(), all_gpus(node_gpus), ""});
    GangRequest request;
    request.workers = job.workers;
    request.gpus_per_worker = job.gpus_per_worker;
    auto placement = place_gang(idle, request, network_);
    if (placement) path = gang_comm_path(*placement, idle);
  }
  auto estimate = throughput(job, type, path);
  const double ideal = estimate ? estimate->samples_per_sec : 0;
  ideal_cache_.emplace(key, ideal);
  return ideal;
}

bool JobTimer::cross_numa(const JobRecord& record) const {
  std::map<int, std::set<int>> numa_by_node;
  for (const PodPlacement& pod : record.pods) {
    const Topology& topology = *cluster_.type_of(pod.node).topology;
    for (int g : pod.gpus) numa_by_node[pod.node].insert(topology.gpu_numa(g));
  }
  for (const auto& [node, numa] : numa_by_node)
    if (numa.size() > 1) return true;
  return false;
}

namespace {

// A run time in whole ms from a double, at most kMaxRunMs (a cast of a larger double is undefined).
int64_t run_ms_of(double ms) {
  if (!(ms < static_cast<double>(kMaxRunMs))) return kMaxRunMs;  // NaN too
  return std::max<int64_t>(0, static_cast<int64_t>(std::ceil(ms)));
}

}  // namespace

JobTiming JobTimer::time(const JobSpec& job, const JobRecord& record) {
  JobTiming t;
  const int node_type = cluster_.node(record.pods.front().node).type;
  const NodeType& type = cluster_.type(node_type);
  const auto estimate = throughput(job, type, record.comm);
  t.samples_per_sec = estimate ? estimate->samples_per_sec : 0;
  t.ideal_samples_per_sec = ideal_samples_per_sec(job, type, node_type);
  t.cross_numa = cross_numa(record);
  if (job.iterations > 0 && estimate) {
    t.run_ms = run_ms_of(static_cast<double>(job.iterations) * estimate->step_ms);
    t.work_samples = static_cast<double>(job.iterations) * job.batch_per_gpu * job.total_gpus();
    return t;
  }
  const NodeType* reference = reference_type(job);
  const double reference_rate =
      reference ? ideal_samples_per_sec(job, *reference, -1 - reference->gpu->catalog_index) : t.ideal_samples_per_sec;
  if (job.ideal_duration_ms != kForeverMs && t.samples_per_sec > 0 && reference_rate > 0) {
    t.work_samples = static_cast<double>(job.ideal_duration_ms) / 1e3 * reference_rate;
    t.run_ms = run_ms_of(static_cast<double>(job.ideal_duration_ms) * (reference_rate / t.samples_per_sec));
  } else {
    t.run_ms = job.ideal_duration_ms;
  }
  return t;
}

}  // namespace topsim
