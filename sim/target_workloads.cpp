#include "sim/target_workloads.h"

#include <vector>

namespace topsim {

TargetWorkload target_workload(const ClusterState& cluster, const Workload& workload, NodeMode serves, double coverage) {
  if (workload.fragmentation_specs) return derive_target_workload(*workload.fragmentation_specs, coverage);
  const bool topology_aware = serves == NodeMode::Topology;
  std::vector<TaskSpec> specs;
  JobCursor cursor(workload);
  while (const JobSpec* next = cursor.next()) {
    const JobSpec& job = *next;
    if (job.is_share()) {
      const NodeMode label = job.gpu_core_percent > 0 ? NodeMode::CoreMem : NodeMode::Share;
      specs.push_back(task_spec(pod_request(job), cluster.max_card_mem_gib(label)));
    } else {
      for (size_t pod = 0; pod < job.workers; ++pod) specs.push_back(task_spec(pod_request(job, pod, topology_aware)));
    }
  }
  if (specs.empty()) return {};
  return derive_target_workload(specs, coverage);
}

std::shared_ptr<const TargetWorkload> TargetWorkloads::get(const ClusterState& cluster, const Workload& workload, NodeMode serves,
                                                           double coverage) {
  const Key key = workload.fragmentation_specs
                      ? Key{&workload, false, coverage, 0, 0}
                      : Key{&workload, serves == NodeMode::Topology, coverage, cluster.max_card_mem_gib(NodeMode::Share),
                            cluster.max_card_mem_gib(NodeMode::CoreMem)};
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = targets_.find(key); it != targets_.end()) return it->second;
  }
  // Derived outside the lock (two threads may both derive one; the first stored is kept, and
  // both are the same).
  auto target = std::make_shared<const TargetWorkload>(target_workload(cluster, workload, serves, coverage));
  const std::lock_guard<std::mutex> lock(mutex_);
  return targets_.emplace(key, std::move(target)).first->second;
}

size_t TargetWorkloads::size() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return targets_.size();
}

}  // namespace topsim
