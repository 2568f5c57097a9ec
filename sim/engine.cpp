#include "sim/engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_map>

#include "sim/elastic.h"
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
namespace {

class Engine final : private Binder {
 public:
  Engine(const ClusterState& cluster, const Workload& workload, const RunConfig& config)
      : cluster_(cluster),
        workload_(workload),
        config_(config),
        target_(config.targets ? config.targets->get(cluster, workload, config.scheduler->serves, config.fragmentation_coverage)
                               : std::make_shared<const TargetWorkload>(target_workload(
                                     cluster, workload, config.scheduler->serves, config.fragmentation_coverage))),
        book_(workload.size(), config.keep_jobs),
        open_(workload.size()),
        arrivals_(workload),
        view_(cluster_, workload_, open_, book_, now_ms_),
        timer_(cluster_, config.network, config.overlap, workload.reference_gpu, workload.llm_jobs, config.caches),
        sampler_(config.sample_every_ms, workload_span(workload)),
        curve_(int64_t{kMilliPerGpu} * cluster.total_gpus(), std::max(0, config.fill_last_percent), config.fgd_artifact) {
    // With shared targets, this thread's memo of the target from its earlier runs (a target
    // derived here is new, so it has none).
    ThreadCaches* caches = config.targets ? config.caches : nullptr;
    cluster_.prepare(config.scheduler->serves, target_.get(), caches ? caches->fragmentation_memo(target_) : nullptr);
    if (caches && cluster_.fragmentation()) caches->keep_fragmentation_memo(target_, cluster_.fragmentation()->memo());
    if (config.jobs_wait) start_link_shares();
    if (config.check_invariants) invariants_.emplace(cluster_);
    if (config.jobs_wait && !config.stop_when.empty()) watch_.emplace(config.stop_when, workload);
    out_.total_gpus = cluster_.total_gpus();
    out_.capacity_milli = int64_t{kMilliPerGpu} * cluster_.total_gpus();
    out_.target_specs = cluster_.fragmentation() ? target_->specs.size() : 0;
    SchedulerContext context{config.seed,         config.network, config.backfill, cluster_.fragmentation(),
                             config.fgd_artifact, config.overlap};
    queues_.push_back({config.scheduler->make(context), {}});
    if (!(config.scheduler->handles & kHandlesShares) && config.share_scheduler)
      queues_.push_back({config.share_scheduler->make(context), {}});
    start_tenants();
    tenant_milli_.assign(out_.tenants.size(), 0);
    track_runs_ = admission_ || config.failures || config.checkpoint.write_ms > 0;
  }

  RunOutput run() {
    const JobSpec* upcoming = arrivals_.next();
    if (upcoming) out_.first_submit_ms = now_ms_ = upcoming->submit_ms;
    if (recording_load()) curve_.observe(0, cluster_, 0);
    start_failures();
    while (upcoming || !events_.empty() || awaiting_repair()) {
      const int64_t t = next_time(upcoming);
      sampler_.advance_to(t, sample(sampler_.records_before(t)));
      now_ms_ = t;
      for (; upcoming && upcoming->submit_ms == t; upcoming = arrivals_.next()) {
        ++next_submit_;
        submit(*upcoming);
      }
      while (!events_.empty() && events_.top().time_ms == t) {
        const Event event = events_.top();
        events_.pop();
        if (current(event)) finish(event.job);
      }
      node_events_at(t);
      schedule_pass();
      if (!config_.jobs_wait) fail_waiting();
      if (recording_load()) curve_.observe(out_.arrived_milli, cluster_, failed_);
      if (config_.monitor && out_.events - reported_events_ >= kReportEvery) report();
      if (invariants_ && !check_instant()) break;
      if (watch_ && decided()) break;
    }
    end_of_run();
    if (config_.monitor) report();
    out_.jobs = book_.take();
    return std::move(out_);
  }

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
  struct Run {
    int64_t start_ms = 0;
    int64_t finish_ms = 0;
    int64_t overhead_ms = 0;
    int64_t writes_ms = 0;
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
  bool check_instant() {
    InvariantChecker::Counts counts;
    counts.arrived = next_submit_;
    for (const Queue& queue : queues_) counts.waiting += queue.pending.size();
    if (admission_) counts.waiting += admission_->waiting();
    counts.running = static_cast<uint64_t>(running_);
    counts.closed = out_.tally.jobs;
    if (auto violation = invariants_->after_instant(now_ms_, cluster_, counts)) {
      out_.invariant_violation = std::move(*violation);
      return false;
    }
    return true;
  }

