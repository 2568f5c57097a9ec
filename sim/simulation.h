// The discrete-event simulation: replays a workload on a cluster under one scheduler and
// records every job's lifecycle, placement, communication path and throughput.
//
// Time is integer milliseconds. Events are ordered by (time, sequence number): simultaneous
// events are handled in the order they were created, so a run is deterministic. After all
// events of one instant are handled, the scheduler runs one pass over the pending queue.
// Lifecycle: submitted -> pending -> (partially placed: default scheduler only) -> running ->
// finished; or rejected at submission (with a reason); or stuck (partially placed when the
// simulation ends: the default scheduler's deadlock).
//
// Run time feeds back from placement: a job with `iterations` runs iterations x step time; a
// job with a trace duration runs duration x ideal / actual throughput, where "ideal" is the
// throughput the topology-aware scheduler gets for the same job on idle nodes of the type it
// runs on (a trace records how long the job took; we take that as its best case).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/gang.h"
#include "core/share_policies.h"
#include "core/throughput.h"
#include "sim/cluster.h"
#include "sim/job.h"

namespace topsim {

enum class SchedulerKind : uint8_t {
  TopologyAware,  // gang, best-fit GPUs, fewest nodes, host IPC/network (BRIEF section 1)
  Default,        // pod by pod, spread scoring, device-plugin GPUs, pod networking (section 2)
};
const char* scheduler_name(SchedulerKind kind);  // "topology-aware", "default"

enum class JobState : uint8_t { Pending, Partial, Running, Finished, Rejected, Stuck };
const char* job_state_name(JobState state);

struct SimOptions {
  SchedulerKind scheduler = SchedulerKind::TopologyAware;
  bool backfill = true;             // topology-aware queue: FIFO with backfill (a job that does
                                    // not fit does not block smaller ones behind it); default true
  uint64_t seed = 1;                // default scheduler's tie-breaking among equal nodes
  NetworkModel network;             // NIC efficiency per transport
  OverlapModel overlap;             // all-reduce / backward overlap per framework
  bool record_transitions = true;   // keep every lifecycle transition (off for huge workloads)
  // Card and node choice for shared-GPU jobs on `share` / `core_mem` nodes, the same under both
  // schedulers (the sharing extender is independent of them); default binpack.
  SharePolicyKind share_policy = SharePolicyKind::Binpack;
  // Period of the sampled state (SimResult::samples), ms; 0 = automatic: the smallest round
  // period (1 s, 2 s, 5 s, ... 1 h, 2 h, ... 1 d, 2 d, then whole weeks) giving at most 100
  // samples from the first submission to the latest submission + trace duration; should the
  // run last longer than that (iterations, queueing), the period doubles whenever the samples
  // exceed 1,000. Default 0.
  int64_t sample_every_ms = 0;
};

// The automatic sample period for a workload (SimOptions::sample_every_ms = 0).
int64_t auto_sample_period_ms(const Workload& workload);

struct PodPlacement {
  int node = 0;
  std::vector<int> gpus;
  int64_t placed_ms = 0;  // when the pod got its GPUs
};

struct JobRecord {
  JobState state = JobState::Pending;
  int64_t submit_ms = 0;
  int64_t start_ms = -1;            // all pods placed and the job started
  int64_t finish_ms = -1;
  int64_t first_pod_ms = -1;        // default scheduler: first pod placed (GPUs held from here)
  std::vector<PodPlacement> pods;   // placed pods, in rank order
  CommPath comm;                    // communication path of the running job
  double samples_per_sec = 0;       // predicted throughput of the whole job
  double ideal_samples_per_sec = 0; // throughput under the ideal placement (see header)
  bool cross_numa = false;          // some node holds GPUs of this job on several NUMA nodes
  std::vector<std::string> relaxed; // constraints the allocator dropped (fallback)
  bool share = false;               // a shared-GPU job (its one pod holds a share of one card)
  std::string reason;               // rejection / stuck reason
};

struct Transition {
  int64_t time_ms = 0;
  uint32_t job = 0;
  JobState to = JobState::Pending;
};

// The cluster at one instant (the state after every event with time <= time_ms). GPU shares
// are in GPUs (a card is 1): on `share` nodes a card's free share is its free memory over its
// memory, on `core_mem` nodes its free compute, elsewhere 1 while idle and 0 once taken.
struct SimSample {
  int64_t time_ms = 0;
  int64_t running = 0;          // jobs running
  int64_t pending = 0;          // jobs waiting (including partially placed ones)
  double allocated_gpus = 0;    // GPU share allocated
  double fragmentation_gpus = 0;  // FGD's F over the cluster (core/fragmentation.h)
  double fragmentation_rate = 0;  // F / unallocated GPU share (0 when nothing is free)
  double unusable_gpus = 0;     // free share no pod of the target workload can use where it is
  int idle_cards = 0;           // cards without any pod
};

// Time-weighted means over [first submission, makespan] of the sampled quantities (exact:
// integrated between events, not averaged over samples).
struct TimeAverages {
  double allocated_gpus = 0, fragmentation_gpus = 0, fragmentation_rate = 0, pending = 0, running = 0;
  int64_t peak_pending = 0;
};

struct SimResult {
  SchedulerKind scheduler = SchedulerKind::TopologyAware;
  std::vector<JobRecord> jobs;       // by job id
  std::vector<Transition> transitions;
  int64_t makespan_ms = 0;           // last finish (or last event) time
  uint64_t events = 0;               // events processed
  int64_t busy_gpu_ms = 0;           // GPU-time of running jobs
  int64_t held_idle_gpu_ms = 0;      // GPU-time held by partially placed jobs (default scheduler)
  int total_gpus = 0;
  // Fragmentation is measured against the target workload of FGD ("Beware of Fragmentation",
  // USENIX ATC '23): the pod specs of this workload covering 95% of its pods, by popularity.
  int64_t sample_every_ms = 0;
  std::vector<SimSample> samples;    // every sample_every_ms from the first submission's multiple
  TimeAverages averages;
  size_t target_specs = 0;           // pod specs in the target workload
};

// Runs the workload to completion (or until nothing more can happen). The cluster is copied:
// the caller's is left as it was.
SimResult simulate(const ClusterState& cluster, const Workload& workload, const SimOptions& options);

}  // namespace topsim
