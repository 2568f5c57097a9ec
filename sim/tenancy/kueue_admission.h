// Kueue's admission in front of placement: workloads wait in their ClusterQueue until quota is
// reserved for them, borrowing idle quota of their cohort and preempting others as the queue's
// policies allow; an admitted workload is then placed by the run's scheduler.
//
// The rules follow Kueue v0.19.2 (kubernetes-sigs/kueue; paraphrased, not copied):
// - scheduling cycle (pkg/scheduler/scheduler.go): one head per ClusterQueue, nominated against
//   the quota at the start of the cycle, then processed in order — inside nominal quota first,
//   then higher priority, then older; a nominated workload that no longer fits is retried in a
//   later cycle; a preemptor is not admitted in the cycle that evicts its victims;
// - queueing strategy (pkg/cache/queue/cluster_queue.go): StrictFIFO keeps a head that does not
//   fit at the head; BestEffortFIFO sets it aside until quota is released in its cohort tree;
// - flavor assignment (pkg/scheduler/flavorassigner): flavors in the queue's order, stopping by
//   flavorFungibility, preferring fit over borrowing over preemption (or preemption first);
// - classic preemption (pkg/scheduler/preemption, site/.../concepts/preemption.md): candidates in
//   the queue (withinClusterQueue) and in borrowing queues of the cohort (reclaimWithinCohort,
//   borrowWithinCohort), lowest priority and most recently admitted first, removed greedily until
//   the preemptor fits, then put back in reverse order where it still fits.
// - Fair Sharing (kueue_fair_sharing.cpp): the cycle's order by a tournament of dominant resource
//   shares, and preemption between queues by the shares' strategies.
// - Admission Fair Sharing (below).
// - node affinity against flavors (flavorassigner.go flavorSelector): of a job's node selector,
//   only the label keys some flavor of the resource group names count, and a flavor matches when a
//   node carrying exactly the flavor's nodeLabels would pass it. topsim reads one such key, the
//   GPU model (nvidia.com/gpu.product, ResourceFlavorSpec::gpu): a job selecting GPU models
//   (JobSpec::gpu_models) skips a flavor of another model, or of none where others of the group
//   name one; a job selecting none matches every flavor. The flavor's labels then become the
//   pods' node selector: the engine holds an admitted job, GPU shares and trace pods too, to the
//   flavor's GPU model (gpu_flavor, JobSpec::flavor_gpu).
// Not modelled: partial admission, the
// capacity reservation of a preemptor that cannot reclaim, admission checks, TAS (placement is
// the scheduler's), flavors' labels other than the GPU model, taints and tolerations.
//
// The quota a preemption frees goes to its preemptor: it stays its queue's head in the following
// cycles until it is admitted or no longer fits, and a cycle takes it before other entries (Kueue's
// PrioritizePreemptorWorkloads, pkg/scheduler/scheduler.go and fair_sharing_iterator.go, a gate
// against "quota stealing and thrashing during desynchronized evictions", kueue#13662; on here
// always). Without it, at one instant of simulated time, an older head that does not fit (set
// aside by BestEffortFIFO, returned by the release) or a queue of lower share hides the
// preemptor while a borrowing queue takes the freed quota back, and the two evict each other for
// ever; in a live cluster the time victims take to terminate breaks such a loop.
//
// A workload admitted at the instant the cycles run is no preemption candidate until simulated
// time moves on. Cycles at one instant have no time between them; in a live cluster that time
// (pods starting, victims terminating) is when such a preemption would happen. Without it, queues
// can evict each other in a ring at one instant for ever: under Fair Sharing, a preemption frees
// more than its preemptor takes, the tournament admits the rest to a third queue, whose share
// then lets the first victim's queue reclaim. With it the cycles at one instant end: each
// preemption evicts a workload admitted before it, and such workloads only run out.
//
// Admission Fair Sharing (site/content/en/docs/concepts/admission_fair_sharing.md; pkg/cache/queue/
// cluster_queue.go queueOrderingFunc, pkg/util/admissionfairsharing, the LocalQueue and Workload
// controllers' updates): in a ClusterQueue whose admissionScope asks for it, workloads are ordered
// by their LocalQueue's usage divided by its weight (lower first), then as without it. A
// LocalQueue's usage is a decaying average of what it holds: every sampling interval after its
// last update, usage = usage x (1 - a) + held x a with a = 1 - 0.5^(elapsed / half-life); an
// admission updates it at once (with the elapsed part-interval) and adds an entry penalty of the
// workload's requests x a(sampling interval), so a burst of submissions is not all admitted on
// an old, low usage. Resources count at Kueue's units times their resourceWeights (cpu in cores,
// memory in bytes, devices and pods as counts; 1 when not listed). In a live cluster the penalty
// settles when the controller sees the admission; here both happen at the admission's instant.
//
// Sets aside and retries by the shape of requests: a set-aside workload returns only when its
// cohort tree releases quota (Kueue requeues inadmissible workloads on such events), and
// workloads of one ClusterQueue with equal requests are tried once per release, so a cycle costs
// the queues and shapes, not the queue lengths.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/job.h"
#include "sim/tenancy/preemption.h"
#include "sim/tenancy/queue_config.h"
#include "sim/tenancy/quota_tree.h"