  // True (the run stops) when the watch finds a bound lost for good.
  bool decided() {
    const StopBound* lost = watch_->lost(out_.tally, now_ms_);
    if (!lost) return false;
    out_.decided = RunDecision{*lost, now_ms_ - out_.first_submit_ms, out_.tally.jobs, workload_.size()};
    return true;
  }

  static constexpr uint64_t kReportEvery = 4096;  // events between two reports to the monitor

  void report() {
    RunMonitor& m = *config_.monitor;
    const uint64_t done = config_.jobs_wait ? out_.tally.jobs : next_submit_;
    m.events += out_.events - reported_events_;
    m.jobs_done += done - reported_done_;
    m.sim_ms = now_ms_ - out_.first_submit_ms;
    reported_events_ = out_.events;
    reported_done_ = done;
  }

  // The cluster now, in one buffer reused at every instant (its vectors keep their capacity).
  // The per-level and per-tenant figures only go into recorded grid points, so they are filled
  // only when `recorded`.
  const ClusterSample& sample(bool recorded = true) {
    int64_t pending = admission_ ? static_cast<int64_t>(admission_->waiting()) : 0;
    for (const Queue& queue : queues_) pending += static_cast<int64_t>(queue.pending.size());  // O(queues)
    ClusterSample& s = sample_;
    sample_cluster(cluster_, running_, pending, s);
    s.link_utilisation.clear();
    s.tenant_gpus.clear();
    s.tenant_fair_share_gpus.clear();
    s.tenant_usage_share.clear();
    if (flowing_ && recorded)
      for (int l = 0; l < flowing_->links().level_count(); ++l)
        s.link_utilisation.push_back(flowing_->links().level_utilisation(l));
    if (recorded)
      for (int64_t milli : tenant_milli_) s.tenant_gpus.push_back(static_cast<double>(milli) / kMilliPerGpu);
    if (recorded && admission_) admission_->tenant_shares(s.tenant_fair_share_gpus, s.tenant_usage_share);
    return s;
  }

  void set_state(uint32_t job, JobState state) {
    book_[job].state = state;
    if (config_.record_transitions) out_.transitions.push_back({now_ms_, job, state});
  }

  // The job's record is final: counted, stored when a store is given, then kept or let go.
  void close(uint32_t job) {
    const JobRecord& record = book_[job];
    out_.tally.add(workload_, open_[job], record, &cluster_, tenant_of(open_[job]));
    if (config_.job_store) config_.job_store->add(job, book_[job]);
    book_.close(job);
    open_.close(job);
  }

  // The queue (and so the scheduler) of a job: shares go to the share scheduler when the
  // run's scheduler does not place them; nullptr when no scheduler of the run places the job.
  Queue* queue_for(const JobSpec& job) {
    const unsigned handles = config_.scheduler->handles;
    if (job.is_share() && !(handles & kHandlesShares)) return queues_.size() > 1 ? &queues_[1] : nullptr;
    if (job.kind == JobKind::TracePod && !(handles & kHandlesTracePods)) return nullptr;
    return &queues_[0];
  }

