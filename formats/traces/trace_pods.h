// The Alibaba 2023 trace's pods as they are (workload kind `alibaba-pods`): each pod one job of
// kind TracePod asking its CPU, memory and `gpu_milli` thousandths of each of `num_gpu` cards
// of the GPU types its `gpu_spec` allows, for clusters read from the trace's node list (FGD's
// setting). Two ways to use the pod list:
// - replay: the pods with creation and deletion times arrive at their creation time (the
//   earliest at 0) and run their recorded time (scheduled, or else creation, to deletion);
// - fill (FGD's protocol): pods drawn uniformly with replacement, engine() % pods with
//   std::mt19937_64(run seed), until the drawn GPU request reaches the target share of the
//   cluster's GPU capacity (the pod that crosses it is the last); one pod per millisecond,
//   none departs.
// FGD's fragmentation measure is derived from the whole pod list in both cases. Each job's queue
// is its pod's `qos` (trace_pod_queue), names in the order the workload's jobs first name them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/fragmentation.h"
#include "sim/job.h"
#include "util/expected.h"

namespace topsim {

struct TracePodList {
  std::string file;                                    // the file name, without its folder
  std::vector<JobSpec> pods;                           // every pod, in file order (submit and duration unset)
  std::vector<std::string> queue_names;                // the pods' qos values, indexed by their JobSpec::queue
  std::vector<std::string> names;                      // pod names, by index
  std::vector<int64_t> arrival_s;                      // creation time, -1 when absent
  std::vector<int64_t> run_s;                          // recorded run time, -1 when a time is absent
  std::shared_ptr<const std::vector<TaskSpec>> specs;  // FGD task specs of every pod
};

// Errors: the trace reader's (file, line, column); values beyond what a pod can ask (num_gpu
// above 65535, gpu_milli above 65535, CPU or memory above 2^31 - 1) name the pod.
[[nodiscard]] Expected<TracePodList> load_trace_pods(const std::string& path);

// The timed pods over time (the first `max_pods` timed pods of the file when > 0). Error: no
// pod has both times (the 5-column variants cannot be replayed).
[[nodiscard]] Expected<Workload> replay_trace_pods(const TracePodList& list, int64_t max_pods);
// FGD's fill protocol for one run seed on a cluster of `capacity_milli` GPU thousandths.
Workload sample_trace_pods(const TracePodList& list, uint64_t run_seed, int64_t capacity_milli, double target_load);

// The FGD artifact's arrivals (kubernetes-scheduler-simulator, pkg/simulator/simulator.go:
// SortClusterPods, then TunePodsByNodeTotalResource) for one run seed, with std::mt19937_64(run
// seed) in place of Go's generator:
// - the whole pod list, shuffled (Fisher-Yates, draw = engine() % (i + 1));
// - when its GPU request exceeds target_load x capacity: pods removed at random positions
//   until it does not (tuneDownPods);
// - else pods drawn uniformly with replacement and appended until the next draw would cross
//   the target, tested, as the artifact does, with that pod's per-card share added to the
//   running total (not its count x share), which is then increased by its total (tuneUpPods).
// The pod that would cross is not added: the arrived load stays at or below the target.
Workload artifact_trace_pods(const TracePodList& list, uint64_t run_seed, int64_t capacity_milli, double target_load);

}  // namespace topsim