namespace topsim {

// The GPU models of a workload that selects none, as a set (bit i: catalog GPU i).
inline constexpr uint64_t kAnyGpuModels = ~uint64_t{0};

// What a workload asks of quota: (resource id of the tree, amount), amounts > 0.
using QuotaRequest = std::vector<std::pair<int, int64_t>>;

// A workload waiting for quota.
struct QueuedWorkload {
  uint32_t id = 0;
  int cluster_queue = 0;
  int32_t priority = 0;
  // The GPU models its pods select, matched against the flavors' GPU models: an index into
  // KueueAdmission::set_gpu_model_sets' sets (the workload's Workload::gpu_model_sets), or
  // kAnyGpuModel for none. (Beside `priority`: it fills its padding.)
  uint8_t gpu_models = kAnyGpuModel;
  int64_t timestamp_ms = 0;  // creation, or its last eviction (Kueue's requeue timestamp)
  QuotaRequest request;
  int local_queue = -1;  // its LocalQueue (TenancyBinding::local_queue); counts under Admission Fair Sharing
};

// Whether an admitted workload (`priority`, queued at `timestamp_ms`) may be preempted by a
// workload of its own ClusterQueue under withinClusterQueue `policy`.
bool within_queue_eligible(WithinQueuePreemption policy, int32_t priority, int64_t timestamp_ms, int32_t preemptor_priority,
                           int64_t preemptor_timestamp_ms);

class KueueAdmission {
 public:
  KueueAdmission(QuotaTree tree, const QueueConfig& config);

  const QuotaTree& tree() const { return tree_; }
  // Empty, or why a workload of `request` selecting `gpu_models` can never be admitted to
  // `cluster_queue` (a resource its queue does not cover, or a group none of whose flavors match
  // the GPU models it selects).
  std::string never_admitted(int cluster_queue, const QuotaRequest& request, uint64_t gpu_models = kAnyGpuModels) const;
  // The flavor (QuotaTree::flavor id) an admitted workload's GPUs were assigned: Kueue merges the
  // nodeLabels of every flavor assigned to its resources into its pods' node selector, so of those
  // the one of its GPU resource (nvidia.com/gpu, aliyun.com/gpu-mem, alibabacloud.com/gpu-milli)
  // when it names a GPU model, else any that names one, else its GPU resource's; -1 when not
  // admitted or it asks no GPU resource and no flavor of it names a model. And the GPU model a
  // flavor's nodes carry (a catalog index, ResourceFlavorSpec::gpu), or -1.
  int gpu_flavor(uint32_t id) const;
  // The sets of GPU models QueuedWorkload::gpu_models indexes (bit i: catalog GPU i).
  void set_gpu_model_sets(std::vector<uint64_t> sets) { gpu_model_sets_ = std::move(sets); }
  // The GPU models `workload` selects as a set (kAnyGpuModels: none).
  uint64_t gpu_models_of(const QueuedWorkload& workload) const {
    return workload.gpu_models < gpu_model_sets_.size() ? gpu_model_sets_[workload.gpu_models] : kAnyGpuModels;
  }
  int flavor_gpu(int flavor) const { return flavor_gpu_[static_cast<size_t>(flavor)]; }

