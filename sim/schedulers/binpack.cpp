// Bin packing, Volcano-style (Volcano's gang plugin with its binpack node-order plugin, the
// batch scheduler many Kubernetes GPU clusters run): a training job's pods are placed all or
// none (gang), each pod on the most allocated node that still has room for it, and inside the
// node on its lowest free GPU ids, without looking at the topology. Pods are ordinary pods (no
// host IPC/network), so they talk over sockets as under default scheduling. GPU shares and
// trace pods go to the fullest card that fits (core's binpack share policy, the gpushare
// extender's binpack). Serves nodes labelled `default` (plain `nvidia.com/gpu` requests).
//
// Node score (Volcano pkg/scheduler/plugins/binpack: per resource weight x (used + requested)
// / allocatable, GPUs the only weighted resource here): the node's GPU share in use after the
// pod, highest first, compared exactly as fractions; ties go to the lowest node index (Volcano
// draws among equal nodes at random). Queue: FIFO with backfill unless the scenario turns
// backfill off; a gang that does not fit waits whole, holding nothing.
#include <map>

#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {
namespace {

constexpr NodeMode kServing = NodeMode::Default;

// A node a pod could go to, scored by the GPUs in use after placing it over the node's GPUs.
struct Candidate {
  int node = -1;
  int used_after = 0;
  int capacity = 1;
  // Higher share in use first, then the lower node index.
  bool better_than(const Candidate& other) const {
    if (other.node < 0) return true;
    const long lhs = static_cast<long>(used_after) * other.capacity, rhs = static_cast<long>(other.used_after) * capacity;
    return lhs != rhs ? lhs > rhs : node < other.node;
  }
};

class Binpack final : public Scheduler {
 public:
  explicit Binpack(const SchedulerContext& context) : context_(context), shares_(SharePolicyKind::Binpack, context) {}

  std::string admission_problem(const SchedulingView& view, uint32_t job) const override {
    return pod_admission_problem(view, job);
  }

  ShapeKey shape(const SchedulingView& view, uint32_t job) const override {
    return view.job(job).is_training() ? training_shape(view, job) : shares_.shape(view, job);
  }
  bool try_place(const SchedulingView& view, uint32_t job, Binder& binder) override {
    return view.job(job).is_training() ? place_gang(view, job, binder) : shares_.try_place(view, job, binder);
  }
  // Training jobs on `default` nodes (kServing), shares and trace pods: the share path's reasons.
  std::string wait_reason(const SchedulingView& view, uint32_t job) const override { return shares_.wait_reason(view, job); }
  bool blocks_queue() const override { return !context_.backfill; }

 private:
  // GPUs this gang has already claimed, per node, while its pods are being chosen.
  using Claims = std::map<int, GpuSet>;

  static GpuSet free_after_claims(const ClusterState& cluster, int node, const Claims& claims) {
    const auto it = claims.find(node);
    return it == claims.end() ? cluster.node(node).free : cluster.node(node).free & ~it->second;
  }

  // The most allocated node with `gpus` free GPUs after this gang's claims; node -1 when none.
  static Candidate best_node(const SchedulingView& view, const JobSpec& job, int gpus, const Claims& claims) {
    const ClusterState& cluster = view.cluster();
    Candidate best;
    auto consider = [&](int node, int free) {
      const int capacity = cluster.gpus_per_node(node);
      const Candidate candidate{node, capacity - free + gpus, capacity};
      if (free >= gpus && candidate.better_than(best)) best = candidate;
    };
    for (const auto& [node, claimed] : claims) consider(node, static_cast<int>(free_after_claims(cluster, node, claims).count()));
    const NodeIndex& index = cluster.index();
    for (int t = 0; t < index.type_count(); ++t) {
      if (!type_fits_job(view, t, job)) continue;
      bool found = false;  // the fullest unclaimed node of this type with room, lowest index first
      for (int c = gpus; c <= index.type_gpus(t) && !found; ++c)
        for (int node : index.bucket(kServing, t, c))
          if (!claims.count(node)) {
            consider(node, c);
            found = true;
            break;
          }
    }
    return best;
  }

  bool place_gang(const SchedulingView& view, uint32_t id, Binder& binder) const {
    const JobSpec& job = view.job(id);
    const ClusterState& cluster = view.cluster();
    Claims claims;
    std::vector<PodBinding> pods;
    for (size_t pod = 0; pod < job.workers; ++pod) {
      const int gpus = job.pod_gpus(pod);
      const Candidate chosen = best_node(view, job, gpus, claims);
      if (chosen.node < 0) return false;
      std::vector<int> ids = to_ids(free_after_claims(cluster, chosen.node, claims));
      ids.resize(static_cast<size_t>(gpus));  // the lowest free GPU ids
      claims[chosen.node] |= to_gpu_set(ids);
      pods.push_back({chosen.node, std::move(ids)});
    }
    for (const PodBinding& pod : pods) binder.bind(id, pod);
    binder.start(id, socket_job_start(view, id, context_.network));
    return true;
  }

  SchedulerContext context_;
  SharePolicyScheduler shares_;
};

}  // namespace

std::unique_ptr<Scheduler> make_binpack_scheduler(const SchedulerContext& context) { return std::make_unique<Binpack>(context); }

}  // namespace topsim
