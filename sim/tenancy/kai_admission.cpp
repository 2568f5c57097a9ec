#include "sim/tenancy/kai_admission.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>

#include "sim/tenancy/kai_division.h"
#include "util/number_format.h"

namespace topsim {
namespace {

// KAI's figures are GPUs, fractions allowed; topsim keeps milli-GPU.
int64_t to_milli(double gpus) { return gpus < 0 ? -1 : std::llround(gpus * kKaiMilliPerGpu); }

std::string gpus(int64_t milli) { return format_data(static_cast<double>(milli) / kKaiMilliPerGpu); }

// KAI queue_resource_share.go noFairShareDrfMultiplier: use of a resource without an
// allocatable share weighs this much more in the dominant share.
constexpr double kNoShareMultiplier = 1000;

}  // namespace

KaiAdmission::KaiAdmission(const QueueConfig& config, int64_t capacity_gpu_milli)
    : capacity_(capacity_gpu_milli), scheduler_(config.kai_scheduler.value_or(KaiSchedulerSpec{})) {
  for (const KaiQueueSpec& spec : config.kai_queues)
    queues_.push_back({spec.name,
                       -1,
                       true,
                       spec.priority,
                       to_milli(spec.gpu.quota),
                       to_milli(spec.gpu.limit),
                       spec.gpu.over_quota_weight,
                       {},
                       spec.preempt_min_runtime_ms,
                       spec.reclaim_min_runtime_ms});
  min_runtimes_ = scheduler_.default_preempt_min_runtime_ms > 0 || scheduler_.default_reclaim_min_runtime_ms > 0;
  for (const Queue& q : queues_) min_runtimes_ = min_runtimes_ || q.preempt_min_ms > 0 || q.reclaim_min_ms > 0;
  for (size_t q = 0; q < queues_.size(); ++q) {
    const std::string& parent = config.kai_queues[q].parent;
    if (parent.empty()) continue;
    queues_[q].parent = queue(parent);
    assert(queues_[q].parent >= 0);
    queues_[static_cast<size_t>(queues_[q].parent)].leaf = false;
  }
  for (size_t q = 0; q < queues_.size(); ++q)
    for (int at = static_cast<int>(q); at >= 0; at = queues_[static_cast<size_t>(at)].parent)
      queues_[q].path.insert(queues_[q].path.begin(), at);
  const size_t n = queues_.size();
  children_.resize(n);
  for (size_t q = 0; q < n; ++q)
    (queues_[q].parent < 0 ? roots_ : children_[static_cast<size_t>(queues_[q].parent)]).push_back(static_cast<int>(q));
  for (size_t q = 0; q < n; ++q) bottom_up_.push_back(static_cast<int>(q));
  std::stable_sort(bottom_up_.begin(), bottom_up_.end(), [&](int a, int b) {
    return queues_[static_cast<size_t>(a)].path.size() > queues_[static_cast<size_t>(b)].path.size();
  });
  best_.assign(n, -1);
  waiting_by_queue_.resize(n);
  shapes_in_order_.resize(n);
  head_found_.assign(n, {0, OrderKey{}});
  admitted_by_queue_.resize(n);
  for (auto* v : {&allocated_, &allocated_non_preemptible_, &pending_, &fair_share_, &borrowed_milli_ms_, &borrowed_since_ms_})
    v->assign(n, 0);
}

int KaiAdmission::queue(const std::string& name) const {
  for (size_t q = 0; q < queues_.size(); ++q)
    if (queues_[q].name == name) return static_cast<int>(q);
  return -1;
}

std::string KaiAdmission::never_admitted(int queue, int64_t gpu_milli, int32_t priority) const {
  const Queue& leaf = queues_[static_cast<size_t>(queue)];
  if (!leaf.leaf) return "KAI queue " + leaf.name + " is a parent queue: only leaf queues take jobs";
  if (gpu_milli > capacity_) return "it asks " + gpus(gpu_milli) + " GPUs, the cluster has " + gpus(capacity_);
  for (auto it = leaf.path.rbegin(); it != leaf.path.rend(); ++it) {  // the queue, then its parents
    const Queue& at = queues_[static_cast<size_t>(*it)];
    if (at.limit >= 0 && gpu_milli > at.limit)
      return "it asks " + gpus(gpu_milli) + " GPUs, above the GPU limit " + gpus(at.limit) + " of KAI queue " + at.name;
    if (priority >= kKaiNonPreemptiblePriority && at.deserved >= 0 && gpu_milli > at.deserved)
      return "a non-preemptible job asking " + gpus(gpu_milli) + " GPUs, above the deserved quota " + gpus(at.deserved) +
             " of KAI queue " + at.name;
  }
  return {};
}

void KaiAdmission::enqueue(KaiWorkload workload) {
  assert(queues_[static_cast<size_t>(workload.queue)].leaf && workload.gpu_milli > 0);
  for (int q : queues_[static_cast<size_t>(workload.queue)].path) pending_[static_cast<size_t>(q)] += workload.gpu_milli;
  const KaiWorkload& waiting = waiting_[workload.id] = workload;
  dirty_ = true;
  if (evicted_now_.count(workload.id) != 0) {
    held_.push_back(workload);  // evicted in this run: it asks again from the next run on
    return;
  }
  const size_t leaf = static_cast<size_t>(workload.queue);
  Shape& shape = waiting_by_queue_[leaf][{-workload.priority, workload.gpu_milli}];
  const OrderKey key{-workload.priority, workload.timestamp_ms, workload.id};
  if (shape.jobs.empty() || key < *shape.jobs.begin()) {
    if (!shape.jobs.empty()) shapes_in_order_[leaf].erase(*shape.jobs.begin());
    shapes_in_order_[leaf].emplace(key, ShapeHead{&shape, &waiting});
  }
  shape.jobs.insert(key);
}

void KaiAdmission::run(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict, int max_cycles) {
  now_ms_ = now_ms;
  refresh_usage(now_ms);
  if (usage_moved_ && !dirty_) {  // a new usage snapshot: the cycles may act only if it moves a fair share
    const std::vector<int64_t> before = fair_share_;
    divide_fair_shares();
    dirty_ = fair_share_ != before;
  }
  usage_moved_ = false;
  if (wakeup_ms_ <= now_ms) dirty_ = true;  // a victim's protection ended: the cycles may now take it
  if (dirty_) wakeup_ms_ = kNever;          // the cycles find what is still protected
  // Nothing entered or left since the last run: its last cycle changed nothing, nor would this.
  for (int done = 0; dirty_ && (max_cycles < 0 || done < max_cycles); ++done) dirty_ = cycle(now_ms, admit, evict);
  evicted_now_.clear();
  const std::vector<KaiWorkload> held = std::move(held_);
  held_.clear();
  for (const KaiWorkload& job : held) {  // into their queues, asked for once already
    for (int q : queues_[static_cast<size_t>(job.queue)].path) pending_[static_cast<size_t>(q)] -= job.gpu_milli;
    enqueue(job);
  }
}

void KaiAdmission::finish(uint32_t id, int64_t now_ms) {
  if (admitted_.count(id) == 0) return;
  release(id, now_ms);
  dirty_ = true;
}

std::string KaiAdmission::wait_reason(uint32_t id) const {
  const auto it = waiting_.find(id);
  if (it == waiting_.end()) return {};
  const auto& shapes = waiting_by_queue_[static_cast<size_t>(it->second.queue)];
  const auto shape = shapes.find({-it->second.priority, it->second.gpu_milli});
  if (shape == shapes.end()) return "evicted at this instant: it waits for the next";  // held
  std::string out;
  for (const Refusal& refusal : shape->second.reasons) {
    if (!refusal) continue;
    const std::string reason = words(refusal);
    if (out.find(reason) == std::string::npos) out += (out.empty() ? "" : "; ") + reason;
  }
  return out.empty() ? "not yet considered by a scheduling cycle" : out;
}

// A refusal in words; what each kind's figures are is in the header.
std::string KaiAdmission::words(const Refusal& refusal) const {
  const auto& f = refusal.figures;
  const std::string queue = refusal.queue < 0 ? "" : queues_[static_cast<size_t>(refusal.queue)].name;
  // What min-runtime protection adds: the victims it kept (`field`: the queue field that set it).
  auto protected_note = [&refusal](const char* field) -> std::string {
    if (refusal.kept == 0) return {};
    return "; " + std::to_string(refusal.kept) +
           (refusal.kept == 1 ? " job it could take has run less than its " : " jobs it could take have run less than their ") +
           field;
  };
  switch (refusal.kind) {
    case Refusal::Kind::None: return {};
    case Refusal::Kind::OverLimit:
      return "over the GPU limit of KAI queue " + queue + ": it holds " + gpus(f[0]) + " of " + gpus(f[1]) + ", the job asks " +
             gpus(f[2]);
    case Refusal::Kind::NonPreemptibleOverQuota:
      return "a non-preemptible job over the quota of KAI queue " + queue + ": non-preemptible jobs hold " + gpus(f[0]) +
             " of its deserved " + gpus(f[1]) + ", the job asks " + gpus(f[2]);
    case Refusal::Kind::NotEnoughFree:
      return "not enough free GPUs: " + gpus(f[0]) + " of " + gpus(capacity_) + " free, it asks " + gpus(f[1]);
    case Refusal::Kind::OverFairShare: {
      std::string text = "reclaim: KAI queue " + queue + " would exceed its fair share " + gpus(f[0]) + " with it";
      if (refusal.usage >= 0)
        text += " (time-aware fairness: it held " + format_number(100 * refusal.usage) +
                "% of the cluster's GPU time over the window)";
      return text;
    }
    // Reclaim and Preempt act only through victims: GPUs an earlier job's victims freed are the
    // next cycle's Allocate's to give out.
    case Refusal::Kind::FreedThisCycle: return "GPUs were freed in this cycle: the next Allocate";
    case Refusal::Kind::ReclaimTooLittle:
      return "reclaim: " + gpus(f[0]) + " GPUs free, and KAI's strategies let it take too little from other queues (it asks " +
             gpus(f[1]) + ")" + protected_note("reclaimMinRuntime");
    case Refusal::Kind::Saturation:
      return "reclaim: KAI queue " + queue + " would hold " + gpus(f[0]) + " of its fair share " + gpus(f[1]) +
             ", more saturated than " + queues_[static_cast<size_t>(refusal.other)].name + " it takes from (" + gpus(f[2]) +
             " of " + gpus(f[3]) + ")";
    case Refusal::Kind::PreemptTooLittle:
      return "preempt: " + gpus(f[0]) +
             " GPUs free, and its queue's preemptible jobs of lower priority leave too little (it asks " + gpus(f[1]) + ")" +
             protected_note("preemptMinRuntime");
  }
  return {};
}

void KaiAdmission::admit_now(const KaiWorkload& workload, int64_t now_ms) {
  allocate(workload, now_ms);
  dirty_ = true;
}

std::vector<int64_t> KaiAdmission::borrowed_gpu_ms(int64_t now_ms) const {
  std::vector<int64_t> out(queues_.size(), 0);
  for (size_t q = 0; q < queues_.size(); ++q) {
    if (!queues_[q].leaf) continue;
    const int64_t milli_ms = borrowed_milli_ms_[q] + over_deserved(static_cast<int>(q)) * (now_ms - borrowed_since_ms_[q]);
    out[q] = milli_ms / kKaiMilliPerGpu;
  }
  return out;
}

int64_t KaiAdmission::deserved_of(int queue) const {
  const int64_t deserved = queues_[static_cast<size_t>(queue)].deserved;
  return deserved < 0 ? capacity_ : deserved;
}

int64_t KaiAdmission::allocatable_of(int queue) const {
  const Queue& q = queues_[static_cast<size_t>(queue)];
  if (q.deserved < 0) return q.limit;
  const int64_t share = std::max(q.deserved, fair_share_[static_cast<size_t>(queue)]);
  return q.limit >= 0 ? std::min(q.limit, share) : share;
}

int64_t KaiAdmission::over_deserved(int queue) const {
  const Queue& q = queues_[static_cast<size_t>(queue)];
  return q.deserved < 0 ? 0 : std::max<int64_t>(0, allocated_[static_cast<size_t>(queue)] - q.deserved);
}

bool KaiAdmission::queue_before(int a, int64_t job_a, int b, int64_t job_b, const std::vector<int64_t>& alloc) const {
  const std::vector<int>& pa = queues_[static_cast<size_t>(a)].path;
  const std::vector<int>& pb = queues_[static_cast<size_t>(b)].path;
  size_t level = 0;
  while (level + 1 < pa.size() && level + 1 < pb.size() && pa[level] == pb[level]) ++level;
  if (pa[level] == pb[level]) return false;  // one queue
  return rank_before(pa[level], job_a, pb[level], job_b, alloc);
}

// queue_order.go GetQueueOrderResult, for one resource.
bool KaiAdmission::rank_before(int a, int64_t job_a, int b, int64_t job_b, const std::vector<int64_t>& alloc) const {
  const size_t qa = static_cast<size_t>(a), qb = static_cast<size_t>(b);
  const bool over_a = alloc[qa] > fair_share_[qa], over_b = alloc[qb] > fair_share_[qb];
  if (over_a != over_b) return !over_a;
  const bool starved_a = alloc[qa] + job_a <= deserved_of(a), starved_b = alloc[qb] + job_b <= deserved_of(b);
  if (starved_a != starved_b) return starved_a;
  if (queues_[qa].priority != queues_[qb].priority) return queues_[qa].priority > queues_[qb].priority;
  const int64_t share_a = allocatable_of(a) < 0 ? capacity_ : allocatable_of(a);
  const int64_t share_b = allocatable_of(b) < 0 ? capacity_ : allocatable_of(b);
  const bool penalty_a = share_a == 0 && alloc[qa] + job_a > 0, penalty_b = share_b == 0 && alloc[qb] + job_b > 0;
  if (penalty_a != penalty_b) return penalty_b;
  auto dominant = [](int64_t held, int64_t share) {
    return share == 0 ? static_cast<double>(held) * kNoShareMultiplier : static_cast<double>(held) / static_cast<double>(share);
  };
  const double with_a = dominant(alloc[qa] + job_a, share_a), with_b = dominant(alloc[qb] + job_b, share_b);
  if (with_a != with_b) return with_a < with_b;
  const double held_a = dominant(alloc[qa], share_a), held_b = dominant(alloc[qb], share_b);
  if (held_a != held_b) return held_a < held_b;
  if (share_a != share_b) return share_a < share_b;
  return a < b;  // the older queue (the configuration's order)
}

// The leaf's first waiting job of a shape not yet failed in this action. Within an action jobs
// only leave, a failed shape stays failed, and a shape whose head leaves moves later in the
// order: the search goes on from where it last stopped.
KaiAdmission::ShapeHead KaiAdmission::head(int leaf) {
  const auto& shapes = shapes_in_order_[static_cast<size_t>(leaf)];
  auto& [action, found] = head_found_[static_cast<size_t>(leaf)];
  auto it = action == actions_ ? shapes.lower_bound(found) : shapes.begin();
  while (it != shapes.end() && it->second.shape->failed_in == actions_) ++it;
  action = actions_;
  if (it == shapes.end()) {
    found = {std::numeric_limits<int32_t>::max(), kNever, std::numeric_limits<uint32_t>::max()};
    return {};
  }
  found = it->first;
  return it->second;
}

void KaiAdmission::divide_fair_shares() {
  // The division depends only on these inputs; most cycles find them as the last division left
  // them (an admission moves a job's GPUs from pending to allocated, which leaves its queue's
  // request as it was), and then the last shares stand.
  std::vector<KaiShareQueue>& shares = division_next_;
  shares.clear();
  for (size_t q = 0; q < queues_.size(); ++q) {
    const Queue& at = queues_[q];
    const double request = at.leaf ? static_cast<double>(allocated_[q] + pending_[q]) / kKaiMilliPerGpu : 0;
    shares.push_back({at.parent, at.deserved < 0 ? -1.0 : static_cast<double>(at.deserved) / kKaiMilliPerGpu,
                      at.over_quota_weight, at.limit < 0 ? -1.0 : static_cast<double>(at.limit) / kKaiMilliPerGpu, request,
                      at.priority, usage_share(static_cast<int>(q))});
  }
  if (divided_capacity_ == capacity_ && shares == division_) return;
  division_.swap(shares);
  divided_capacity_ = capacity_;
  const std::vector<double> share =
      kai_fair_shares(division_, static_cast<double>(capacity_) / kKaiMilliPerGpu,
                      scheduler_.time_aware ? std::optional<double>(scheduler_.k_value) : std::nullopt);
  for (size_t q = 0; q < queues_.size(); ++q) fair_share_[q] = to_milli(share[q]);
}

bool KaiAdmission::cycle(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict) {
  divide_fair_shares();
  bool changed = false;
  for (Action action : {Action::Allocate, Action::Reclaim, Action::Preempt})
    changed = act(action, now_ms, admit, evict) || changed;
  return changed;
}

// One action over the waiting jobs in queue order: each queue's head (its first job of a shape
// not yet failed in this action), the leaf KAI's walk down the hierarchy reaches taking its turn.
// A turn changes the head of one leaf and the allocations on its path and its victims' paths;
// only those paths are ranked again (each against its siblings): a turn costs the fan-outs along
// them, not all queues.
bool KaiAdmission::act(Action action, int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict) {
  ++actions_;
  std::vector<ShapeHead> heads(queues_.size());
  for (size_t q = 0; q < queues_.size(); ++q) heads[q] = head(static_cast<int>(q));
  for (int q : bottom_up_) rank_subtree(q, heads);
  next_ = best_of(roots_, heads);
  bool changed = false;
  std::vector<int> moved;  // the leaves whose paths a turn changed
  for (int turn = next_; turn >= 0; turn = next_) {
    const KaiWorkload job = *heads[static_cast<size_t>(turn)].job;
    Shape& shape = *heads[static_cast<size_t>(turn)].shape;
    std::vector<uint32_t> victims;
    const Refusal why = attempt(action, job, victims);
    shape.reasons[static_cast<size_t>(action)] = why;
    moved.assign(1, job.queue);
    if (why) {
      shape.failed_in = actions_;
    } else {
      for (uint32_t victim : victims) {
        moved.push_back(admitted_.at(victim).queue);
        release(victim, now_ms);
        evicted_now_.insert(victim);  // enqueued again, it waits for the next run
        evict({now_ms, victim, job.id, action == Action::Reclaim ? PreemptionReason::Reclaim : PreemptionReason::Preempt});
      }
      take_from_queue(job);
      allocate(job, now_ms);
      admit(job.id);
      changed = true;
    }
    heads[static_cast<size_t>(job.queue)] = head(job.queue);
    for (int leaf : moved) {
      const std::vector<int>& path = queues_[static_cast<size_t>(leaf)].path;
      for (auto it = path.rbegin(); it != path.rend(); ++it) rank_subtree(*it, heads);
    }
    next_ = best_of(roots_, heads);
  }
  return changed;
}

void KaiAdmission::rank_subtree(int queue, const std::vector<ShapeHead>& heads) {
  const size_t q = static_cast<size_t>(queue);
  best_[q] = queues_[q].leaf ? (heads[q].job ? queue : -1) : best_of(children_[q], heads);
}

// KAI's queue nodes keep their children in a priority queue ordered by QueueOrderFn, a non-leaf
// child compared with the best job of its subtree (getBestJobFromNode); the pop walks from the
// best top-level queue down to a leaf. Siblings' keys are each their own, so the first of them is
// well defined; comparing leaves of different subtrees each with its own head (not its subtree's
// best) would not be, and could pick another leaf than KAI's walk.
int KaiAdmission::best_of(const std::vector<int>& children, const std::vector<ShapeHead>& heads) const {
  int best = -1, from = -1;
  for (int child : children) {
    const int leaf = best_[static_cast<size_t>(child)];
    if (leaf < 0) continue;
    if (from < 0 || rank_before(child, heads[static_cast<size_t>(leaf)].job->gpu_milli, from,
                                heads[static_cast<size_t>(best)].job->gpu_milli, allocated_))
      best = leaf, from = child;
  }
  return best;
}

// None when `job` may be admitted by `action` (after evicting `victims`), else why not.
KaiAdmission::Refusal KaiAdmission::attempt(Action action, const KaiWorkload& job, std::vector<uint32_t>& victims) const {
  if (action == Action::Reclaim) return try_reclaim(job, victims);
  if (action == Action::Preempt) return try_preempt(job, victims);
  if (Refusal why = policy_blocks(job, allocated_)) return why;
  if (free_milli() < job.gpu_milli) return {Refusal::Kind::NotEnoughFree, -1, -1, 0, {free_milli(), job.gpu_milli}};
  return {};
}

// capacity_policy: the limit of every queue on the path, and for a non-preemptible job the
// deserved quota of every queue on the path; with `alloc` as the queues' allocations.
KaiAdmission::Refusal KaiAdmission::policy_blocks(const KaiWorkload& job, const std::vector<int64_t>& alloc) const {
  const bool non_preemptible = job.priority >= kKaiNonPreemptiblePriority;
  const std::vector<int>& path = queues_[static_cast<size_t>(job.queue)].path;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {  // the queue, then its parents (max_allowed_check.go)
    const int q = *it;
    const Queue& at = queues_[static_cast<size_t>(q)];
    const int64_t held = alloc[static_cast<size_t>(q)];
    if (at.limit >= 0 && held + job.gpu_milli > at.limit)
      return {Refusal::Kind::OverLimit, q, -1, 0, {held, at.limit, job.gpu_milli}};
    const int64_t non_preemptible_held = allocated_non_preemptible_[static_cast<size_t>(q)];
    if (non_preemptible && at.deserved >= 0 && non_preemptible_held + job.gpu_milli > at.deserved)
      return {Refusal::Kind::NonPreemptibleOverQuota, q, -1, 0, {non_preemptible_held, at.deserved, job.gpu_milli}};
  }
  return {};
}

int64_t KaiAdmission::free_milli() const {
  int64_t held = 0;
  for (size_t q = 0; q < queues_.size(); ++q)
    if (queues_[q].parent < 0) held += allocated_[q];
  return capacity_ - held;
}

void KaiAdmission::take_from_queue(const KaiWorkload& job) {
  auto& shapes = waiting_by_queue_[static_cast<size_t>(job.queue)];
  const auto it = shapes.find({-job.priority, job.gpu_milli});
  assert(it != shapes.end());
  std::set<OrderKey>& jobs = it->second.jobs;
  const OrderKey key{-job.priority, job.timestamp_ms, job.id};
  if (key == *jobs.begin()) {
    auto& in_order = shapes_in_order_[static_cast<size_t>(job.queue)];
    in_order.erase(key);
    if (jobs.size() > 1) {
      const OrderKey next = *std::next(jobs.begin());
      in_order.emplace(next, ShapeHead{&it->second, &waiting_.at(next.id)});
    }
  }
  jobs.erase(key);
  if (jobs.empty()) shapes.erase(it);
  for (int q : queues_[static_cast<size_t>(job.queue)].path) pending_[static_cast<size_t>(q)] -= job.gpu_milli;
  waiting_.erase(job.id);
}

void KaiAdmission::allocate(const KaiWorkload& job, int64_t now_ms) {
  KaiWorkload& admitted = admitted_[job.id] = job;
  admitted.started_ms = now_ms;
  admitted_by_queue_[static_cast<size_t>(job.queue)].insert({-job.priority, job.timestamp_ms, job.id});
  change_allocation(job.queue, job.gpu_milli, job.priority >= kKaiNonPreemptiblePriority, now_ms);
}

void KaiAdmission::release(uint32_t id, int64_t now_ms) {
  const auto it = admitted_.find(id);
  const KaiWorkload job = it->second;
  admitted_.erase(it);
  admitted_by_queue_[static_cast<size_t>(job.queue)].erase({-job.priority, job.timestamp_ms, job.id});
  change_allocation(job.queue, -job.gpu_milli, job.priority >= kKaiNonPreemptiblePriority, now_ms);
}

void KaiAdmission::change_allocation(int leaf, int64_t amount, bool non_preemptible, int64_t now_ms) {
  const size_t l = static_cast<size_t>(leaf);
  refresh_usage(now_ms);  // a snapshot due before this change is taken without it
  if (usage_)
    for (int q : queues_[l].path) usage_->change(static_cast<size_t>(q), static_cast<double>(amount) / kKaiMilliPerGpu, now_ms);
  borrowed_milli_ms_[l] += over_deserved(leaf) * (now_ms - borrowed_since_ms_[l]);
  borrowed_since_ms_[l] = now_ms;
  for (int q : queues_[l].path) {
    allocated_[static_cast<size_t>(q)] += amount;
    if (non_preemptible) allocated_non_preemptible_[static_cast<size_t>(q)] += amount;
  }
}

// KAI's scheduler reads the usage its lister fetched last, every fetchInterval (usagedb.go): the
// snapshot of the last fetch instant at or before `now_ms`, counted from the run's start (the
// first call). Called before any change at `now_ms`, so the history holds nothing after it.
void KaiAdmission::refresh_usage(int64_t now_ms) {
  if (!scheduler_.time_aware) return;
  const int64_t fetch = scheduler_.time_aware->fetch_ms;
  if (!usage_) {  // the run's start: no history, every usage 0
    usage_.emplace(*scheduler_.time_aware, queues_.size(), static_cast<double>(capacity_) / kKaiMilliPerGpu, now_ms);
    usage_share_.assign(queues_.size(), 0);
    next_fetch_ms_ = now_ms + fetch;
    return;
  }
  if (now_ms < next_fetch_ms_) return;
  const int64_t at = now_ms - (now_ms - next_fetch_ms_) % fetch;
  usage_share_ = usage_->shares(at);
  next_fetch_ms_ = at + fetch;
  usage_moved_ = true;
}

}  // namespace topsim