  void submit(const JobSpec& spec) {
    ++out_.events;
    last_activity_ms_ = spec.submit_ms;
    const uint32_t id = spec.id;
    open_.open(spec);
    const JobSpec& job = open_[id];
    if (job.min_workers > 0) out_.elastic = true;
    book_.open(id).submit_ms = job.submit_ms;
    out_.arrived_milli +=
        job.gpu_milli_total(cluster_.max_card_mem_gib(job.gpu_core_percent > 0 ? NodeMode::CoreMem : NodeMode::Share));
    set_state(id, JobState::Pending);
    Queue* queue = queue_for(job);
    std::string problem = queue ? queue->scheduler->admission_problem(view_, id)
                                : "scheduler " + std::string(config_.scheduler->name) + " does not place " +
                                      (job.is_share() ? "GPU shares" : "trace pods");
    if (problem.empty() && config_.tenancy) problem = enqueue_for_quota(job, job.submit_ms);
    if (!problem.empty()) {
      book_[id].reason = std::move(problem);
      set_state(id, JobState::Rejected);
      return close(id);
    }
    if (!admission_) queue->pending.push(id, queue->scheduler->shape(view_, id));
    if (watch_) watch_->submitted(id, job.submit_ms, job.is_share());
  }

  // --- Tenants and quota (sim/tenancy/) ---

  void start_tenants() {
    if (!config_.tenancy) {
      for (const std::string& name : workload_.queue_names) out_.tenants.push_back({name});
      return;
    }
    // The scenario loader checks the binding: here every job is rejected with the reason.
    auto made = make_admission(*config_.tenancy, workload_, cluster_.total_gpus());
    if (!made) {
      binding_error_ = made.error().message;
      return;
    }
    admission_ = std::move(*made);
    for (const TenantQuota& t : admission_->tenants()) out_.tenants.push_back({t.name, 0, t.nominal_gpus, 0, t.holds_quota});
    out_.quota = true;
  }

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
  std::string enqueue_for_quota(const JobSpec& job, int64_t timestamp_ms) {
    return admission_ ? admission_->enqueue(job, timestamp_ms) : binding_error_;
  }

  // Quota reserved: the scheduler may place it.
  void admitted(uint32_t id) {
    JobRecord& r = book_[id];
    if (r.admitted_ms < 0) r.admitted_ms = now_ms_;
    Queue* queue = queue_for(open_[id]);
    queue->pending.push(id, queue->scheduler->shape(view_, id));
  }

  // The job's share of a card x 1000 per GPU (whole GPUs: 1000 each).
  int64_t gpu_milli(uint32_t id) const {
    const JobSpec& job = open_[id];
    return job.is_training() ? int64_t{kMilliPerGpu} * job.total_gpus() : job.gpu_milli_total(card_mem_of(book_[id]));
  }

  // Evicted by a preemption: it gives back its GPUs, keeps the work up to its last checkpoint
  // and waits for its queue again, timestamped by the eviction (Kueue's default requeuing).
  void preempt(uint32_t id) { stop(id, std::nullopt); }

  // Stops a job that holds GPUs: preempted by its queue (no `failure`), or its node failed. A
  // running job keeps the work up to its last checkpoint and counts what it lost; it gives back
  // its GPUs and waits again (for its queue, or the scheduler). A partly placed job only gives
  // back its pods and waits again. Without `requeue` (its pods move to a spare) it only stops:
  // the caller binds and starts it again at once, still admitted.
  void stop(uint32_t id, std::optional<FailureCause> failure, bool requeue = true, bool resize = false) {
    ++out_.events;
    JobRecord& r = book_[id];
    const JobSpec& job = open_[id];
    const bool running = r.state == JobState::Running;
    if (running) {
      stop_running(id, failure, resize);
    } else {
      queue_for(job)->pending.remove(id);
      for (const PodPlacement& pod : r.pods)
        out_.held_idle_gpu_ms += (now_ms_ - pod.placed_ms) * static_cast<int64_t>(pod.gpus.size());
    }
    release_pods(id);
    ++release_version_;
    r.pods.clear();
    r.comm = CommPath{};
    r.relaxed.clear();
    r.placement_note.clear();
    r.host_network = false;
    if (!failure && !resize) ++r.evictions;
    if (running) {
      ++epoch_[id];
      stopped_at_[id] = now_ms_;
    }
    set_state(id, JobState::Pending);
    if (!requeue) return;
    if (const auto it = shrunk_.find(id); it != shrunk_.end()) {  // an elastic job waits again at its full size
      open_.set_workers(id, it->second);
      shrunk_.erase(it);
    }
    if (admission_ && (!failure || running)) {  // a preempted or interrupted job asks its queue again
      if (failure) admission_->finish(id, now_ms_);
      enqueue_for_quota(job, now_ms_);
    } else {
      Queue* queue = queue_for(job);
      queue->pending.push(id, queue->scheduler->shape(view_, id));
    }
  }

