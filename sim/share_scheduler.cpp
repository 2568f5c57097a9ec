// Shared-GPU jobs in the event engine, and the share / fragmentation mirror of the cluster.
//
// Every node has a ShareNode twin (core/gpu_share.h) whose mode follows the node's label:
// whole-GPU placements of either scheduler mark their cards taken there, and shared-GPU jobs
// (a pod asking `aliyun.com/gpu-mem` GiB and optionally `gpu-core.percentage`, BRIEF section 3)
// are placed on `share` / `core_mem` nodes by a share policy (core/share_policies.h) working on
// the twins. A card holding any share is not free for whole-GPU jobs. One FragmentationTracker
// follows the twins, so FGD's fragmentation is known after every event without a rescan
// (sampled over time in sampling.cpp).
#include <algorithm>
#include <array>
#include <string>

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

}  // namespace topsim
