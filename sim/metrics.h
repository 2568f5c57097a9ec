// Per-scheduler summary metrics of a simulation run: waiting time and JCT distributions,
// makespan, GPU utilisation, and the placement-quality figures operators alert on
// (topology-scheduling success rate, cross-NUMA allocation ratio, fallbacks).
#pragma once

#include <cstdint>

#include "sim/simulation.h"

namespace topsim {

struct Distribution {
  double mean = 0, p50 = 0, p95 = 0, p99 = 0;  // nearest-rank percentiles
  uint64_t count = 0;
};

struct RunSummary {
  SchedulerKind scheduler = SchedulerKind::TopologyAware;
  uint64_t jobs = 0, finished = 0, rejected = 0, stuck = 0, never_placed = 0;
  Distribution wait_s;            // start - submit, finished jobs
  Distribution jct_s;             // finish - submit, finished jobs
  double makespan_s = 0;
  double gpu_utilisation = 0;     // GPU-time of running jobs / (GPUs x makespan)
  double held_idle_gpu_hours = 0; // GPUs held by partially placed jobs while not running
  // Multi-GPU placements: share that spans several NUMA nodes on some node (> 0.5 warns).
  double cross_numa_ratio = 0;
  // Topology-aware only: placements made without dropping a constraint, over all placements
  // (< 0.8 warns); -1 for the default scheduler, which has no topology constraints.
  double topology_success_rate = 0;
  uint64_t fallbacks = 0;         // placements that dropped a constraint
  // Mean over finished multi-GPU jobs of placed throughput / ideal-placement throughput.
  double placement_efficiency = 0;
  uint64_t events = 0;
  uint64_t share_jobs = 0;        // shared-GPU jobs in the workload
  Distribution share_wait_s;      // start - submit, finished shared-GPU jobs
  TimeAverages averages;          // allocation, fragmentation and queue over time (SimResult)
};

RunSummary summarize(const SimResult& result);

}  // namespace topsim