  // The accounting of a running job's stop: its checkpoint, what it lost, its share of the GPUs.
  void stop_running(uint32_t id, std::optional<FailureCause> failure, bool resize) {
    JobRecord& r = book_[id];
    const int64_t milli = gpu_milli(id);
    Run run = runs_.at(id);
    runs_.erase(id);
    if (flowing_) run.finish_ms = flowing_->finish_of(id).value_or(run.finish_ms);
    leave_links(id);
    const StoppedRun stopped = stop_run(done_[id], run.start_ms, run.finish_ms, run.overhead_ms, now_ms_, config_.checkpoint);
    done_[id] = stopped.done;
    r.recompute_ms += stopped.recompute_ms;
    r.checkpoint_ms += stopped.writes_ms;
    if (failure) {
      ++r.interruptions;
      RunOutput::FailureSums& sums = out_.failures_by_cause[static_cast<size_t>(*failure)];
      ++sums.interruptions;
      // What the failure costs: the training since the last checkpoint, and the restart to come.
      sums.lost_gpu_ms += (stopped.recompute_ms + config_.checkpoint.restart_overhead_ms) * milli / kMilliPerGpu;
    } else if (!resize) {
      r.lost_gpu_ms += stopped.lost_ms() * milli / kMilliPerGpu;
    }
    out_.busy_gpu_ms -= (run.finish_ms - now_ms_) * milli / kMilliPerGpu;
    if (const int t = tenant_of(open_[id]); t >= 0) {
      out_.tenants[static_cast<size_t>(t)].used_gpu_ms += (now_ms_ - run.start_ms) * milli / kMilliPerGpu;
      tenant_milli_[static_cast<size_t>(t)] -= milli;
    }
    --running_;
  }

  // A (re)started job runs what its checkpoints left, after the restart overhead when it was
  // stopped before, with its checkpoint writes.
  int64_t resumed_run_ms(uint32_t id, int64_t full_ms) {
    JobRecord& r = book_[id];
    const auto done = done_.find(id);
    const int64_t overhead = r.evictions + r.interruptions + r.resizes > 0 ? config_.checkpoint.restart_overhead_ms : 0;
    const int64_t run_ms = remaining_run_ms(done == done_.end() ? 0 : done->second, full_ms, overhead, config_.checkpoint);
    if (open_[id].is_training()) out_.busy_gpu_ms += (run_ms - full_ms) * open_[id].total_gpus();
    const int64_t rest_ms = remaining_run_ms(done == done_.end() ? 0 : done->second, full_ms, 0, CheckpointPolicy{});
    runs_[id] = {now_ms_, now_ms_ + run_ms, overhead, run_ms - overhead - rest_ms};
    r.restart_ms += overhead;
    if (const auto stopped = stopped_at_.find(id); stopped != stopped_at_.end()) {
      r.requeue_ms += now_ms_ - stopped->second;
      stopped_at_.erase(stopped);
    }
    return run_ms;
  }

  // A finished job's last run counts to its tenant's GPU time, and its checkpoint writes.
  void end_run(uint32_t id) {
    int64_t start = book_[id].start_ms;
    if (const auto run = runs_.find(id); run != runs_.end()) {
      start = run->second.start_ms;
      book_[id].checkpoint_ms += run->second.writes_ms;
      runs_.erase(run);
    }
    done_.erase(id);
    epoch_.erase(id);
    const int t = out_.tenants.empty() ? -1 : tenant_of(open_[id]);
    if (t < 0) return;
    const int64_t milli = gpu_milli(id);
    tenant_milli_[static_cast<size_t>(t)] -= milli;
    out_.tenants[static_cast<size_t>(t)].used_gpu_ms += (now_ms_ - start) * milli / kMilliPerGpu;
  }