  void enqueue(QueuedWorkload workload);
  // Runs scheduling cycles at `now_ms` until one changes nothing. `evict(p)` is called for each
  // preemption victim after its quota is released (the caller stops it and may enqueue it
  // again), with its preemptor and Kueue's reason; `admit(id)` for each workload whose quota is
  // reserved.
  // `max_cycles` limits the cycles (tests replay one of Kueue's cycles).
  void run(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict, int max_cycles = -1);
  // An admitted workload ended: its quota returns to its queue.
  void finish(uint32_t id, int64_t now_ms);
  bool admitted(uint32_t id) const { return admitted_.count(id) != 0; }
  // Why a waiting workload is not admitted (Kueue's condition message, in words).
  std::string wait_reason(uint32_t id) const;
  // Waiting workloads.
  size_t waiting() const { return waiting_.size(); }

  // A victim and the reason Kueue gives it: the variant it was a candidate under.
  struct Target {
    uint32_t id = 0;
    PreemptionReason reason = PreemptionReason::InClusterQueue;
  };
  // The victims that would let `workload` (not enqueued) take `needs` ((FR, amount)), in the
  // order Kueue evicts them; empty when no set of candidates frees enough. Public for tests.
  std::vector<Target> preemption_targets(const QueuedWorkload& workload, const std::vector<std::pair<int, int64_t>>& needs) const;
  // Admits `workload` at once on the first flavor of each group, as if it had been admitted
  // earlier (tests build a cluster's state with it). REQUIRES: the flavors are the queue's.
  void admit_now(const QueuedWorkload& workload, int64_t admitted_ms, const std::vector<std::string>& flavors = {});

  // GPU usage above nominal quota, integrated up to `now_ms`, per ClusterQueue (card-ms).
  std::vector<int64_t> borrowed_gpu_ms(int64_t now_ms) const;
  // Admission Fair Sharing: a LocalQueue's usage as it orders workloads at the last instant the
  // cycles ran (its decayed usage / its weight; 0 for a queue that never held anything).
  double local_queue_usage(int local_queue) const;

 private:
  struct Admitted {
    int cluster_queue = 0;
    int32_t priority = 0;
    int64_t timestamp_ms = 0;
    int64_t admitted_ms = 0;
    uint64_t sequence = 0;                       // admission order (ties of admitted_ms)
    std::vector<std::pair<int, int64_t>> usage;  // (FR, amount)
    int local_queue = -1;                        // under Admission Fair Sharing: its LocalQueue
    double fair_usage = 0;                       // and what it adds to that queue's usage
  };
  // Order inside a ClusterQueue: higher priority, then older, then id.
  struct OrderKey {
    int32_t minus_priority;
    int64_t timestamp_ms;
    uint32_t id;
    auto operator<=>(const OrderKey&) const = default;
  };
  // When a head could not be admitted: the versions of its tree then. Quota released bumps
  // `releases`; a workload admitted bumps `admissions` (new preemption candidates). A head
  // short of quota waits for a release; one without preemption candidates for either.
  struct Failure {
    uint64_t releases = kNever, admissions = kNever;
    bool needs_candidates = false;
    int64_t young_at_ms = -1;  // >= 0: candidates admitted at this instant were left out
    std::string reason;
  };
  // Workloads of one ClusterQueue with one priority and request: what one of them cannot get,
  // the others cannot either (newer, so no better placed to preempt).
  // Under Admission Fair Sharing a shape is per LocalQueue too (-1 otherwise): the queues' usage
  // orders them.
  // And by the GPU models its pods select (the flavors they match).
  using ShapeKey = std::tuple<int, int32_t, QuotaRequest, uint8_t>;
  struct ShapeClass {
    std::set<OrderKey> jobs;
    Failure failed;
  };
  struct Queue {
    std::map<ShapeKey, ShapeClass> shapes;
    Failure strict_failed;  // StrictFIFO: its head could not be admitted
    // A workload whose preemptions were issued: the queue's head until it is admitted or no
    // longer fits, so that the quota its victims free goes to it (below).
    std::optional<uint32_t> preemptor;
  };
  enum class Mode : uint8_t { Fit, Preempt, NoFit };
  struct Nomination {
    uint32_t id = 0;
    Mode mode = Mode::NoFit;
    int level = 0;                               // borrowing level
    std::vector<std::pair<int, int64_t>> usage;  // (FR, amount) of the chosen flavors
    std::vector<Target> targets;                 // Preempt: the victims
    bool needs_candidates = false;               // NoFit for want of preemption candidates
    bool young_candidates = false;               // some were left out as admitted at this instant
    std::string reason;                          // NoFit: why
  };
  struct FlavorTry;
  struct CycleEntry {
    const QueuedWorkload* workload;
    Nomination nomination;
    bool preemptor = false;  // its queue's pinned preemptor
  };
  static constexpr uint64_t kNever = ~uint64_t{0};

