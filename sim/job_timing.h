// How fast a started training job runs where it was placed, and so how long it runs: its
// predicted throughput over its communication path (core/throughput.h), the throughput of the
// ideal placement (the topology-aware allocator's choice on idle nodes of the type it runs on),
// and its run time (iterations x step time, or trace duration x ideal / actual throughput).
#pragma once

#include <cstdint>
#include <map>
#include <tuple>

#include "core/network_model.h"
#include "core/throughput.h"
#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/job_record.h"

namespace topsim {

struct JobTiming {
  double samples_per_sec = 0;
  double ideal_samples_per_sec = 0;
  int64_t run_ms = 0;
  bool cross_numa = false;  // some node holds GPUs of this job on several NUMA nodes
};

class JobTimer {
 public:
  // REQUIRES: `cluster` outlives the timer.
  JobTimer(const ClusterState& cluster, const NetworkModel& network, const OverlapModel& overlap)
      : cluster_(cluster), network_(network), overlap_(overlap) {}

  // REQUIRES: a training job whose pods and communication path are in `record`.
  JobTiming time(const JobSpec& job, const JobRecord& record);

 private:
  Expected<ThroughputEstimate> throughput(const JobSpec& job, int node_type, const CommPath& path) const;
  double ideal_samples_per_sec(const JobSpec& job, int node_type);
  bool cross_numa(const JobRecord& record) const;

  const ClusterState& cluster_;
  NetworkModel network_;
  OverlapModel overlap_;
  std::map<std::tuple<int, int, int, int, int, int>, double> ideal_cache_;
};

}  // namespace topsim