  void release_pods(uint32_t id) {
    const JobRecord& r = book_[id];
    const JobSpec& job = open_[id];
    for (size_t pod = 0; pod < r.pods.size(); ++pod) {
      cluster_.unbind(r.pods[pod].node, pod_request(job, pod), r.pods[pod].gpus);
      if (invariants_) invariants_->released(r.pods[pod].node, id, r.pods[pod].gpus);
      if (outages_) outages_->released(r.pods[pod].node, id);
    }
  }

  // --- Node failures and hot spares (sim/node_outages.h) ---

  void start_failures() {
    if (!config_.failures) return;
    outages_.emplace(*config_.failures, cluster_, invariants_ ? &*invariants_ : nullptr, config_.seed, out_.first_submit_ms);
    out_.failures = true;
    out_.checkpoint = config_.checkpoint;
    if (outages_->holds_spares()) {
      out_.spares = true;
      out_.spare_gpus = cluster_.spare_gpus();
    }
  }

  // A running job of a failed node restarts at once on its nodes with `spare` for `failed`: it
  // keeps the work up to its last checkpoint, pays the restart, and keeps its communication path
  // (the spare is of the same group and model, its pods on the same cards).
  void move_to_spare(uint32_t id, int failed, int spare, FailureCause cause) {
    restart_on(id, pods_on_spare(book_[id].pods, failed, spare), cause);
  }

  int64_t next_time(const JobSpec* upcoming) const {
    int64_t t = upcoming ? upcoming->submit_ms : std::numeric_limits<int64_t>::max();
    if (!events_.empty()) t = std::min(t, events_.top().time_ms);
    if (outages_) t = std::min(t, outages_->next_ms());
    if (const int64_t wakeup = admission_ ? admission_->wakeup_ms() : t; wakeup > now_ms_) t = std::min(t, wakeup);
    return t;
  }

  // Nothing runs or arrives, but jobs wait while nodes are down: a repair may let them start.
  bool awaiting_repair() const {
    if (!outages_ || outages_->down_nodes() == 0 || now_ms_ - last_activity_ms_ > kIdleLimitMs) return false;
    return std::any_of(queues_.begin(), queues_.end(), [](const Queue& q) { return !q.pending.empty(); });
  }

  void node_events_at(int64_t t) {
    std::vector<uint32_t> hit;
    while (outages_ && outages_->due(t)) {
      const NodeEvent e = outages_->next(hit, [this](uint32_t id) { return book_[id].state == JobState::Running; });
      ++out_.events;
      if (!e.fails) {
        repaired(e.node);
        continue;
      }
      ++out_.failures_by_cause[static_cast<size_t>(e.cause)].failures;
      out_.failure_log.push_back(e);
      if (e.spare >= 0) ++out_.spare_swaps;
      for (uint32_t id : hit)
        if (e.spare >= 0 && book_[id].state == JobState::Running)
          move_to_spare(id, e.node, e.spare, e.cause);
        else if (e.down_ms > 0 && can_shrink(id, e.node))
          shrink(id, e.node, e.cause);
        else
          stop(id, e.cause);
      outages_->take_down(e.node);
    }
  }

  // A repaired node refills its group's spares first, then returns to service, where shrunk
  // elastic jobs grow back onto it first.
  void repaired(int node) {
    if (!outages_->repaired(node)) return;
    std::vector<uint32_t> shrunk;
    for (const auto& [id, full] : shrunk_) shrunk.push_back(id);
    for (uint32_t id : shrunk) grow(id, node);
  }

  // --- Elastic jobs (JobSpec::min_workers; the pods they go on with: sim/elastic.h) ---

  // A running elastic job keeps enough workers off the failed node to go on.
  bool can_shrink(uint32_t id, int failed) const {
    return book_[id].state == JobState::Running && keeps_enough_workers(book_[id].pods, failed, open_[id].min_workers);
  }