  // Admission Fair Sharing, per LocalQueue (its index in QueueConfig::local_queues, then one per
  // ClusterQueue for jobs naming a ClusterQueue).
  struct LocalQueueUsage {
    double consumed = 0;     // the decayed usage (Kueue's consumedResources, weighted and summed)
    double held = 0;         // weighted requests of its admitted workloads now
    int64_t updated_ms = 0;  // its last update; sampling ticks follow every sampling interval
    double weight = 1;       // spec.fairSharing.weight
  };
  bool fair_admission(int cluster_queue) const;  // Admission Fair Sharing orders its workloads
  ShapeKey shape_of(const QueuedWorkload& workload) const;
  // Whether flavor `f` of `group` matches pods selecting `gpu_models` (flavorSelector, above).
  bool matches(const ResourceGroup& group, int f, uint64_t gpu_models) const;
  // Why no flavor of `group` matches pods selecting `gpu_models`.
  std::string no_matching_flavor(const ClusterQueueSpec& spec, const ResourceGroup& group, uint64_t gpu_models) const;
  double resource_weight(const std::string& name) const;            // resourceWeights[name], else 1
  double fair_usage_of(const QuotaRequest& request) const;          // weighted, in Kueue's units
  void sample_usage(LocalQueueUsage& queue, int64_t now_ms) const;  // the ticks up to now_ms
  void change_held(int local_queue, double amount, int64_t now_ms, bool admission);

  // The queue's first waiting workload in its order (`skip_failed`: leaving out shapes set aside).
  const QueuedWorkload* first_waiting(int cluster_queue, bool skip_failed) const;
  const QueuedWorkload* head(int cluster_queue) const;
  Nomination nominate(const QueuedWorkload& workload) const;
  bool fits(const std::vector<std::pair<int, int64_t>>& usage, int cluster_queue, const QuotaTree& tree,
            bool allow_borrowing) const;
  bool cycle(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict);
  // Fair Sharing (kueue_fair_sharing.cpp): the entry a cycle takes next, and the victims.
  size_t fair_next(const std::vector<CycleEntry>& entries);
  std::vector<Target> fair_preemption_targets(const QueuedWorkload& workload,
                                              const std::vector<std::pair<int, int64_t>>& needs) const;
  void mark_failed(const QueuedWorkload& workload, const Nomination& nomination);
  bool still_failed(const Failure& failure, int cluster_queue) const;
  void take_from_queue(const QueuedWorkload& workload);
  void release(uint32_t id, int64_t now_ms);
  void change_usage(int cluster_queue, int fr, int64_t amount, int64_t now_ms);
  int64_t gpus_borrowed(int cluster_queue) const;  // GPUs used above nominal now

