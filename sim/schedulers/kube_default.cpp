// Default Kubernetes scheduling (BRIEF section 2), the baseline: pods placed one at a time, no
// gang; nodes scored like kube-scheduler's default NodeResourcesFit "LeastAllocated" strategy,
// which spreads; GPU ids chosen by the NVIDIA device plugin's best-effort policy; every pod is
// its own host to NCCL, so pods talk over sockets (pod network inside a node, TCP across
// nodes). Serves nodes labelled `default` (requests `nvidia.com/gpu`). No queue order: every
// pending job gets its pods placed as far as they fit, which can leave jobs partially placed.
//
// Scoring (kube-scheduler pkg/scheduler/framework/plugins/noderesources/least_allocated.go):
// score = (allocatable - requested) x 100 / allocatable in integer arithmetic, requested
// including the incoming pod; GPUs stand in for the pod's resources (GPU pods ask CPU and memory
// in proportion). Equal top scores are broken at random (selectHost's reservoir sampling),
// here with the run's seeded generator. Not modelled: percentageOfNodesToScore sampling and
// the other score plugins.
#include <algorithm>
#include <random>

#include "sim/schedulers/registry.h"
#include "sim/schedulers/support.h"
#include "sim/seeds.h"

namespace topsim {
namespace {

constexpr NodeMode kServing = NodeMode::Default;

class KubeDefault final : public Scheduler {
 public:
  explicit KubeDefault(const SchedulerContext& context) : context_(context), rng_(context.seed) {}

  std::string admission_problem(const SchedulingView& view, uint32_t job) const override {
    return training_admission_problem(view, job, {kServing, false, true, false});
  }

  // Pods that find no node with room fail alike: the shape is the size of the next pod and the
  // node types the job can run on.
  ShapeKey shape(const SchedulingView& view, uint32_t job) const override {
    const JobSpec& spec = view.job(job);
    const std::optional<int64_t> types = runnable_types_key(view, spec);
    if (!types) return ShapeKey::of_job(job);
    const size_t next = view.record(job).pods.size();
    return {{1, spec.pod_gpus(next < spec.workers ? next : 0), *types, 0}};
  }
  std::string wait_reason(const SchedulingView& view, uint32_t job) const override {
    return training_wait_reason(view, job, kServing);
  }
  bool try_place(const SchedulingView& view, uint32_t job, Binder& binder) override { return place_pods(view, job, binder); }

 private:
  // The highest-scoring node with `gpus` free GPUs; -1 when none has room.
  int pick_spreading_node(const SchedulingView& view, const JobSpec& job, int gpus) {
    const NodeIndex& index = view.cluster().index();
    int best_score = -1, ties = 0;
    for (int t = 0; t < index.type_count(); ++t) {
      if (!type_fits_job(view, t, job)) continue;
      const int capacity = index.type_gpus(t);
      for (int c = gpus; c <= capacity; ++c) {
        const int count = static_cast<int>(index.bucket(kServing, t, c).size());
        if (count == 0) continue;
        const int score = (c - gpus) * 100 / capacity;
        if (score > best_score) best_score = score, ties = 0;
        if (score == best_score) ties += count;
      }
    }
    if (best_score < 0) return -1;
    // One draw mapped by the project's own arithmetic (standard distributions differ between
    // standard libraries; this keeps a seed's output identical everywhere).
    int pick = std::min(ties - 1, static_cast<int>(uniform01(rng_) * ties));
    for (int t = 0; t < index.type_count(); ++t) {
      if (!type_fits_job(view, t, job)) continue;
      const int capacity = index.type_gpus(t);
      for (int c = gpus; c <= capacity; ++c) {
        const NodeSet& bucket = index.bucket(kServing, t, c);
        if (bucket.empty() || (c - gpus) * 100 / capacity != best_score) continue;
        if (pick < static_cast<int>(bucket.size())) return bucket.nth(static_cast<size_t>(pick));
        pick -= static_cast<int>(bucket.size());
      }
    }
    return -1;
  }

  bool place_pods(const SchedulingView& view, uint32_t id, Binder& binder) {
    const JobSpec& job = view.job(id);
    const ClusterState& cluster = view.cluster();
    while (view.record(id).pods.size() < job.workers) {
      const int gpus = job.pod_gpus(view.record(id).pods.size());
      const int node = pick_spreading_node(view, job, gpus);
      if (node < 0) return false;
      PlacementRequest request;
      request.gpus = gpus;
      request.policy = PlacementPolicy::DevicePlugin;
      const auto choice = cluster.type_of(node).allocator->choose(cluster.node(node).free, request);
      if (!choice) return false;  // cannot happen: the node has `gpus` free
      binder.bind(id, {node, to_ids(choice->gpus)});
    }
    binder.start(id, socket_job_start(view, id, context_.network));
    return true;
  }

  SchedulerContext context_;
  std::mt19937_64 rng_;
};

}  // namespace

std::unique_ptr<Scheduler> make_kube_default_scheduler(const SchedulerContext& context) {
  return std::make_unique<KubeDefault>(context);
}

}  // namespace topsim