  // Restarts a running job at once from its last checkpoint on `pods` (a failure's: a spare for
  // the failed node, or the workers left; without `failure`, growing back): its size becomes
  // theirs, and it runs at that size's throughput, still admitted.
  void restart_on(uint32_t id, std::vector<PodBinding> pods, std::optional<FailureCause> failure) {
    JobRecord& r = book_[id];
    const JobSpec& job = open_[id];
    const bool resized = pods.size() != job.workers;
    JobStart again{resized_comm(r.comm, r.pods.size(), pods, job.gpus_per_worker, cluster_.fabric()),
                   r.relaxed,
                   {},
                   r.host_network,
                   r.placement_note};
    const uint16_t full = shrunk_.count(id) ? shrunk_.at(id) : job.workers;
    stop(id, failure, false, !failure);
    open_.set_workers(id, static_cast<uint16_t>(pods.size()));
    if (pods.size() < full)
      shrunk_[id] = full;
    else
      shrunk_.erase(id);
    for (const PodBinding& pod : pods) bind(id, pod);
    if (resized) {
      ++r.resizes;
      ++out_.elastic_resizes;
    }
    start(id, std::move(again));
  }

  void shrink(uint32_t id, int failed, FailureCause cause) { restart_on(id, pods_off_node(book_[id].pods, failed), cause); }

  // A shrunk job takes as many of its missing pods as fit on the free cards of `node` (a node of
  // the type it runs on), lowest cards first.
  void grow(uint32_t id, int node) {
    const JobRecord& r = book_[id];
    if (r.state != JobState::Running || cluster_.node(node).type != cluster_.node(r.pods.front().node).type) return;
    const JobSpec& job = open_[id];
    std::vector<int> free;
    const GpuSet& cards = cluster_.node(node).free;
    for (int g = 0; g < cluster_.gpus_per_node(node); ++g)
      if (cards.test(static_cast<size_t>(g))) free.push_back(g);
    std::vector<PodBinding> pods = pods_grown(r.pods, node, free, shrunk_.at(id) - job.workers, job.gpus_per_worker);
    if (pods.size() > r.pods.size()) restart_on(id, std::move(pods), std::nullopt);
  }

  void finish_tenants() {
    const std::vector<int64_t> borrowed = admission_->borrowed_gpu_ms(now_ms_);
    for (size_t q = 0; q < borrowed.size(); ++q) out_.tenants[q].borrowed_gpu_ms = borrowed[q];
    out_.borrowed_gpu_ms = admission_->borrowed_total_gpu_ms(now_ms_);
  }

  // A multi-node ring whose hops between consecutive nodes (closing the loop) were measured runs
  // at most at the slowest of them and pays their largest latency (core/measured_links.h).
  void apply_measured_pairs(JobRecord& r) const {
    if (!cluster_.has_measured() || r.comm.hosts < 2) return;
    std::vector<int> ring;
    for (const auto& [node, gpus] : gpus_by_node(r.pods)) ring.push_back(node);
    apply_measured(r.comm, ring, [this](int a, int b) { return cluster_.measured(a, b); });
  }

  // False for a finish event that a later re-rating replaced, or of a job already closed.
  bool current(const Event& event) const {
    if (!book_.is_open(event.job)) return false;
    if (!epoch_.empty())
      if (const auto run = epoch_.find(event.job); run != epoch_.end() && run->second != event.epoch) return false;
    return !flowing_ || flowing_->current(event.job, event.version);
  }

  void start_link_shares() {
    if (!FlowingJobs::needed(cluster_)) return;
    flowing_.emplace(cluster_, config_.network, book_,
                     [this](uint32_t id, double factor) { return timer_.rate_at(open_[id], book_[id], factor); });
    out_.shared_links = true;
  }

  // Schedules the finishes of jobs on shared links (FlowingJobs) and counts the GPU time they moved.
  void schedule(const std::vector<FlowingJobs::Finish>& finishes) {
    for (const FlowingJobs::Finish& f : finishes) {
      out_.busy_gpu_ms += f.moved_ms * open_[f.job].total_gpus();
      events_.push({f.finish_ms, seq_++, f.job, f.version, epoch_of(f.job)});
    }
  }

  void leave_links(uint32_t id) {
    if (flowing_) schedule(flowing_->leave(id, now_ms_));
  }