  QuotaTree tree_;
  std::vector<ClusterQueueSpec> queues_;                    // by tree node (ClusterQueues only)
  std::optional<AdmissionFairSharingSpec> fair_admission_;  // on for the ClusterQueues that ask for it
  std::vector<LocalQueueUsage> local_usage_;
  std::vector<Queue> waiting_by_queue_;
  std::map<uint32_t, QueuedWorkload> waiting_;
  std::map<uint32_t, Admitted> admitted_;
  // An admitted workload in its queue's preemption order: lower priority first, then the most
  // recently admitted (preemption/common/ordering.go).
  struct VictimKey {
    int32_t priority;
    int64_t minus_admitted_ms;
    int64_t minus_sequence;
    uint32_t id;
    const Admitted* admitted;  // not compared
    bool operator<(const VictimKey& o) const {
      return std::tie(priority, minus_admitted_ms, minus_sequence, id) <
             std::tie(o.priority, o.minus_admitted_ms, o.minus_sequence, o.id);
    }
  };
  static VictimKey victim_key(uint32_t id, const Admitted& a) {
    return {a.priority, -a.admitted_ms, -static_cast<int64_t>(a.sequence), id, &a};
  }
  // Upper bound of what preemption can free for `needs` at `cq`: its free quota, plus what its
  // own queue (when it preempts within itself) and the borrowing queues of its tree hold.
  // The FRs of `needs` that `cq` cannot get now, and whether an admitted workload holds any.
  std::vector<int> short_of(int cq, const std::vector<std::pair<int, int64_t>>& needs) const;
  static bool uses_any(const std::vector<std::pair<int, int64_t>>& usage, const std::vector<int>& frs);
  static bool uses_any(const Admitted& a, const std::vector<int>& frs) { return uses_any(a.usage, frs); }
  bool could_free(int cq, const std::vector<std::pair<int, int64_t>>& needs, const std::vector<int>& short_frs) const;
  std::vector<std::set<VictimKey>> admitted_by_queue_;  // by ClusterQueue: its admitted workloads
  // Under Fair Sharing, by ClusterQueue: how many of its admitted workloads hold each usage, per
  // priority. A preemption search asks whether any workload of a priority's run could pass its
  // strategy, which depends on the usage alone (kueue_fair_sharing.cpp), before reading the run.
  using UsageClass = std::pair<int32_t, std::vector<std::pair<int, int64_t>>>;  // (priority, usage)
  std::vector<std::map<UsageClass, uint32_t>> usage_classes_;
  void hold(uint32_t id, const Admitted& a);    // admitted: into admitted_by_queue_ (and usage_classes_)
  void unhold(uint32_t id, const Admitted& a);  // released: out of them
  // The first admitted workload of `queue` after those of `priority` (its run).
  static std::set<VictimKey>::const_iterator past_run(const std::set<VictimKey>& queue, int32_t priority) {
    constexpr int64_t kLast = std::numeric_limits<int64_t>::max();
    return queue.upper_bound({priority, kLast, kLast, std::numeric_limits<uint32_t>::max(), nullptr});
  }
  // Whether ClusterQueue `q` holds a workload admitted at this instant (no preemption candidate
  // yet) for which `counts` holds: each priority's most recent first, so only the heads of the
  // priorities' runs of older ones are read.
  template <class Counts>
  bool young_in(int q, Counts&& counts) const {
    const std::set<VictimKey>& queue = admitted_by_queue_[static_cast<size_t>(q)];
    for (auto it = queue.begin(); it != queue.end();) {
      if (it->admitted->admitted_ms < instant_ms_) {  // the rest of this priority is older
        it = past_run(queue, it->priority);
        continue;
      }
      if (counts(*it->admitted)) return true;
      ++it;
    }
    return false;
  }
  std::vector<uint64_t> releases_, admissions_;  // by root node
  std::vector<bool> within_preempts_;            // by root node: some queue of the tree preempts within itself
  // The instant the cycles run at: workloads admitted at it are no preemption candidates yet.
  int64_t instant_ms_ = std::numeric_limits<int64_t>::max();
  mutable bool left_young_ = false;  // a preemption search left out such a workload
  bool fair_ = false;                // Kueue's Fair Sharing is on
  std::vector<FairStrategy> strategies_;
  std::vector<std::vector<int>> children_;  // by tree node: its child cohorts, then its ClusterQueues
  mutable QuotaTree scratch_;               // preemption_targets' working copy (its storage reused)
  uint64_t admitted_count_ = 0;
  int gpu_resource_ = -1;
  std::vector<int> gpu_resources_;  // the resource ids of nvidia.com/gpu and the share resources the tree has
  std::vector<int64_t> borrowed_gpu_ms_;
  std::vector<int64_t> borrowed_since_ms_;
  std::vector<uint64_t> gpu_model_sets_;  // QueuedWorkload::gpu_models indexes it
  std::vector<int> flavor_gpu_;           // by flavor id: the GPU model its nodes carry (catalog index), or -1
};

}  // namespace topsim
