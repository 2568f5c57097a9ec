#pragma once
// FGD's target workload of a run (core/fragmentation.h TargetWorkload), and a cache of them for
// the runs of one experiment or plan: every replay of a plan and every seed and scheduler of a run
// derives the same target from the same workload, which cost a Philly replay 25 M instructions
// (a pod spec per pod, then the counting) before its first event.
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "core/fragmentation.h"
#include "sim/cluster.h"
#include "sim/job.h"

namespace topsim {

// The trace's pod list when the workload brings one, else the jobs' own pods (whole-GPU pods as
// a scheduler serving `serves` asks for them: topology-aware requests on topology nodes; shares
// by the largest card of the label that serves them); `coverage`: the share of the tasks the
// kept specs cover (FGD: 0.95).
TargetWorkload target_workload(const ClusterState& cluster, const Workload& workload, NodeMode serves, double coverage);

// Target workloads by what they are derived from. Thread-safe. REQUIRES: every workload given
// outlives the cache and does not change (it is known by its address).
class TargetWorkloads {
 public:
  std::shared_ptr<const TargetWorkload> get(const ClusterState& cluster, const Workload& workload, NodeMode serves,
                                            double coverage);
  // The targets held: one per workload, label's way of asking and coverage asked for.
  size_t size();

 private:
  // The workload, whether pods are asked topology-aware, the coverage, and the largest card of
  // the share and core_mem labels (what a share's spec depends on); with the trace's own pod
  // list only the workload and the coverage.
  using Key = std::tuple<const Workload*, bool, double, int, int>;
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<const TargetWorkload>> targets_;
};

}  // namespace topsim
