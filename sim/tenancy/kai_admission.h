// KAI-Scheduler's queues in front of placement: jobs wait in their leaf Queue until the scheduler's
// actions let them take GPUs, within their queues' limits, reclaiming GPUs other queues hold above
// their fair share and preempting lower-priority jobs of their own queue; an admitted job is then
// placed by the run's scheduler. The public API mirrors KueueAdmission's.
//
// The rules follow NVIDIA/KAI-Scheduler at 72de64fc (paraphrased, not copied):
// - a cycle (docs/developer/action-framework.md): fair shares divided afresh
//   (plugins/proportion, kai_division.h; request = allocated + pending), then the actions
//   Allocate, Reclaim and Preempt;
// - queue order (plugins/proportion/queue_order/queue_order.go): queues within their fair share
//   first, then those staying within deserved with the job, higher queue priority, no use of a
//   resource without an allocatable share, smaller dominant share with the job, smaller dominant
//   share, smaller allocatable share, older queue; the next job found from the top of the
//   hierarchy down (actions/utils/job_order_by_queue.go): among siblings, each ranked with the
//   best job of its own subtree, the first; jobs in a queue by priority, then age; victims in the
//   reverse of both orders;
// - capacity policy (plugins/proportion/capacity_policy/): a job never takes a queue above its
//   limit, on any ancestor; a non-preemptible job (priority >= 100, docs/priority/README.md)
//   only in-quota resources: allocatedNonPreemptible + request <= deserved on every ancestor;
// - reclaim (actions/reclaim/reclaim.go, plugins/proportion/reclaimable/): a job whose queue stays
//   within its fair share with it takes preemptible jobs of other queues, whole (a gang is one
//   chunk), each allowed by MaintainFairShare or GuaranteeDeservedQuota, and the saturation
//   ratios of the reclaimer's path must stay below those of the siblings it takes from;
// - preempt (actions/preempt/preempt.go): preemptible jobs of the same queue, strictly lower
//   priority;
// - min runtime (plugins/minruntime, KAI v0.5.1+; NVIDIA/KAI-Scheduler 07981a98 minruntime.go and
//   resolver.go): a victim that has run less than its min runtime since it was last admitted is
//   no candidate. In-queue preemption takes the victim's queue's spec.preemptMinRuntime, else
//   the nearest parent's; a reclaim the reclaimMinRuntime found from the child of the two
//   queues' lowest common ancestor on the victim's side up to the top (the plugin's default
//   "lca" method; two top-level queues: the victim's top-level queue's), else the scheduler's
//   default (a SchedulingShard's spec.minRuntime; 0 without one). When protection kept a
//   victim, the engine runs the queues again when the first protection ends (KAI's next cycle:
//   topsim runs none between events otherwise);
// - time-aware fairness (a SchedulingShard with a usage database; kai_usage.h, kai_division.h):
//   each queue's historical usage bends the over-quota division. The usage is a snapshot fetched
//   every fetchInterval from the run's start; while jobs wait the engine runs the queues at each
//   fetch, and a snapshot that moves no fair share changes nothing.
// Victims are chosen until the job fits, then put back, last taken first, where it still fits
// (what KAI's solver reaches by trying victim sets node by node). They are evicted at once and
// the beneficiary admitted in the same cycle (KAI pipelines it onto the releasing GPUs).
// Only GPUs are modelled (amounts in milli-GPU, 1000 a card); cpu and memory quotas are not.
//
// A cycle costs the queues and the shapes of waiting jobs, not the queue lengths: each leaf keeps
// its waiting jobs by (priority, GPUs), and a shape that failed in an action is not tried again
// in that action (what one job of it cannot get, a newer one of it cannot either).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/tenancy/kai_division.h"
#include "sim/tenancy/kai_usage.h"
#include "sim/tenancy/preemption.h"
#include "sim/tenancy/queue_config.h"

namespace topsim {

inline constexpr int64_t kKaiMilliPerGpu = 1000;
// KAI docs/priority/README.md: a job whose PriorityClass value is below 100 is preemptible.
inline constexpr int32_t kKaiNonPreemptiblePriority = 100;

// A job waiting for its KAI queue.
struct KaiWorkload {
  uint32_t id = 0;
  int queue = 0;             // a leaf: index into QueueConfig::kai_queues
  int32_t priority = 0;      // its PriorityClass value
  int64_t timestamp_ms = 0;  // creation, or its last eviction
  int64_t gpu_milli = 0;     // > 0
  int64_t started_ms = 0;    // admitted (KAI's LastStartTimestamp); set by KaiAdmission
};

class KaiAdmission {
 public:
  // REQUIRES: config.kai_queues as formats/queues/ checks them (parents exist, no cycle).
  KaiAdmission(const QueueConfig& config, int64_t capacity_gpu_milli);

  // The queue's index, -1 when there is none of that name.
  int queue(const std::string& name) const;
  int queues() const { return static_cast<int>(queues_.size()); }
  const std::string& name(int queue) const { return queues_[static_cast<size_t>(queue)].name; }
  // Empty, or why a job of `gpu_milli` and `priority` can never be admitted to `queue` (a parent
  // queue, a limit below the request, a non-preemptible job above a deserved quota, more GPUs
  // than the cluster has).
  std::string never_admitted(int queue, int64_t gpu_milli, int32_t priority = 0) const;