  void finish(uint32_t id) {
    ++out_.events;
    last_activity_ms_ = now_ms_;
    leave_links(id);
    JobRecord& r = book_[id];
    release_pods(id);
    --running_;
    ++release_version_;
    r.finish_ms = now_ms_;
    end_run(id);
    shrunk_.erase(id);
    if (admission_) admission_->finish(id, now_ms_);
    if (watch_) watch_->finished(id, r.submit_ms, now_ms_);
    set_state(id, JobState::Finished);
    close(id);
  }

  void schedule_pass() {
    if (admission_ && admission_->waiting() > 0)
      admission_->run(
          now_ms_, [&](uint32_t id) { admitted(id); }, [&](uint32_t id) { preempt(id); });
    for (Queue& queue : queues_) {
      if (queue.pending.empty()) continue;
      Scheduler& scheduler = *queue.scheduler;
      queue.pending.pass(release_version_ + (outages_ ? outages_->returns() : 0), scheduler.blocks_queue(), [&](uint32_t id) {
        if (scheduler.try_place(view_, id, *this)) return PendingQueue::Attempt{true, {}};
        JobRecord& r = book_[id];
        if (!r.pods.empty() && r.state != JobState::Partial) set_state(id, JobState::Partial);
        if (invariants_) invariants_->waiting(id, r.pods.size(), open_[id].workers);
        return PendingQueue::Attempt{false, scheduler.shape(view_, id)};
      });
    }
  }

  // Fill experiments: whatever could not start on arrival fails (it never waits).
  void fail_waiting() {
    for (Queue& queue : queues_)
      for (uint32_t id : queue.pending.take_all()) {
        book_[id].reason = "no node fitted it on arrival";
        set_state(id, JobState::Failed);
        close(id);
        ++failed_;
      }
  }

  void bind(uint32_t id, PodBinding pod) override {
    JobRecord& r = book_[id];
    cluster_.bind(pod.node, pod_request(open_[id], r.pods.size()), pod.gpus);
    if (invariants_) invariants_->bound(pod.node, id, pod.gpus);
    if (r.pods.empty()) r.pods.reserve(static_cast<size_t>(std::max<int>(1, open_[id].workers)));
    r.pods.push_back({pod.node, std::move(pod.gpus), now_ms_});
    if (r.first_pod_ms < 0) r.first_pod_ms = now_ms_;
    if (outages_) outages_->bound(pod.node, id);
  }

  void start(uint32_t id, JobStart start) override {
    const JobSpec& job = open_[id];
    JobRecord& r = book_[id];
    if (!start.rank_order.empty()) {  // the pods into rank order, through a buffer kept between jobs
      ranked_.clear();
      for (size_t i : start.rank_order) ranked_.push_back(std::move(r.pods[i]));
      r.pods.swap(ranked_);
    }
    if (invariants_) invariants_->started(id, r.pods.size(), job.workers);
    r.comm = start.comm;
    apply_measured_pairs(r);
    r.host_network = start.host_network;
    r.relaxed = std::move(start.relaxed);
    r.placement_note = std::move(start.placement_note);
    for (const PodPlacement& pod : r.pods)
      out_.held_idle_gpu_ms += (now_ms_ - pod.placed_ms) * static_cast<int64_t>(pod.gpus.size());
    ++running_;
    if (r.start_ms < 0) {  // a preempted job keeps its first start
      r.start_ms = now_ms_;
      if (watch_) watch_->started(id, r.submit_ms, now_ms_, job.is_share());
    }
    if (const int t = tenant_of(job); t >= 0) tenant_milli_[static_cast<size_t>(t)] += gpu_milli(id);
    set_state(id, JobState::Running);
    int64_t run_ms = job.is_training() ? timed_run_ms(job, r) : job.ideal_duration_ms;
    if (run_ms == kForeverMs) return;
    if (track_runs_) run_ms = resumed_run_ms(id, run_ms);
    last_activity_ms_ = now_ms_;
    if (!job.is_training()) out_.busy_gpu_ms += run_ms * gpu_milli(id) / kMilliPerGpu;
    if (flowing_ && job.is_training()) {
      if (const auto finishes = flowing_->enter(id, now_ms_, run_ms)) {
        schedule(*finishes);
        return;
      }
    }
    events_.push({now_ms_ + run_ms, seq_++, id, 0, epoch_of(id)});
  }

