#include <algorithm>
#include <cmath>

#include "sim/engine.h"

namespace topsim {

const char* scheduler_name(SchedulerKind kind) {
  return kind == SchedulerKind::TopologyAware ? "topology-aware" : "default";
}

const char* job_state_name(JobState state) {
  switch (state) {
    case JobState::Pending: return "pending";
    case JobState::Partial: return "partial";
    case JobState::Running: return "running";
    case JobState::Finished: return "finished";
    case JobState::Rejected: return "rejected";
    case JobState::Stuck: return "stuck";
  }
  return "pending";
}

Engine::Engine(const ClusterState& cluster, const Workload& workload, const SimOptions& options)
    : cluster_(cluster), workload_(workload), options_(options), index_(cluster_), rng_(options.seed) {
  serving_ = options.scheduler == SchedulerKind::TopologyAware ? NodeLabel::Topology : NodeLabel::Default;
  result_.scheduler = options.scheduler;
  result_.total_gpus = cluster_.total_gpus();
  result_.jobs.resize(workload.jobs.size());
  result_.sample_every_ms = options.sample_every_ms > 0 ? options.sample_every_ms : auto_sample_period_ms(workload);
  if (!workload.jobs.empty()) {
    first_ms_ = last_ms_ = workload.jobs.front().submit_ms;
    const int64_t every = result_.sample_every_ms;
    next_sample_ms_ = (first_ms_ >= 0 ? first_ms_ / every : (first_ms_ - every + 1) / every) * every;
  }
  build_share_state();
}

SimResult Engine::run() {
  const std::vector<JobSpec>& jobs = workload_.jobs;
  size_t next_submit = 0;
  while (next_submit < jobs.size() || !events_.empty()) {
    int64_t t = events_.empty() ? jobs[next_submit].submit_ms : events_.top().time_ms;
    if (next_submit < jobs.size()) t = std::min(t, jobs[next_submit].submit_ms);
    advance_to(t);
    now_ms_ = t;
    while (next_submit < jobs.size() && jobs[next_submit].submit_ms == t) submit(jobs[next_submit++].id);
    while (!events_.empty() && events_.top().time_ms == t) {
      const uint32_t job = events_.top().job;
      events_.pop();
      finish(job);
    }
    schedule_pass();
  }
  for (uint32_t id : pending_) {
    JobRecord& r = result_.jobs[id];
    if (r.state == JobState::Partial) {
      for (const PodPlacement& pod : r.pods) result_.held_idle_gpu_ms += (now_ms_ - pod.placed_ms) * static_cast<int64_t>(pod.gpus.size());
      r.reason = "stuck: " + std::to_string(r.pods.size()) + " of " + std::to_string(workload_.jobs[id].workers) +
                 " pods placed when nothing else could run (partial placement deadlock)";
      set_state(id, JobState::Stuck);
    } else if (r.reason.empty()) {
      r.reason = "never placed: not enough free GPUs when the simulation ended";
    }
  }
  result_.makespan_ms = now_ms_;
  finish_averages();
  return std::move(result_);
}

void Engine::set_state(uint32_t job, JobState state) {
  result_.jobs[job].state = state;
  if (options_.record_transitions) result_.transitions.push_back({now_ms_, job, state});
}

void Engine::reject(uint32_t job, std::string reason) {
  result_.jobs[job].reason = std::move(reason);
  set_state(job, JobState::Rejected);
}

std::string Engine::admission_problem(const JobSpec& job) const {
  if (job.is_share()) return share_admission_problem(job);
  const char* resource = serving_ == NodeLabel::Topology ? "aliyun.com/gpu" : "nvidia.com/gpu";
  const int serving_gpus = cluster_.label_gpus(serving_);
  if (serving_gpus == 0)
    return std::string("no node serves ") + resource + " requests (no node is labelled ack.node.gpu.schedule=" +
           node_label_name(serving_) + ")";
  if (options_.scheduler == SchedulerKind::TopologyAware && !job.unequal_pod_gpus.empty()) {
    std::string pods;
    for (uint16_t g : job.unequal_pod_gpus) pods += (pods.empty() ? "" : ",") + std::to_string(g);
    return "pods request unequal GPU counts (" + pods + "): gang scheduling needs identical pods";
  }
  if (job.total_gpus() > serving_gpus)
    return "needs " + std::to_string(job.total_gpus()) + " GPUs, the nodes serving it have " + std::to_string(serving_gpus);
  int largest_pod = job.gpus_per_worker;
  for (uint16_t g : job.unequal_pod_gpus) largest_pod = std::max<int>(largest_pod, g);
  if (largest_pod > cluster_.max_node_gpus(serving_))
    return "a pod of " + std::to_string(largest_pod) + " GPUs fits on no node (largest has " +
           std::to_string(cluster_.max_node_gpus(serving_)) + ")";
  if (auto it = workload_.extras.find(job.id); it != workload_.extras.end()) {
    GangRequest annotated;
    if (Status s = apply_gang_annotations(it->second.annotations, annotated); !s) return s.error().message;
  }
  std::vector<bool> serving_type(cluster_.type_count(), false);
  for (const SimNode& node : cluster_.nodes())
    if (node.label == serving_) serving_type[node.type] = true;
  for (int t = 0; t < cluster_.type_count(); ++t) {
    if (!serving_type[t]) continue;
    if (options_.scheduler == SchedulerKind::Default && job.workers > 1 && cluster_.type(t).primary_nic_gbit <= 0)
      return "node type " + cluster_.type(t).topology->name() + " has no NIC: its pods cannot reach pods on other nodes";
    const int sm = cluster_.type(t).topology->model().gpus.front().sm;
    TrainingJob tj{job.model, job.framework, job.batch_per_gpu, sm};
    if (auto e = estimate_throughput(tj, CommPath{}); !e)
      return "no throughput model for it on " + cluster_.type(t).topology->name() + ": " + e.error().message;
  }
  return "";
}

void Engine::submit(uint32_t job) {
  ++result_.events;
  result_.jobs[job].submit_ms = workload_.jobs[job].submit_ms;
  result_.jobs[job].share = workload_.jobs[job].is_share();
  set_state(job, JobState::Pending);
  std::string problem = admission_problem(workload_.jobs[job]);
  if (!problem.empty()) return reject(job, std::move(problem));
  pending_.push_back(job);
}

void Engine::occupy(int node, const std::vector<int>& gpus) {
  const int before = static_cast<int>(cluster_.node(node).free.count());
  cluster_.take(node, gpus);
  index_.update(cluster_.node(node), node, before, before - static_cast<int>(gpus.size()));
}

void Engine::vacate(int node, const std::vector<int>& gpus) {
  const int before = static_cast<int>(cluster_.node(node).free.count());
  cluster_.release(node, gpus);
  index_.update(cluster_.node(node), node, before, before + static_cast<int>(gpus.size()));
}

void Engine::take(int node, const std::vector<int>& gpus) {
  occupy(node, gpus);
  mirror_whole(node, gpus, true);
}

void Engine::release(int node, const std::vector<int>& gpus) {
  vacate(node, gpus);
  mirror_whole(node, gpus, false);
}

void Engine::finish(uint32_t job) {
  ++result_.events;
  JobRecord& r = result_.jobs[job];
  for (const PodPlacement& pod : r.pods) {
    if (r.share) release_share(pod, workload_.jobs[job]);
    else release(pod.node, pod.gpus);
  }
  --running_;
  r.finish_ms = now_ms_;
  set_state(job, JobState::Finished);
}

void Engine::schedule_pass() {
  FailedShapes failed, failed_shares;
  std::vector<uint32_t> still_pending;
  bool blocked = false;
  for (uint32_t id : pending_) {
    const JobSpec& job = workload_.jobs[id];
    bool started = false;
    if (job.is_share()) {  // the sharing extender, the same under both schedulers
      const std::pair<int, int> shape{job.gpu_mem_gib, job.gpu_core_percent};
      if (!blocked && !failed_shares.count(shape)) {
        started = place_share(id);
        if (!started) failed_shares.insert(shape);
      }
      blocked = blocked || (!started && !options_.backfill);
    } else if (!blocked && options_.scheduler == SchedulerKind::TopologyAware) {
      const auto extras = workload_.extras.find(id);  // annotated jobs have their own constraints
      const bool plain = extras == workload_.extras.end() || extras->second.annotations.empty();
      const std::pair<int, int> shape{job.workers, job.gpus_per_worker};
      if (!(plain && failed.count(shape))) {
        started = place_topology(id);
        if (!started && plain) failed.insert(shape);
      }
      blocked = !started && !options_.backfill;
    } else if (options_.scheduler == SchedulerKind::Default) {
      started = place_default_pods(id);
    }
    if (started) start(id);
    else still_pending.push_back(id);
  }
  pending_.swap(still_pending);
}

bool Engine::cross_numa(const std::vector<PodPlacement>& pods) const {
  std::map<int, std::set<int>> numa_by_node;
  for (const PodPlacement& pod : pods)
    for (int g : pod.gpus) numa_by_node[pod.node].insert(cluster_.type_of(pod.node).topology->gpu_numa(g));
  for (const auto& [node, numa] : numa_by_node)
    if (numa.size() > 1) return true;
  return false;
}

bool Engine::spans_racks(const std::vector<int>& nodes) const {
  if (cluster_.network().nodes_per_rack <= 0) return false;
  for (int n : nodes)
    if (cluster_.node(n).rack != cluster_.node(nodes.front()).rack) return true;
  return false;
}

Expected<ThroughputEstimate> Engine::throughput(const JobSpec& job, int node_type, const CommPath& path) const {
  const int sm = cluster_.type(node_type).topology->model().gpus.front().sm;
  TrainingJob tj{job.model, job.framework, job.batch_per_gpu, sm};
  return estimate_throughput(tj, path, options_.overlap);
}

double Engine::ideal_samples_per_sec(const JobSpec& job, int node_type) {
  const auto key = std::make_tuple(node_type, int{job.workers}, int{job.gpus_per_worker}, int{job.model},
                                   static_cast<int>(job.framework), int{job.batch_per_gpu});
  if (auto it = ideal_cache_.find(key); it != ideal_cache_.end()) return it->second;
  const NodeType& type = cluster_.type(node_type);
  const int node_gpus = type.topology->gpu_count();
  CommPath path;
  if (job.total_gpus() <= node_gpus) {
    PlacementRequest request;
    request.gpus = job.total_gpus();
    auto placement = type.allocator->place(all_gpus(node_gpus), request);
    if (placement) path = ring_plan_path(placement->ring);
  } else {
    std::vector<GangNode> idle((job.total_gpus() + node_gpus - 1) / node_gpus, GangNode{type.allocator.get(), all_gpus(node_gpus), ""});
    GangRequest request;
    request.workers = job.workers;
    request.gpus_per_worker = job.gpus_per_worker;
    auto placement = place_gang(idle, request, options_.network);
    if (placement) path = gang_comm_path(*placement, idle);
  }
  auto estimate = throughput(job, node_type, path);
  const double ideal = estimate ? estimate->samples_per_sec : 0;
  ideal_cache_.emplace(key, ideal);
  return ideal;
}

void Engine::start(uint32_t id) {
  const JobSpec& job = workload_.jobs[id];
  JobRecord& r = result_.jobs[id];
  ++running_;
  if (job.is_share()) {  // runs its recorded duration; busy for its share of the card
    const PodPlacement& pod = r.pods.front();
    const int card_mem = shares_.nodes[static_cast<size_t>(pod.node)].cards[static_cast<size_t>(pod.gpus.front())].mem_total_gib;
    r.start_ms = now_ms_;
    result_.busy_gpu_ms += job.ideal_duration_ms * ask_card_milli(share_ask(job), card_mem) / kMilliPerGpu;
    set_state(id, JobState::Running);
    events_.push({now_ms_ + job.ideal_duration_ms, seq_++, id});
    return;
  }
  const int node_type = cluster_.node(r.pods.front().node).type;
  const auto estimate = throughput(job, node_type, r.comm);
  r.samples_per_sec = estimate ? estimate->samples_per_sec : 0;
  r.ideal_samples_per_sec = ideal_samples_per_sec(job, node_type);
  r.cross_numa = cross_numa(r.pods);
  int64_t run_ms = 0;
  if (job.iterations > 0 && estimate) {
    run_ms = static_cast<int64_t>(std::ceil(job.iterations * estimate->step_ms));
  } else if (r.samples_per_sec > 0 && r.ideal_samples_per_sec > 0) {
    run_ms = static_cast<int64_t>(std::ceil(job.ideal_duration_ms * (r.ideal_samples_per_sec / r.samples_per_sec)));
  } else {
    run_ms = job.ideal_duration_ms;
  }
  for (const PodPlacement& pod : r.pods) result_.held_idle_gpu_ms += (now_ms_ - pod.placed_ms) * static_cast<int64_t>(pod.gpus.size());
  r.start_ms = now_ms_;
  result_.busy_gpu_ms += run_ms * job.total_gpus();
  set_state(id, JobState::Running);
  events_.push({now_ms_ + run_ms, seq_++, id});
}

SimResult simulate(const ClusterState& cluster, const Workload& workload, const SimOptions& options) {
  ClusterState copy = cluster;
  copy.relabel_unpinned(options.scheduler == SchedulerKind::TopologyAware ? NodeLabel::Topology : NodeLabel::Default);
  Engine engine(copy, workload, options);
  return engine.run();
}

}  // namespace topsim