  void enqueue(KaiWorkload workload);
  // Runs cycles at `now_ms` until one changes nothing. `evict(p)` is called for each victim after
  // its GPUs are released (the caller stops it and may enqueue it again), with the job it made
  // room for and the action (reclaim or preempt); `admit(id)` for each job admitted.
  // `max_cycles` limits the cycles (tests replay one of KAI's).
  void run(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict, int max_cycles = -1);
  // An admitted job ended: its GPUs return to its queue.
  void finish(uint32_t id, int64_t now_ms);
  // When a victim that min-runtime protection kept from the last run's Reclaim or Preempt may be
  // taken (its start + min runtime), or, with time-aware fairness, the next usage fetch, so a run
  // then may admit what waits; INT64_MAX when none, or nothing waits.
  int64_t wakeup_ms() const { return waiting_.empty() ? kNever : std::min(wakeup_ms_, next_fetch_ms_); }
  bool admitted(uint32_t id) const { return admitted_.count(id) != 0; }
  // Why a waiting job is not admitted (KAI's reason, in words).
  std::string wait_reason(uint32_t id) const;
  size_t waiting() const { return waiting_.size(); }
  // Admits `workload` at once, as if it had been admitted earlier (tests build a cluster with it).
  void admit_now(const KaiWorkload& workload, int64_t now_ms);

  // GPU use above deserved quota, integrated up to `now_ms`, per queue (card-ms; 0 for parents).
  std::vector<int64_t> borrowed_gpu_ms(int64_t now_ms) const;
  // The deserved quota in whole cards (fraction dropped); an unlimited quota is the cluster.
  int64_t nominal_gpus(int queue) const { return deserved_of(queue) / kKaiMilliPerGpu; }
  // As of the last cycle: the queue's fair share and what it holds (milli-GPU).
  int64_t fair_share_milli(int queue) const { return fair_share_[static_cast<size_t>(queue)]; }
  int64_t allocated_milli(int queue) const { return allocated_[static_cast<size_t>(queue)]; }
  // Time-aware fairness: the queue's usage in the last snapshot fetched (a share of the cluster
  // over the window, 0 to 1); 0 without it.
  double usage_share(int queue) const { return usage_share_.empty() ? 0 : usage_share_[static_cast<size_t>(queue)]; }
  bool time_aware() const { return usage_.has_value(); }

 private:
  struct Queue {
    std::string name;
    int parent = -1;
    bool leaf = true;
    int32_t priority = 100;
    int64_t deserved = 0;  // milli; -1: unlimited
    int64_t limit = -1;    // milli; -1: none
    double over_quota_weight = 0;
    std::vector<int> path;                                  // from the top to this queue
    std::optional<int64_t> preempt_min_ms, reclaim_min_ms;  // as in KaiQueueSpec
  };
  // Order inside a queue: higher priority, then older, then id.
  struct OrderKey {
    int32_t minus_priority;
    int64_t timestamp_ms;
    uint32_t id;
    auto operator<=>(const OrderKey&) const = default;
  };
  using ShapeKey = std::pair<int32_t, int64_t>;  // (-priority, gpu_milli)
  // Why an action did not admit a job, kept as figures and written in words only when asked
  // (wait_reason): a cycle refuses most heads it tries, and words for each cost more than the try.
  struct Refusal {
    enum class Kind : uint8_t {
      None,
      OverLimit,                // queue; figures: held, limit, asked
      NonPreemptibleOverQuota,  // queue; figures: non-preemptible held, deserved, asked
      NotEnoughFree,            // figures: free, asked
      OverFairShare,            // queue; figures: fair share; usage
      FreedThisCycle,           // victims of an earlier job freed GPUs: the next Allocate
      ReclaimTooLittle,         // figures: free, asked; kept
      Saturation,               // queue and other; figures: held with the job, its share, other's held, other's share
      PreemptTooLittle,         // figures: free, asked; kept
    };
    Kind kind = Kind::None;
    int queue = -1, other = -1;
    int kept = 0;  // victims min-runtime protection kept
    std::array<int64_t, 4> figures{};
    double usage = -1;  // time-aware fairness: the queue's usage share then; -1 without it
    explicit operator bool() const { return kind != Kind::None; }
  };
  // The waiting jobs of one leaf with one shape: what one of them cannot get in an action, the
  // newer ones cannot either.
  struct Shape {
    std::set<OrderKey> jobs;
    uint64_t failed_in = 0;          // the action (actions_) it last failed in
    std::array<Refusal, 3> reasons;  // why it was last not admitted, by Action
  };
  // A shape and its first job (in waiting_); none: both null.
  struct ShapeHead {
    Shape* shape = nullptr;
    const KaiWorkload* job = nullptr;
  };
  enum class Action : uint8_t { Allocate, Reclaim, Preempt };