  int card_mem_of(const JobRecord& r) const {
    const PodPlacement& pod = r.pods.front();
    if (pod.gpus.empty()) return 0;
    return cluster_.shares().nodes[static_cast<size_t>(pod.node)].cards[static_cast<size_t>(pod.gpus.front())].mem_total_gib;
  }

  int64_t timed_run_ms(const JobSpec& job, JobRecord& r) {
    JobTiming timing = timer_.time(job, r);
    // A shrunk elastic job has its full size's work (the samples it trains on) to do at the
    // throughput of the workers it has.
    if (const auto full = shrunk_.find(job.id); full != shrunk_.end() && timing.samples_per_sec > 0) {
      JobSpec whole = job;
      whole.workers = full->second;
      timing.work_samples = timer_.time(whole, r).work_samples;
      timing.run_ms = std::max<int64_t>(1, std::llround(timing.work_samples / timing.samples_per_sec * 1e3));
    }
    r.samples_per_sec = timing.samples_per_sec;
    r.ideal_samples_per_sec = timing.ideal_samples_per_sec;
    r.work_samples = timing.work_samples;
    r.cross_numa = timing.cross_numa;
    r.pace_type = timing.node_type;
    r.llm = timing.llm;
    out_.busy_gpu_ms += timing.run_ms * job.total_gpus();
    return timing.run_ms;
  }

  void end_of_run() {
    for (Queue& queue : queues_) {
      for (uint32_t id : queue.pending.take_all()) {
        JobRecord& r = book_[id];
        if (r.state == JobState::Partial) {
          for (const PodPlacement& pod : r.pods)
            out_.held_idle_gpu_ms += (now_ms_ - pod.placed_ms) * static_cast<int64_t>(pod.gpus.size());
          r.reason = "stuck: " + std::to_string(r.pods.size()) + " of " + std::to_string(open_[id].workers) +
                     " pods placed when nothing else could run (partial placement deadlock)";
          set_state(id, JobState::Stuck);
        } else if (r.reason.empty()) {
          const std::string why = queue.scheduler->wait_reason(view_, id);
          r.reason = "never placed: " + (why.empty() ? "not enough free GPUs when the simulation ended" : why);
        }
      }
    }
    if (admission_) finish_tenants();
    for (uint32_t id = 0; id < workload_.size(); ++id)  // running forever (fill), stuck, never placed
      if (book_.is_open(id)) {
        JobRecord& r = book_[id];
        if (admission_ && r.reason.empty() && r.state == JobState::Pending)
          r.reason = "never admitted: " + admission_->wait_reason(id);
        close(id);
      }
    out_.makespan_ms = now_ms_;
    sampler_.finish(now_ms_, sample());
    out_.sample_every_ms = sampler_.period_ms();
    out_.samples = sampler_.take_samples();
    out_.averages = sampler_.averages();
    if (recording_load()) {
      out_.final_load = curve_.final_point(out_.arrived_milli, cluster_, failed_);
      out_.load_curve = curve_.take_points();
    }
  }

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
  std::optional<NodeOutages> outages_;                // RunConfig::failures
  std::map<uint32_t, uint16_t> shrunk_;               // running elastic jobs below their size: that size
  std::unordered_map<uint32_t, int64_t> stopped_at_;  // stopped jobs waiting to restart: when they stopped
  int64_t last_activity_ms_ = 0;                      // the last submission, start or finish
  std::unordered_map<uint32_t, uint32_t> epoch_;      // preempted jobs: their run count
  std::unordered_map<uint32_t, double> done_;         // preempted jobs: the share of their work checkpointed
  std::unordered_map<uint32_t, Run> runs_;            // running jobs of a run with quota
  std::vector<int64_t> tenant_milli_;                 // per tenant: GPU share (x 1000) its running jobs hold
};

}  // namespace

RunOutput simulate(const ClusterState& cluster, const Workload& workload, const RunConfig& config) {
  return Engine(cluster, workload, config).run();
}

}  // namespace topsim
