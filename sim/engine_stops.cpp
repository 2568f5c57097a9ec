// The engine's stops (sim/engine_loop.h): a running job stopped before its end by its queue
// (preemption) or its node's failure, moved to a spare or resized (elastic), and the tenants'
// quota that decides preemptions.
#include "sim/engine_loop.h"
#include "sim/schedulers/support.h"
#include "sim/schedulers/tier_support.h"

#include <algorithm>

namespace topsim {

void Engine::start_tenants() {
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
  out_.flavors = admission_->flavor_names();
  for (const TenantQuota& t : admission_->tenants()) out_.tenants.push_back({t.name, 0, t.nominal_gpus, 0, t.holds_quota});
  out_.quota = true;
}

std::string Engine::enqueue_for_quota(const JobSpec& job, int64_t timestamp_ms) {
  return admission_ ? admission_->enqueue(job, timestamp_ms) : binding_error_;
}

void Engine::admitted(uint32_t id) {
  JobRecord& r = book_[id];
  if (r.admitted_ms < 0) r.admitted_ms = now_ms_;
  // Its flavor's node labels become its pods' node selector (for this admission only).
  const Admission::AdmittedFlavor flavor = admission_->admitted_flavor(id);
  r.flavor = static_cast<int16_t>(flavor.flavor);
  open_.set_flavor_gpu(id, flavor.gpu < 0 ? kAnyGpuModel : static_cast<uint8_t>(flavor.gpu));
  Queue* queue = queue_for(open_[id]);
  queue->pending.push(id, queue->scheduler->shape(view_, id));
}

void Engine::stop(uint32_t id, std::optional<FailureCause> failure, bool requeue, bool resize, int64_t eviction) {
  ++out_.events;
  JobRecord& r = book_[id];
  const JobSpec& job = open_[id];
  const bool running = r.state == JobState::Running;
  if (running) {
    stop_running(id, failure, eviction);
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

void Engine::stop_running(uint32_t id, std::optional<FailureCause> failure, int64_t eviction) {
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
  // The run's restart was counted whole when it started (resumed_run_ms): a run stopped during it
  // spent only part of it, and that part is charged to the stop that made it.
  r.restart_ms -= run.overhead_ms - stopped.overhead_ms;
  charge(id, run.owner, stopped.overhead_ms * milli / kMilliPerGpu);
  // What this stop costs now: the training since the last checkpoint, to redo; its restart, when
  // the job runs again.
  const RestartOwner cause = failure ? RestartOwner{static_cast<int>(*failure), -1} : RestartOwner{-1, eviction};
  if (failure) {
    ++r.interruptions;
    ++out_.failures_by_cause[static_cast<size_t>(*failure)].interruptions;
  }
  charge(id, cause, stopped.recompute_ms * milli / kMilliPerGpu);
  restart_owner_[id] = cause;
  out_.busy_gpu_ms -= (run.finish_ms - now_ms_) * milli / kMilliPerGpu;
  if (const int t = tenant_of(open_[id]); t >= 0) {
    out_.tenants[static_cast<size_t>(t)].used_gpu_ms += (now_ms_ - run.start_ms) * milli / kMilliPerGpu;
    tenant_milli_[static_cast<size_t>(t)] -= milli;
  }
  --running_;
}

void Engine::charge(uint32_t id, const RestartOwner& owner, int64_t gpu_ms) {
  if (gpu_ms == 0) return;
  if (owner.failure >= 0) out_.failures_by_cause[static_cast<size_t>(owner.failure)].lost_gpu_ms += gpu_ms;
  if (owner.eviction >= 0) {
    book_[id].lost_gpu_ms += gpu_ms;
    out_.preemption_log[static_cast<size_t>(owner.eviction)].lost_gpu_ms += gpu_ms;
  }
}

int64_t Engine::resumed_run_ms(uint32_t id, int64_t full_ms) {
  JobRecord& r = book_[id];
  // A run of it stopped before (done_ holds what it saved): it restarts. A job evicted only
  // before it ever ran has nothing to restore.
  const auto done = done_.find(id);
  const int64_t overhead = done != done_.end() ? config_.checkpoint.restart_overhead_ms : 0;
  const int64_t run_ms = remaining_run_ms(done == done_.end() ? 0 : done->second, full_ms, overhead, config_.checkpoint);
  if (open_[id].is_training()) out_.busy_gpu_ms += (run_ms - full_ms) * open_[id].total_gpus();
  const int64_t rest_ms = remaining_run_ms(done == done_.end() ? 0 : done->second, full_ms, 0, CheckpointPolicy{});
  RestartOwner owner;
  if (const auto it = restart_owner_.find(id); it != restart_owner_.end()) {
    owner = it->second;
    restart_owner_.erase(it);
  }
  runs_[id] = {now_ms_, now_ms_ + run_ms, overhead, run_ms - overhead - rest_ms, owner};
  r.restart_ms += overhead;
  if (const auto stopped = stopped_at_.find(id); stopped != stopped_at_.end()) {
    r.requeue_ms += now_ms_ - stopped->second;
    stopped_at_.erase(stopped);
  }
  return run_ms;
}

void Engine::end_run(uint32_t id) {
  int64_t start = book_[id].start_ms;
  if (const auto run = runs_.find(id); run != runs_.end()) {
    start = run->second.start_ms;
    book_[id].checkpoint_ms += run->second.writes_ms;
    charge(id, run->second.owner, run->second.overhead_ms * gpu_milli(id) / kMilliPerGpu);
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

void Engine::start_failures() {
  if (!config_.failures) return;
  outages_.emplace(*config_.failures, cluster_, invariants_ ? &*invariants_ : nullptr, config_.seed, out_.first_submit_ms);
  out_.failures = true;
  out_.checkpoint = config_.checkpoint;
  if (outages_->holds_spares()) {
    out_.spares = true;
    out_.spare_gpus = cluster_.spare_gpus();
  }
}

void Engine::node_events_at(int64_t t) {
  std::vector<uint32_t> hit;
  while (outages_ && outages_->due(t)) {
    NodeEvent e = outages_->next(hit, [this](uint32_t id) { return book_[id].state == JobState::Running; });
    ++out_.events;
    if (!e.fails) {
      repaired(e.node);
      continue;
    }
    ++out_.failures_by_cause[static_cast<size_t>(e.cause)].failures;
    if (e.spare >= 0) ++out_.spare_swaps;
    e.hit.reserve(hit.size());
    for (uint32_t id : hit)
      if (e.spare >= 0 && book_[id].state == JobState::Running) {
        move_to_spare(id, e.node, e.spare, e.cause);
        e.hit.push_back({id, FailureOutcome::Spare});
      } else if (e.down_ms > 0 && can_shrink(id, e.node)) {
        shrink(id, e.node, e.cause);
        e.hit.push_back({id, FailureOutcome::Shrunk});
      } else {
        stop(id, e.cause);
        e.hit.push_back({id, FailureOutcome::Stopped});
      }
    outages_->take_down(e.node);
    out_.failure_log.push_back(std::move(e));
  }
}

void Engine::repaired(int node) {
  if (!outages_->repaired(node)) return;
  std::vector<uint32_t> shrunk;
  for (const auto& [id, full] : shrunk_) shrunk.push_back(id);
  for (uint32_t id : shrunk) grow(id, node);
}

bool Engine::can_shrink(uint32_t id, int failed) const {
  return book_[id].state == JobState::Running && keeps_enough_workers(book_[id].pods, failed, open_[id].min_workers);
}

void Engine::restart_on(uint32_t id, std::vector<PodBinding> pods, std::optional<FailureCause> failure) {
  JobRecord& r = book_[id];
  const JobSpec& job = open_[id];
  const bool resized = pods.size() != job.workers;
  // The job gets its path anew, as a job starting on those pods would: which algorithm NCCL runs,
  // and a Tree's or NVLSTree's figure, depend on how many hosts it spans (core/nccl_algo.h), and
  // a spare in another NVLink domain than the failed node's moves the job's traffic between them
  // onto the NICs. Host-networked gangs here; pod-socket training jobs once their pods are bound
  // (below); start() caps either by the measured pairs of its nodes now. It keeps its path where
  // that would give the same: a swap onto a spare (of the failed node's model) in the same NVLink
  // domain, without measured pairs (which are by node) on the cluster, since remaking a gang's
  // path visits every node it spans (1,536 for failures-h100-16k's pre-training job); and a job
  // without a collective (inference).
  const bool keeps_path =
      !job.is_training() || (!resized && !cluster_.has_measured() && same_nvlink_domains(r.pods, pods, cluster_.fabric()));
  JobStart again{{}, r.relaxed, {}, r.host_network, r.placement_note};
  if (keeps_path)
    again.comm = r.comm;
  else if (r.host_network)
    again.comm = host_network_path(cluster_, pods, config_.network);
  const uint16_t full = shrunk_.count(id) ? shrunk_.at(id) : job.workers;
  stop(id, failure, false, !failure);
  open_.set_workers(id, static_cast<uint16_t>(pods.size()));
  if (pods.size() < full)
    shrunk_[id] = full;
  else
    shrunk_.erase(id);
  for (const PodBinding& pod : pods) bind(id, pod);
  if (!keeps_path && !again.host_network) {
    const JobStart sockets = socket_job_start(view_, id, config_.network);
    again.comm = sockets.comm;
    again.rank_order = sockets.rank_order;
  }
  if (resized) {
    ++r.resizes;
    ++out_.elastic_resizes;
  }
  start(id, std::move(again));
}

void Engine::grow(uint32_t id, int node) {
  const JobRecord& r = book_[id];
  if (r.state != JobState::Running) return;
  // Only onto a node type it runs on already: its pace (the slowest of its types) stays, and the
  // type is one it can run on (its model fits, its GPU model selector names it).
  const int type = cluster_.node(node).type;
  if (std::none_of(r.pods.begin(), r.pods.end(), [&](const PodPlacement& pod) { return cluster_.node(pod.node).type == type; }))
    return;
  const JobSpec& job = open_[id];
  std::vector<int> free;
  const GpuSet& cards = cluster_.node(node).free;
  for (int g = 0; g < cluster_.gpus_per_node(node); ++g)
    if (cards.test(static_cast<size_t>(g))) free.push_back(g);
  std::vector<PodBinding> pods = pods_grown(r.pods, node, free, shrunk_.at(id) - job.workers, job.gpus_per_worker);
  if (pods.size() > r.pods.size()) restart_on(id, std::move(pods), std::nullopt);
}

void Engine::finish_tenants() {
  const std::vector<int64_t> borrowed = admission_->borrowed_gpu_ms(now_ms_);
  for (size_t q = 0; q < borrowed.size(); ++q) out_.tenants[q].borrowed_gpu_ms = borrowed[q];
  out_.borrowed_gpu_ms = admission_->borrowed_total_gpu_ms(now_ms_);
}

}  // namespace topsim