  int64_t deserved_of(int queue) const;
  int64_t allocatable_of(int queue) const;  // max(deserved, fair share) capped by the limit; -1: none
  bool queue_before(int a, int64_t job_a, int b, int64_t job_b, const std::vector<int64_t>& alloc) const;
  bool rank_before(int a, int64_t job_a, int b, int64_t job_b, const std::vector<int64_t>& alloc) const;
  ShapeHead head(int leaf);
  void divide_fair_shares();
  bool cycle(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict);
  bool act(Action action, int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict);
  // best_[q] afresh from its children's (a leaf: itself while it has a head in `heads`).
  void rank_subtree(int queue, const std::vector<ShapeHead>& heads);
  // The best of `children` (their best_): the first of them in KAI's order, each with its best job.
  int best_of(const std::vector<int>& children, const std::vector<ShapeHead>& heads) const;
  Refusal attempt(Action action, const KaiWorkload& job, std::vector<uint32_t>& victims) const;
  Refusal policy_blocks(const KaiWorkload& job, const std::vector<int64_t>& alloc) const;
  Refusal try_reclaim(const KaiWorkload& job, std::vector<uint32_t>& victims) const;
  Refusal try_preempt(const KaiWorkload& job, std::vector<uint32_t>& victims) const;
  bool strategy_allows(int reclaimer, int64_t gpu_milli, int victim_leaf, const std::vector<int64_t>& alloc) const;
  Refusal saturation_breach(int reclaimer, int64_t gpu_milli, const std::vector<int64_t>& alloc,
                            const std::set<int>& losers) const;
  std::string words(const Refusal& refusal) const;
  int64_t preempt_min_runtime(int victim_leaf) const;
  int64_t reclaim_min_runtime(int reclaimer_leaf, int victim_leaf) const;
  bool shielded(uint32_t victim, int64_t min_runtime_ms) const;
  void put_back(int64_t gpu_milli, int64_t free, std::vector<uint32_t>& victims, std::vector<int64_t>& alloc) const;
  void take_victim(uint32_t id, int64_t& free, std::vector<uint32_t>& victims, std::vector<int64_t>& alloc) const;
  int64_t free_milli() const;
  void take_from_queue(const KaiWorkload& job);
  void allocate(const KaiWorkload& job, int64_t now_ms);
  void release(uint32_t id, int64_t now_ms);
  void change_allocation(int leaf, int64_t amount, bool non_preemptible, int64_t now_ms);
  int64_t over_deserved(int queue) const;
  void refresh_usage(int64_t now_ms);

  std::vector<Queue> queues_;  // as in QueueConfig::kai_queues
  // The hierarchy as KAI walks it: each queue's children, the top-level queues, every queue
  // after its children; and during an action, per queue the leaf of its subtree's best head
  // (-1: none waits) and over the top-level queues the leaf that goes next.
  std::vector<std::vector<int>> children_;
  std::vector<int> roots_, bottom_up_, best_;
  int next_ = -1;  // the leaf whose head takes the next turn
  int64_t capacity_ = 0;
  std::vector<std::map<ShapeKey, Shape>> waiting_by_queue_;  // by leaf: its waiting jobs by shape
  // By leaf: its shapes by their first job, so `head` walks them in order; and where the action
  // under way last found the leaf's head (every shape before it has failed in that action).
  std::vector<std::map<OrderKey, ShapeHead>> shapes_in_order_;
  std::vector<std::pair<uint64_t, OrderKey>> head_found_;  // (actions_, that head's key)
  std::map<uint32_t, KaiWorkload> waiting_;
  std::map<uint32_t, KaiWorkload> admitted_;
  std::vector<std::set<OrderKey>> admitted_by_queue_;
  std::vector<int64_t> allocated_, allocated_non_preemptible_, pending_, fair_share_;  // milli, by queue
  std::vector<int64_t> borrowed_milli_ms_, borrowed_since_ms_;
  // Victims of this run and, when enqueued again, their requests: a victim's pods are Releasing
  // for the rest of KAI's session, so it may be admitted again from the next run on. This also
  // bounds a run: each admission takes a job that waited when the run began.
  std::set<uint32_t> evicted_now_;
  std::vector<KaiWorkload> held_;
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  bool min_runtimes_ = false;           // some queue sets a min runtime (else none is looked up)
  int64_t now_ms_ = 0;                  // of the run under way
  mutable int64_t wakeup_ms_ = kNever;  // the earliest end of a protection that kept a victim
  uint64_t actions_ = 0;                // actions run so far
  bool dirty_ = false;                  // something entered or left since the last cycle that changed nothing
  // The SchedulingShard's settings (defaults without one) and, with time-aware fairness, the usage
  // history from the run's start, its last snapshot and the next fetch.
  KaiSchedulerSpec scheduler_;
  std::optional<KaiUsageHistory> usage_;
  std::vector<double> usage_share_;
  int64_t next_fetch_ms_ = kNever;
  bool usage_moved_ = false;  // a snapshot was taken since the last run
  // The inputs of the last division of fair shares and of the next one (reused, not reallocated).
  std::vector<KaiShareQueue> division_, division_next_;
  int64_t divided_capacity_ = -1;
};

}  // namespace topsim
