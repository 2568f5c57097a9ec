// The simulation's event loop (sim/engine.h simulate) as a class, internal to the two files that
// define it: sim/engine.cpp (the loop, submissions, starts, finishes, samples) and
// sim/engine_stops.cpp (what ends a run before its end and what that costs: quota and
// preemption, node failures and spares, elastic resizes).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_map>

#include "sim/elastic.h"
#include "sim/engine.h"
#include "sim/flowing_jobs.h"
#include "sim/invariants.h"
#include "sim/job_store.h"
#include "sim/job_timing.h"
#include "sim/node_outages.h"
#include "sim/pending_queue.h"
#include "sim/scheduler.h"
#include "sim/target_workloads.h"
#include "sim/tenancy/admission.h"
#include "sim/thread_caches.h"

namespace topsim {

class Engine final : private Binder {
 public:
  Engine(const ClusterState& cluster, const Workload& workload, const RunConfig& config);

  RunOutput run();

 private:
  struct Event {
    int64_t time_ms;
    uint64_t seq;
    uint32_t job;          // finish of this job
    uint32_t version = 0;  // of its rate (a job re-rated by shared links gets a new finish event)
    uint32_t epoch = 0;    // of its run (a preempted job's earlier runs never finish)
  };
  // A running job of a run whose jobs may stop before their end (quota, failures) or write
  // checkpoints: when this run started and is due to end (a job on shared links: its
  // FlowingJobs::finish_of instead), the restart overhead it began with and the checkpoint writes
  // it will make if it runs to its end.
  //
  // A restart is charged, as it is spent, to the stop that made it: the failure's cause, or the
  // eviction (its row of the preemption log); neither after a resize, nor for a first run. So
  // failure_lost_gpu_hours and preempted_gpu_hours count every restart once, and only what ran.
  struct RestartOwner {
    int failure = -1;       // FailureCause, or -1
    int64_t eviction = -1;  // index in RunOutput::preemption_log, or -1
  };
  struct Run {
    int64_t start_ms = 0;
    int64_t finish_ms = 0;
    int64_t overhead_ms = 0;
    int64_t writes_ms = 0;
    RestartOwner owner;
  };
  // With failures: a run ends once nothing runs or arrives and no repair can let a waiting job
  // start, or when nothing has started or finished for this long while nodes stay down.
  static constexpr int64_t kIdleLimitMs = 30LL * 24 * 3600 * 1000;
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time_ms != b.time_ms ? a.time_ms > b.time_ms : a.seq > b.seq;
    }
  };
  struct Queue {
    std::unique_ptr<Scheduler> scheduler;
    PendingQueue pending;
  };

  bool recording_load() const { return config_.fill_last_percent >= 0; }

  // False (the run stops) on the first violated invariant.
  bool check_instant();

  // True (the run stops) when the watch finds a bound lost for good.
  bool decided();

  static constexpr uint64_t kReportEvery = 4096;  // events between two reports to the monitor

  void report();

  // The cluster now, in one buffer reused at every instant (its vectors keep their capacity).
  // The per-level and per-tenant figures only go into recorded grid points, so they are filled
  // only when `recorded`.
  const ClusterSample& sample(bool recorded = true);

  void set_state(uint32_t job, JobState state);

  // The job's record is final: counted, stored when a store is given, then kept or let go.
  void close(uint32_t job);

  // The queue (and so the scheduler) of a job: shares go to the share scheduler when the
  // run's scheduler does not place them; nullptr when no scheduler of the run places the job.
  Queue* queue_for(const JobSpec& job);

  void submit(const JobSpec& spec);

  // --- Tenants and quota (sim/tenancy/) ---

  void start_tenants();

  int tenant_of(const JobSpec& job) const {
    if (admission_) return admission_->tenant(job);
    return config_.tenancy || job.queue == kNoQueue ? -1 : job.queue;
  }

  uint32_t epoch_of(uint32_t id) const {
    if (epoch_.empty()) return 0;
    const auto it = epoch_.find(id);
    return it == epoch_.end() ? 0 : it->second;
  }

  // The job waits for its ClusterQueue to admit it (from `timestamp_ms` in its queue's order);
  // or why it never can.
  std::string enqueue_for_quota(const JobSpec& job, int64_t timestamp_ms);

  // Quota reserved: the scheduler may place it.
  void admitted(uint32_t id);

  // The job's share of a card x 1000 per GPU (whole GPUs: 1000 each).
  int64_t gpu_milli(uint32_t id) const {
    const JobSpec& job = open_[id];
    return job.is_training() ? int64_t{kMilliPerGpu} * job.total_gpus() : job.gpu_milli_total(card_mem_of(book_[id]));
  }

  // Evicted by a preemption (row `logged` of the preemption log): it gives back its GPUs, keeps
  // the work up to its last checkpoint and waits for its queue again, timestamped by the eviction
  // (Kueue's default requeuing). What it lost, and its restart when it runs again, are charged
  // to that row.
  void preempt(uint32_t id, size_t logged) { stop(id, std::nullopt, true, false, static_cast<int64_t>(logged)); }

  // Stops a job that holds GPUs: preempted by its queue (no `failure`), or its node failed. A
  // running job keeps the work up to its last checkpoint and counts what it lost; it gives back
  // its GPUs and waits again (for its queue, or the scheduler). A partly placed job only gives
  // back its pods and waits again. Without `requeue` (its pods move to a spare) it only stops:
  // the caller binds and starts it again at once, still admitted. `eviction`: the preemption
  // log's row of the eviction, or -1.
  void stop(uint32_t id, std::optional<FailureCause> failure, bool requeue = true, bool resize = false, int64_t eviction = -1);

  // The accounting of a running job's stop: its checkpoint, what it lost (charged to the failure's
  // cause or the eviction's row; a resize to neither), its share of the GPUs.
  void stop_running(uint32_t id, std::optional<FailureCause> failure, int64_t eviction);

  // A (re)started job runs what its checkpoints left, after the restart overhead when a run of it
  // was stopped before, with its checkpoint writes.
  int64_t resumed_run_ms(uint32_t id, int64_t full_ms);
  // GPU time `id` lost, charged to the stop that cost it (Run): the failure's cause, or the
  // eviction's row and the job's preempted GPU time.
  void charge(uint32_t id, const RestartOwner& owner, int64_t gpu_ms);

  // A finished job's last run counts to its tenant's GPU time, and its checkpoint writes.
  void end_run(uint32_t id);

  void release_pods(uint32_t id);

  // --- Node failures and hot spares (sim/node_outages.h) ---

  void start_failures();

  // A running job of a failed node restarts at once on its nodes with `spare` for `failed`: it
  // keeps the work up to its last checkpoint, pays the restart, and keeps its communication path
  // (the spare is of the same group and model, its pods on the same cards).
  void move_to_spare(uint32_t id, int failed, int spare, FailureCause cause) {
    restart_on(id, pods_on_spare(book_[id].pods, failed, spare), cause);
  }

  int64_t next_time(const JobSpec* upcoming) const;

  // Nothing runs or arrives, but jobs wait while nodes are down: a repair may let them start.
  bool awaiting_repair() const;

  void node_events_at(int64_t t);

  // A repaired node refills its group's spares first, then returns to service, where shrunk
  // elastic jobs grow back onto it first.
  void repaired(int node);

  // --- Elastic jobs (JobSpec::min_workers; the pods they go on with: sim/elastic.h) ---

  // A running elastic job keeps enough workers off the failed node to go on.
  bool can_shrink(uint32_t id, int failed) const;

  // Restarts a running job at once from its last checkpoint on `pods` (a failure's: a spare for
  // the failed node, or the workers left; without `failure`, growing back): its size becomes
  // theirs, and it runs at that size's throughput, still admitted.
  void restart_on(uint32_t id, std::vector<PodBinding> pods, std::optional<FailureCause> failure);

  void shrink(uint32_t id, int failed, FailureCause cause) { restart_on(id, pods_off_node(book_[id].pods, failed), cause); }

  // A shrunk job takes as many of its missing pods as fit on the free cards of `node` (a node of
  // the type it runs on), lowest cards first.
  void grow(uint32_t id, int node);

  void finish_tenants();

  // A multi-node ring whose hops between consecutive nodes (closing the loop) were measured runs
  // at most at the slowest of them and pays their largest latency (core/measured_links.h).
  void apply_measured_pairs(JobRecord& r) const;

  // False for a finish event that a later re-rating replaced, or of a job already closed.
  bool current(const Event& event) const;

  void start_link_shares();

  // Schedules the finishes of jobs on shared links (FlowingJobs) and counts the GPU time they moved.
  void schedule(const std::vector<FlowingJobs::Finish>& finishes);

  void leave_links(uint32_t id) {
    if (flowing_) schedule(flowing_->leave(id, now_ms_));
  }

  void finish(uint32_t id);

  void schedule_pass();

  // Fill experiments: whatever could not start on arrival fails (it never waits).
  void fail_waiting();

  void bind(uint32_t id, PodBinding pod) override;

  void start(uint32_t id, JobStart start) override;

  int card_mem_of(const JobRecord& r) const {
    const PodPlacement& pod = r.pods.front();
    if (pod.gpus.empty()) return 0;
    return cluster_.shares().nodes[static_cast<size_t>(pod.node)].cards[static_cast<size_t>(pod.gpus.front())].mem_total_gib;
  }

  int64_t timed_run_ms(const JobSpec& job, JobRecord& r);

  void end_of_run();

  ClusterState cluster_;
  const Workload& workload_;
  RunConfig config_;
  std::vector<PodPlacement> ranked_;              // start()'s buffer
  std::shared_ptr<const TargetWorkload> target_;  // FGD's, shared with the runs of the same workload (RunConfig::targets)
  RunOutput out_;
  int64_t now_ms_ = 0;
  JobBook book_;
  OpenJobs open_;       // the specs of submitted jobs whose record is not final
  JobCursor arrivals_;  // the workload in submission order
  SchedulingView view_;
  JobTimer timer_;
  TimeSampler sampler_;
  ClusterSample sample_;  // sample()'s buffer
  LoadCurve curve_;
  std::vector<Queue> queues_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  uint64_t seq_ = 0;
  int64_t running_ = 0;
  uint64_t release_version_ = 0;                      // bumped whenever a job releases resources (and
                                                      // outages_->returns() when a node returns)
  size_t next_submit_ = 0;                            // jobs submitted so far
  uint64_t reported_events_ = 0, reported_done_ = 0;  // what the monitor has been told
  int64_t failed_ = 0;
  std::optional<InvariantChecker> invariants_;  // with RunConfig::check_invariants
  std::optional<VerdictWatch> watch_;           // with RunConfig::stop_when, in replays
  std::optional<FlowingJobs> flowing_;          // replays on a fabric with uplinks: jobs sharing them
  // Quota (RunConfig::tenancy): the queues' admission (Kueue's or KAI's, bound to the workload's
  // queues and classes), and per preempted or running job what preemption needs (never iterated).
  std::unique_ptr<Admission> admission_;
  std::string binding_error_;
  // Runs that may stop before their end or write checkpoints are tracked (runs_, done_, epoch_).
  bool track_runs_ = false;
  std::optional<NodeOutages> outages_;                        // RunConfig::failures
  std::map<uint32_t, uint16_t> shrunk_;                       // running elastic jobs below their size: that size
  std::unordered_map<uint32_t, int64_t> stopped_at_;          // stopped jobs waiting to restart: when they stopped
  std::unordered_map<uint32_t, RestartOwner> restart_owner_;  // stopped runs: whom their next restart is charged to
  int64_t last_activity_ms_ = 0;                              // the last submission, start or finish
  std::unordered_map<uint32_t, uint32_t> epoch_;              // preempted jobs: their run count
  std::unordered_map<uint32_t, double> done_;                 // preempted jobs: the share of their work checkpointed
  std::unordered_map<uint32_t, Run> runs_;                    // running jobs of a run with quota
  std::vector<int64_t> tenant_milli_;                         // per tenant: GPU share (x 1000) its running jobs hold
};

}  // namespace topsim
