// Shared-GPU jobs in the event engine, and the share / fragmentation mirror of the cluster.
//
// Every node has a ShareNode twin (core/gpu_share.h) whose mode follows the node's label:
// whole-GPU placements of either scheduler mark their cards taken there, and shared-GPU jobs
// (a pod asking `aliyun.com/gpu-mem` GiB and optionally `gpu-core.percentage`, BRIEF section 3)
// are placed on `share` / `core_mem` nodes by a share policy (core/share_policies.h) working on
// the twins. A card holding any share is not free for whole-GPU jobs. One FragmentationTracker
// follows the twins, so FGD's fragmentation is known after every event without a rescan; the
// engine integrates it over time and samples it next to the queue.
#include <algorithm>
#include <array>

#include "sim/engine.h"

namespace topsim {
namespace {

constexpr double kTargetCoverage = 0.95;  // FGD: the specs covering 95% of the pods

PodRequest share_pod(const JobSpec& job) {
  PodRequest pod;
  pod.gpu = share_ask(job);
  return pod;
}

PodRequest whole_pod(int gpus, bool topology_aware) {
  PodRequest pod;
  pod.gpu = GpuAsk::whole(gpus, topology_aware);
  return pod;
}

}  // namespace

int64_t auto_sample_period_ms(const Workload& workload) {
  constexpr int64_t kSecond = 1000, kMinute = 60 * kSecond, kHour = 60 * kMinute, kDay = 24 * kHour;
  constexpr std::array<int64_t, 19> kRound = {kSecond,      2 * kSecond,  5 * kSecond,  10 * kSecond, 15 * kSecond,
                                              30 * kSecond, kMinute,      2 * kMinute,  5 * kMinute,  10 * kMinute,
                                              15 * kMinute, 30 * kMinute, kHour,        2 * kHour,    3 * kHour,
                                              6 * kHour,    12 * kHour,   kDay,         2 * kDay};
  constexpr int64_t kWeek = 7 * kDay, kMaxSamples = 100;
  if (workload.jobs.empty()) return kMinute;
  // The expected span: submissions, and trace durations where jobs carry them (a job with
  // iterations has no known duration before it is placed).
  int64_t end = workload.jobs.back().submit_ms;
  for (const JobSpec& job : workload.jobs) end = std::max(end, job.submit_ms + job.ideal_duration_ms);
  const int64_t span = end - workload.jobs.front().submit_ms;
  const int64_t wanted = (span + kMaxSamples - 1) / kMaxSamples;
  for (int64_t period : kRound)
    if (period >= wanted) return period;
  return (wanted + kWeek - 1) / kWeek * kWeek;
}

void Engine::build_share_state() {
  std::array<int, kNodeLabelCount> card_mem{};
  for (int n = 0; n < static_cast<int>(cluster_.nodes().size()); ++n) {
    const SimNode& node = cluster_.node(n);
    const int mem = card_mem_gib(cluster_.type(node.type).topology->model());
    card_mem[static_cast<size_t>(node.label)] = std::max(card_mem[static_cast<size_t>(node.label)], mem);
    shares_.nodes.push_back(make_share_node("node-" + std::to_string(n), node_label_mode(node.label), node.type,
                                            cluster_.gpus_per_node(n), mem, 0, 0));
  }
  label_card_mem_ = card_mem;
  std::vector<TaskSpec> specs;
  const bool topology_aware = serving_ == NodeLabel::Topology;
  for (const JobSpec& job : workload_.jobs) {
    if (job.is_share()) {
      specs.push_back(task_spec(share_pod(job), card_mem[static_cast<size_t>(share_label(job))]));
    } else if (job.unequal_pod_gpus.empty()) {
      specs.insert(specs.end(), job.workers, task_spec(whole_pod(job.gpus_per_worker, topology_aware)));
    } else {
      for (uint16_t gpus : job.unequal_pod_gpus) specs.push_back(task_spec(whole_pod(gpus, topology_aware)));
    }
  }
  if (specs.empty()) return;
  target_ = derive_target_workload(specs, kTargetCoverage);
  tracker_ = std::make_unique<FragmentationTracker>(target_, shares_);
  result_.target_specs = target_.specs.size();
  auto policy = make_share_policy(options_.share_policy, SharePolicyContext{options_.seed, tracker_.get()});
  share_policy_ = std::move(policy).value();  // valid: the tracker exists
}

std::string Engine::share_admission_problem(const JobSpec& job) const {
  const NodeLabel label = share_label(job);
  const int card_mem = label_card_mem_[static_cast<size_t>(label)];
  if (card_mem == 0)
    return std::string("no node serves ") + (job.gpu_core_percent > 0 ? "gpu-mem + gpu-core.percentage" : "memory-only gpu-mem") +
           " shares (no node is labelled ack.node.gpu.schedule=" + node_label_name(label) + ")";
  if (const Status status = validate_request(share_pod(job), card_mem); !status) return status.error().message;
  return "";
}

bool Engine::place_share(uint32_t id) {
  const PodRequest pod = share_pod(workload_.jobs[id]);
  const auto placement = share_policy_->place(shares_, pod);
  if (!placement) return false;
  const int node = placement->node;
  ShareNode& twin = shares_.nodes[static_cast<size_t>(node)];
  const bool card_was_idle = twin.cards[static_cast<size_t>(placement->cards.front())].tasks == 0;
  apply_placement(twin, pod, placement->cards);
  tracker_->update_node(shares_, node);
  if (card_was_idle) occupy(node, placement->cards);
  JobRecord& r = result_.jobs[id];
  r.pods.push_back({node, placement->cards, now_ms_});
  return true;
}

void Engine::release_share(const PodPlacement& pod, const JobSpec& job) {
  ShareNode& twin = shares_.nodes[static_cast<size_t>(pod.node)];
  release_placement(twin, share_pod(job), pod.gpus);
  tracker_->update_node(shares_, pod.node);
  if (twin.cards[static_cast<size_t>(pod.gpus.front())].tasks == 0) vacate(pod.node, pod.gpus);
}

void Engine::mirror_whole(int node, const std::vector<int>& gpus, bool take) {
  if (!tracker_) return;
  ShareNode& twin = shares_.nodes[static_cast<size_t>(node)];
  const PodRequest pod = whole_pod(static_cast<int>(gpus.size()), false);
  if (take) apply_placement(twin, pod, gpus);
  else release_placement(twin, pod, gpus);
  tracker_->update_node(shares_, node);
}

SimSample Engine::sample_now(int64_t time_ms) const {
  SimSample s;
  s.time_ms = time_ms;
  s.running = running_;
  s.pending = static_cast<int64_t>(pending_.size());
  if (tracker_) {
    s.allocated_gpus = result_.total_gpus - tracker_->free_gpus();
    s.fragmentation_gpus = tracker_->fragmentation_gpus();
    s.fragmentation_rate = tracker_->fragmentation_rate();
    s.unusable_gpus = tracker_->unusable_gpus();
    s.idle_cards = tracker_->idle_cards();
  } else {
    s.allocated_gpus = result_.total_gpus - cluster_.free_gpus();
    s.idle_cards = cluster_.free_gpus();
  }
  return s;
}

void Engine::record_sample(const SimSample& now) {
  result_.samples.push_back(now);
  result_.samples.back().time_ms = next_sample_ms_;
  next_sample_ms_ += result_.sample_every_ms;
  if (options_.sample_every_ms > 0 || result_.samples.size() <= kMaxAutoSamples) return;
  // Automatic period and the run outlasted the expected span: keep every other sample (a grid
  // of twice the period from the same origin).
  std::vector<SimSample>& samples = result_.samples;
  size_t kept = 0;
  for (size_t i = 0; i < samples.size(); i += 2) samples[kept++] = samples[i];
  samples.resize(kept);
  result_.sample_every_ms *= 2;
  next_sample_ms_ = samples.back().time_ms + result_.sample_every_ms;
}

void Engine::advance_to(int64_t time_ms) {
  if (time_ms <= last_ms_) return;
  const SimSample now = sample_now(0);
  while (next_sample_ms_ < time_ms) record_sample(now);
  const auto dt = static_cast<double>(time_ms - last_ms_);
  sum_allocated_ += now.allocated_gpus * dt;
  sum_fragmentation_ += now.fragmentation_gpus * dt;
  sum_rate_ += now.fragmentation_rate * dt;
  sum_pending_ += static_cast<double>(now.pending) * dt;
  sum_running_ += static_cast<double>(now.running) * dt;
  result_.averages.peak_pending = std::max(result_.averages.peak_pending, now.pending);
  last_ms_ = time_ms;
}

void Engine::finish_averages() {
  const SimSample now = sample_now(0);
  while (next_sample_ms_ <= now_ms_ && !workload_.jobs.empty()) record_sample(now);
  result_.averages.peak_pending = std::max(result_.averages.peak_pending, now.pending);
  TimeAverages& a = result_.averages;
  const auto span = static_cast<double>(now_ms_ - first_ms_);
  if (span <= 0) {  // everything happened at one instant: the state then
    a.allocated_gpus = now.allocated_gpus;
    a.fragmentation_gpus = now.fragmentation_gpus;
    a.fragmentation_rate = now.fragmentation_rate;
    a.pending = static_cast<double>(now.pending);
    a.running = static_cast<double>(now.running);
    return;
  }
  a.allocated_gpus = sum_allocated_ / span;
  a.fragmentation_gpus = sum_fragmentation_ / span;
  a.fragmentation_rate = sum_rate_ / span;
  a.pending = sum_pending_ / span;
  a.running = sum_running_ / span;
}

}  // namespace topsim
