// The discrete-event engine: replays a workload on a cluster under one scheduler (and, for GPU
// shares it does not place itself, a share scheduler) and records every job's lifecycle,
// placement, communication path and throughput, and the cluster's state over time.
//
// Time is integer milliseconds. Events (submissions, then finishes) are ordered by (time,
// sequence number): simultaneous events are handled in the order they were created, so a run
// is deterministic. After all events of one instant are handled, each scheduler runs one pass
// over its pending queue (sim/scheduler.h). Replays run jobs for their duration and retry
// waiting jobs as resources free up; fill experiments (`jobs_wait` false) submit jobs that
// never finish and fail a job that cannot start the instant it arrives.
//
// Run time feeds back from placement: a training job with `iterations` runs iterations x step
// time; one with a trace duration runs duration x ideal / actual throughput, where "ideal" is
// the throughput the topology-aware scheduler's placement gets for the same job on idle nodes
// of the type it runs on (a trace records how long the job took; we take that as its best case).
// Shares and trace pods run their recorded duration.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/network_model.h"
#include "core/throughput.h"
#include "sim/checkpoint.h"
#include "sim/cluster.h"
#include "sim/failures.h"
#include "sim/job.h"
#include "sim/job_record.h"
#include "sim/job_tally.h"
#include "sim/sampling.h"
#include "sim/schedulers/registry.h"
#include "sim/tenancy/preemption.h"
#include "sim/tenancy/tenancy.h"
#include "sim/verdict_watch.h"

