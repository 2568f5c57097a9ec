#include "sim/engine.h"

#include "sim/engine_loop.h"

namespace topsim {

Engine::Engine(const ClusterState& cluster, const Workload& workload, const RunConfig& config)
    : cluster_(cluster),
      workload_(workload),
      config_(config),
      target_(config.targets ? config.targets->get(cluster, workload, config.scheduler->serves, config.fragmentation_coverage)
                             : std::make_shared<const TargetWorkload>(
                                   target_workload(cluster, workload, config.scheduler->serves, config.fragmentation_coverage))),
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

RunOutput Engine::run() {
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

bool Engine::check_instant() {
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

bool Engine::decided() {
  const StopBound* lost = watch_->lost(out_.tally, now_ms_);
  if (!lost) return false;
  out_.decided = RunDecision{*lost, now_ms_ - out_.first_submit_ms, out_.tally.jobs, workload_.size()};
  return true;
}

void Engine::report() {
  RunMonitor& m = *config_.monitor;
  const uint64_t done = config_.jobs_wait ? out_.tally.jobs : next_submit_;
  m.events += out_.events - reported_events_;
  m.jobs_done += done - reported_done_;
  m.sim_ms = now_ms_ - out_.first_submit_ms;
  reported_events_ = out_.events;
  reported_done_ = done;
}

const ClusterSample& Engine::sample(bool recorded) {
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

void Engine::set_state(uint32_t job, JobState state) {
  book_[job].state = state;
  if (config_.record_transitions) out_.transitions.push_back({now_ms_, job, state});
}

void Engine::close(uint32_t job) {
  const JobRecord& record = book_[job];
  out_.tally.add(workload_, open_[job], record, &cluster_, tenant_of(open_[job]));
  if (config_.job_store) config_.job_store->add(job, book_[job]);
  book_.close(job);
  open_.close(job);
}

Engine::Queue* Engine::queue_for(const JobSpec& job) {
  const unsigned handles = config_.scheduler->handles;
  if (job.is_share() && !(handles & kHandlesShares)) return queues_.size() > 1 ? &queues_[1] : nullptr;
  if (job.kind == JobKind::TracePod && !(handles & kHandlesTracePods)) return nullptr;
  return &queues_[0];
}

void Engine::submit(const JobSpec& spec) {
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

void Engine::release_pods(uint32_t id) {
  const JobRecord& r = book_[id];
  const JobSpec& job = open_[id];
  for (size_t pod = 0; pod < r.pods.size(); ++pod) {
    cluster_.unbind(r.pods[pod].node, pod_request(job, pod), r.pods[pod].gpus);
    if (invariants_) invariants_->released(r.pods[pod].node, id, r.pods[pod].gpus);
    if (outages_) outages_->released(r.pods[pod].node, id);
  }
}

int64_t Engine::next_time(const JobSpec* upcoming) const {
  int64_t t = upcoming ? upcoming->submit_ms : std::numeric_limits<int64_t>::max();
  if (!events_.empty()) t = std::min(t, events_.top().time_ms);
  if (outages_) t = std::min(t, outages_->next_ms());
  if (const int64_t wakeup = admission_ ? admission_->wakeup_ms() : t; wakeup > now_ms_) t = std::min(t, wakeup);
  return t;
}

bool Engine::awaiting_repair() const {
  if (!outages_ || outages_->down_nodes() == 0 || now_ms_ - last_activity_ms_ > kIdleLimitMs) return false;
  return std::any_of(queues_.begin(), queues_.end(), [](const Queue& q) { return !q.pending.empty(); });
}

void Engine::apply_measured_pairs(JobRecord& r) const {
  if (!cluster_.has_measured() || r.comm.hosts < 2) return;
  std::vector<int> ring;
  for (const auto& [node, gpus] : gpus_by_node(r.pods)) ring.push_back(node);
  apply_measured(r.comm, ring, [this](int a, int b) { return cluster_.measured(a, b); });
}

bool Engine::current(const Event& event) const {
  if (!book_.is_open(event.job)) return false;
  if (!epoch_.empty())
    if (const auto run = epoch_.find(event.job); run != epoch_.end() && run->second != event.epoch) return false;
  return !flowing_ || flowing_->current(event.job, event.version);
}

void Engine::start_link_shares() {
  if (!FlowingJobs::needed(cluster_)) return;
  flowing_.emplace(cluster_, config_.network, book_,
                   [this](uint32_t id, double factor) { return timer_.rate_at(open_[id], book_[id], factor); });
  out_.shared_links = true;
}

void Engine::schedule(const std::vector<FlowingJobs::Finish>& finishes) {
  for (const FlowingJobs::Finish& f : finishes) {
    out_.busy_gpu_ms += f.moved_ms * open_[f.job].total_gpus();
    events_.push({f.finish_ms, seq_++, f.job, f.version, epoch_of(f.job)});
  }
}

void Engine::finish(uint32_t id) {
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

void Engine::schedule_pass() {
  if (admission_ && admission_->waiting() > 0)
    admission_->run(
        now_ms_, [&](uint32_t id) { admitted(id); },
        [&](const Preemption& p) {
          Preemption& logged = out_.preemption_log.emplace_back(p);
          logged.tenant = static_cast<int16_t>(tenant_of(open_[p.victim]));
          logged.by_tenant = static_cast<int16_t>(tenant_of(open_[p.preemptor]));
          preempt(p.victim, out_.preemption_log.size() - 1);
        });
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

void Engine::fail_waiting() {
  for (Queue& queue : queues_)
    for (uint32_t id : queue.pending.take_all()) {
      // Its reason is read from the per-job records only (jobs.jsonl, explain): a fill
      // experiment that keeps none does not pay for the scheduler's look at every node.
      const bool records = config_.keep_jobs || config_.job_store != nullptr;
      const std::string why = records ? queue.scheduler->wait_reason(view_, id) : "";
      book_[id].reason = "no node fitted it on arrival" + (why.empty() ? "" : ": " + why);
      // What it waited for, always counted: the scan stops at the first node with GPU room, which
      // is where most failed pods find it (their wait is on CPU or host memory).
      if (!gpu_room_somewhere(cluster_.shares(), pod_request(open_[id], book_[id].pods.size()))) ++out_.failed_no_gpu_room;
      set_state(id, JobState::Failed);
      close(id);
      ++failed_;
    }
}

void Engine::bind(uint32_t id, PodBinding pod) {
  JobRecord& r = book_[id];
  cluster_.bind(pod.node, pod_request(open_[id], r.pods.size()), pod.gpus);
  if (invariants_) invariants_->bound(pod.node, id, pod.gpus);
  if (r.pods.empty()) r.pods.reserve(static_cast<size_t>(std::max<int>(1, open_[id].workers)));
  r.pods.push_back({pod.node, std::move(pod.gpus), now_ms_});
  if (r.first_pod_ms < 0) r.first_pod_ms = now_ms_;
  if (outages_) outages_->bound(pod.node, id);
}

void Engine::start(uint32_t id, JobStart start) {
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

int64_t Engine::timed_run_ms(const JobSpec& job, JobRecord& r) {
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

void Engine::end_of_run() {
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
        r.reason = std::string(r.start_ms >= 0 ? "not placed again: " : "never placed: ") +
                   (why.empty() ? "not enough free GPUs when the simulation ended" : why);
      }
    }
  }
  if (admission_) finish_tenants();
  for (uint32_t id = 0; id < workload_.size(); ++id)  // running forever (fill), stuck, never placed
    if (book_.is_open(id)) {
      JobRecord& r = book_[id];
      if (admission_ && r.reason.empty() && r.state == JobState::Pending)
        r.reason = std::string(r.start_ms >= 0 ? "not admitted again: " : "never admitted: ") + admission_->wait_reason(id);
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

RunOutput simulate(const ClusterState& cluster, const Workload& workload, const RunConfig& config) {
  return Engine(cluster, workload, config).run();
}

}  // namespace topsim