namespace topsim {

class JobStore;
class TargetWorkloads;
class ThreadCaches;

// Live counters of runs in progress, shared by the runs of an experiment, for a progress line:
// each run adds to them every few thousand events and when it ends.
struct RunMonitor {
  std::atomic<uint64_t> events{0};     // events processed
  std::atomic<uint64_t> jobs_done{0};  // replays: jobs whose record is final; fill: jobs arrived
  std::atomic<int64_t> sim_ms{0};      // simulated time of the run that reported last, from its first submission
};

struct RunConfig {
  const SchedulerInfo* scheduler = nullptr;        // REQUIRED: places every job it handles
  const SchedulerInfo* share_scheduler = nullptr;  // places GPU shares `scheduler` does not handle (may be null)
  uint64_t seed = 1;                               // the run seed (sim/seeds.h); default 1
  bool backfill = true;                            // queue: a job that cannot start does not block later ones; default true
  bool jobs_wait = true;                           // false: a job that cannot start on arrival fails (fill); default true
  NetworkModel network;                            // NIC efficiency per transport
  OverlapModel overlap;                            // all-reduce / backward overlap per framework
  bool record_transitions = true;                  // keep every lifecycle transition; default true
  bool keep_jobs = true;                           // keep every job's record in RunOutput::jobs; default true
  JobStore* job_store = nullptr;                   // receives each job's record when it becomes final (may be null)
  int64_t sample_every_ms = 0;                     // sampling period over time; 0 = automatic (sim/sampling.h)
  double fragmentation_coverage = 0.95;            // FGD's target workload: the specs covering this share of the tasks
  TargetWorkloads* targets = nullptr;              // where the target workload is shared between runs; null: derived here
  ThreadCaches* caches = nullptr;                  // this thread's node types and memos (sim/thread_caches.h); may be null
  int fill_last_percent = -1;                      // >= 0: record the state against arrived load, 0..this %; default off
  bool fgd_artifact = false;                       // fill: the FGD artifact's policies and load curve; default off
  RunMonitor* monitor = nullptr;                   // live counters to add to (may be null)
  bool check_invariants = false;                   // verify after every instant (sim/invariants.h); default off
  // Replays: stop as soon as one of these bounds is lost for good (sim/verdict_watch.h); the
  // output then says which (RunOutput::decided) and its metrics describe a partial run. Default: none.
  std::vector<StopBound> stop_when;
  // Teams and quotas: jobs wait for their ClusterQueue to admit them before the scheduler places
  // them, and may be preempted (sim/tenancy/). Null: one queue, no quota.
  std::shared_ptr<const TenancySpec> tenancy;
  // What a job stopped before its end keeps, its checkpoint writes and what restarting costs
  // (sim/checkpoint.h). Default: no checkpoints, free restarts.
  CheckpointPolicy checkpoint;
  // Nodes that fail while jobs run (sim/failures.h). Null: none.
  std::shared_ptr<const FailureSpec> failures;
};

// Per tenant (a ClusterQueue with tenancy, else a queue the jobs name): its name, the GPU time
// its jobs ran, and with quota its nominal GPUs and the GPU time it held above them.
struct TenantUsage {
  std::string name;
  int64_t used_gpu_ms = 0;
  int64_t nominal_gpus = 0;
  int64_t borrowed_gpu_ms = 0;
  bool holds_quota = true;  // false: a LocalQueue under Admission Fair Sharing (no nominal, nothing borrowed)
};

struct RunOutput {
  std::vector<JobRecord> jobs;  // by job id, when kept (RunConfig::keep_jobs)
  JobTally tally;               // every job, counted as its record became final
  std::vector<Transition> transitions;
  int64_t first_submit_ms = 0;
  int64_t makespan_ms = 0;       // last event time
  uint64_t events = 0;           // events processed
  int64_t busy_gpu_ms = 0;       // GPU-time of running jobs (shares: their share of the card)
  int64_t held_idle_gpu_ms = 0;  // GPU-time held by partially placed jobs while not running
  int total_gpus = 0;
  size_t target_specs = 0;  // task specs of FGD's target workload (0: not measured)
  int64_t sample_every_ms = 0;
  std::vector<ClusterSample> samples;  // every sample_every_ms from the first submission's multiple
  TimeAverages averages;
  // Fill experiments: the curve against arrived load and the state after the last arrival.
  std::vector<LoadPoint> load_curve;
  LoadPoint final_load;
  int64_t arrived_milli = 0;   // GPU request of every submitted job
  int64_t capacity_milli = 0;  // the cluster's GPUs x 1000
  // Failed pods for which no node serving them had room on its GPUs (the rest had it only on
  // nodes short of CPU or host memory).
  int64_t failed_no_gpu_room = 0;
  std::string invariant_violation;     // with check_invariants: the first violation (the run stopped there)
  std::optional<RunDecision> decided;  // with stop_when: the bound lost (the run stopped there)
  bool shared_links = false;           // jobs shared the fabric's uplinks (sim/link_shares.h)
  std::vector<TenantUsage> tenants;    // JobTally::by_tenant's keys index it; empty: no tenants
  bool quota = false;                  // jobs were admitted by ClusterQueues (RunConfig::tenancy)
  std::vector<std::string> flavors;    // Kueue's ResourceFlavors (JobRecord::flavor indexes it)
  int64_t borrowed_gpu_ms = 0;         // with quota: GPU time above nominal quota, over every queue
  // With failures (RunConfig::failures), per cause: nodes that failed, running jobs they
  // interrupted, and the GPU time that cost (training since the last checkpoint, and the restarts
  // the failures caused, as spent).
  struct FailureSums {
    uint64_t failures = 0, interruptions = 0;
    int64_t lost_gpu_ms = 0;
  };
  std::array<FailureSums, kFailureCauses> failures_by_cause{};
  std::vector<NodeEvent> failure_log;      // every node failure, in time order
  std::vector<Preemption> preemption_log;  // with quota: every eviction, in the order made
  bool failures = false;
  bool spares = false;           // hot spares were held (FailureSpec::spares)
  CheckpointPolicy checkpoint;   // RunConfig::checkpoint
  uint64_t spare_swaps = 0;      // failures whose running jobs a spare took
  int spare_gpus = 0;            // GPUs of the spares held at the start
  bool elastic = false;          // the workload has elastic jobs (JobSpec::min_workers)
  uint64_t elastic_resizes = 0;  // their shrinks and growths
};

// Runs the workload to completion (or until nothing more can happen) on a copy of `cluster`.
// REQUIRES: config.scheduler non-null.
RunOutput simulate(const ClusterState& cluster, const Workload& workload, const RunConfig& config);

}  // namespace topsim
