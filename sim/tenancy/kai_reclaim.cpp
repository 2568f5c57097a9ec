// KaiAdmission's Reclaim and Preempt actions: which running jobs a waiting one may take the GPUs
// of (NVIDIA/KAI-Scheduler 72de64fc actions/reclaim/reclaim.go, actions/preempt/preempt.go,
// plugins/proportion/reclaimable/reclaimable.go and strategies/strategies.go; paraphrased).
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/tenancy/kai_admission.h"

namespace topsim {
namespace {

// reclaimable.go fairShareSaturationRatio: allocated / fair share; anything held without a share
// is infinitely saturated.
double saturation(int64_t held, int64_t fair_share) {
  if (fair_share == 0) return held > 0 ? std::numeric_limits<double>::infinity() : 0;
  return static_cast<double>(held) / static_cast<double>(fair_share);
}

}  // namespace

KaiAdmission::Refusal KaiAdmission::try_reclaim(const KaiWorkload& job, std::vector<uint32_t>& victims) const {
  const size_t r = static_cast<size_t>(job.queue);
  const int64_t g = job.gpu_milli;
  // CanReclaimResources: the reclaimer's queue stays within its fair share with the job.
  if (allocated_[r] + g > fair_share_[r])
    return {Refusal::Kind::OverFairShare, job.queue, -1, 0, {fair_share_[r]}, usage_ ? usage_share(job.queue) : -1};
  if (Refusal why = policy_blocks(job, std::vector<int64_t>(queues_.size(), 0))) return why;
  std::vector<int64_t> alloc = allocated_;
  int64_t free = free_milli();
  if (free >= g) return {Refusal::Kind::FreedThisCycle};
  int kept = 0;  // victims min-runtime protection kept
  // Victims: preemptible jobs of other queues, the queue last in KAI's order first, in it the
  // job last in its order first; a queue no strategy lets us take from is closed.
  std::vector<std::set<OrderKey>::const_reverse_iterator> next(queues_.size());
  std::vector<bool> open(queues_.size(), false);
  for (size_t q = 0; q < queues_.size(); ++q) {
    next[q] = admitted_by_queue_[q].rbegin();
    open[q] = q != r && next[q] != admitted_by_queue_[q].rend() && -next[q]->minus_priority < kKaiNonPreemptiblePriority;
  }
  while (free < g) {
    int from = -1;
    for (size_t q = 0; q < queues_.size(); ++q)
      if (open[q] && (from < 0 || queue_before(from, 0, static_cast<int>(q), 0, alloc))) from = static_cast<int>(q);
    if (from < 0) break;
    const size_t f = static_cast<size_t>(from);
    if (!strategy_allows(job.queue, g, from, alloc)) {
      open[f] = false;
      continue;
    }
    const uint32_t id = next[f]->id;
    ++next[f];
    open[f] = next[f] != admitted_by_queue_[f].rend() && -next[f]->minus_priority < kKaiNonPreemptiblePriority;
    if (min_runtimes_ && shielded(id, reclaim_min_runtime(job.queue, from))) {
      ++kept;
      continue;
    }
    take_victim(id, free, victims, alloc);
  }
  if (free < g) return {Refusal::Kind::ReclaimTooLittle, -1, -1, kept, {free, g}};
  put_back(g, free, victims, alloc);
  std::set<int> losers;
  for (uint32_t victim : victims)
    for (int q : queues_[static_cast<size_t>(admitted_.at(victim).queue)].path) losers.insert(q);
  if (Refusal why = saturation_breach(job.queue, g, alloc, losers)) return why;
  return policy_blocks(job, alloc);
}

KaiAdmission::Refusal KaiAdmission::try_preempt(const KaiWorkload& job, std::vector<uint32_t>& victims) const {
  const int64_t g = job.gpu_milli;
  // IsNonPreemptibleJobOverQueueQuota: what no victim can change is checked first.
  if (Refusal why = policy_blocks(job, std::vector<int64_t>(queues_.size(), 0))) return why;
  std::vector<int64_t> alloc = allocated_;
  int64_t free = free_milli();
  if (free >= g) return {Refusal::Kind::FreedThisCycle};
  const std::set<OrderKey>& running = admitted_by_queue_[static_cast<size_t>(job.queue)];
  const int64_t min_runtime = min_runtimes_ ? preempt_min_runtime(job.queue) : 0;
  int kept = 0;  // victims min-runtime protection kept
  for (auto it = running.rbegin(); free < g && it != running.rend(); ++it) {
    const int32_t priority = -it->minus_priority;
    if (priority >= kKaiNonPreemptiblePriority || priority >= job.priority) break;  // the rest rank higher
    if (shielded(it->id, min_runtime)) {
      ++kept;
      continue;
    }
    take_victim(it->id, free, victims, alloc);
  }
  if (free < g) return {Refusal::Kind::PreemptTooLittle, -1, -1, kept, {free, g}};
  put_back(g, free, victims, alloc);
  return policy_blocks(job, alloc);
}

// minruntime resolver.go resolvePreemptMinRuntime: the victim's leaf, then its parents.
int64_t KaiAdmission::preempt_min_runtime(int victim_leaf) const {
  const std::vector<int>& path = queues_[static_cast<size_t>(victim_leaf)].path;
  for (auto q = path.rbegin(); q != path.rend(); ++q)
    if (const auto& set = queues_[static_cast<size_t>(*q)].preempt_min_ms) return *set;
  return scheduler_.default_preempt_min_runtime_ms;
}

// minruntime resolver.go resolveReclaimMinRuntimeLCA: under different top-level queues, the
// victim's top-level queue's; else from the child of the lowest common ancestor towards the
// victim (the LCA itself when the victim's queue is it) up to the top, the first set.
int64_t KaiAdmission::reclaim_min_runtime(int reclaimer_leaf, int victim_leaf) const {
  const std::vector<int>& pr = queues_[static_cast<size_t>(reclaimer_leaf)].path;
  const std::vector<int>& pv = queues_[static_cast<size_t>(victim_leaf)].path;
  if (pr.front() != pv.front())
    return queues_[static_cast<size_t>(pv.front())].reclaim_min_ms.value_or(scheduler_.default_reclaim_min_runtime_ms);
  size_t at = 0;
  for (size_t i = 0; i < std::min(pr.size(), pv.size()) && pr[i] == pv[i]; ++i) at = i;
  if (at + 1 < pv.size()) ++at;
  for (size_t i = at + 1; i-- > 0;)
    if (const auto& set = queues_[static_cast<size_t>(pv[i])].reclaim_min_ms) return *set;
  return scheduler_.default_reclaim_min_runtime_ms;
}

// Whether `victim` has run less than `min_runtime_ms` since it was admitted (minruntime.go:
// protected while now < LastStartTimestamp + min runtime); the end of its protection is noted
// for the engine's next run of the queues.
bool KaiAdmission::shielded(uint32_t victim, int64_t min_runtime_ms) const {
  if (min_runtime_ms <= 0) return false;
  const int64_t until = admitted_.at(victim).started_ms + min_runtime_ms;
  if (now_ms_ >= until) return false;
  wakeup_ms_ = std::min(wakeup_ms_, until);
  return true;
}

void KaiAdmission::take_victim(uint32_t id, int64_t& free, std::vector<uint32_t>& victims, std::vector<int64_t>& alloc) const {
  const KaiWorkload& victim = admitted_.at(id);
  for (int q : queues_[static_cast<size_t>(victim.queue)].path) alloc[static_cast<size_t>(q)] -= victim.gpu_milli;
  free += victim.gpu_milli;
  victims.push_back(id);
}

// Victims taken but not needed go back, the last taken first.
void KaiAdmission::put_back(int64_t gpu_milli, int64_t free, std::vector<uint32_t>& victims, std::vector<int64_t>& alloc) const {
  for (size_t i = victims.size(); i-- > 0;) {
    const KaiWorkload& victim = admitted_.at(victims[i]);
    if (free - victim.gpu_milli < gpu_milli) continue;
    free -= victim.gpu_milli;
    for (int q : queues_[static_cast<size_t>(victim.queue)].path) alloc[static_cast<size_t>(q)] += victim.gpu_milli;
    victims.erase(victims.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

// strategies.go, at the level where the two queues' paths part: MaintainFairShare (the victim's
// queue holds more than its allocatable share) or GuaranteeDeservedQuota (the reclaimer's queue
// stays within deserved with the job and the victim's holds more than deserved); the victim's
// queue counted before this victim is taken.
bool KaiAdmission::strategy_allows(int reclaimer, int64_t gpu_milli, int victim_leaf, const std::vector<int64_t>& alloc) const {
  const std::vector<int>& pr = queues_[static_cast<size_t>(reclaimer)].path;
  const std::vector<int>& pv = queues_[static_cast<size_t>(victim_leaf)].path;
  size_t level = 0;
  while (level + 1 < pr.size() && level + 1 < pv.size() && pr[level] == pv[level]) ++level;
  const int rq = pr[level], vq = pv[level];
  const int64_t remaining = alloc[static_cast<size_t>(vq)];
  const int64_t allocatable = allocatable_of(vq);
  if (allocatable >= 0 && remaining > allocatable) return true;
  const Queue& victim_queue = queues_[static_cast<size_t>(vq)];
  return allocated_[static_cast<size_t>(rq)] + gpu_milli <= deserved_of(rq) && victim_queue.deserved >= 0 &&
         remaining > victim_queue.deserved;
}

// reclaimable.go reclaimingQueuesRemainWithinBoundaries: on every level of the reclaimer's path,
// its queue (with the job) must not end more saturated than a sibling it takes from, once it is
// above its fair share (reclaimerUtilizationMultiplier 1, KAI's default). Empty, or the breach.
KaiAdmission::Refusal KaiAdmission::saturation_breach(int reclaimer, int64_t gpu_milli, const std::vector<int64_t>& alloc,
                                                      const std::set<int>& losers) const {
  for (int a : queues_[static_cast<size_t>(reclaimer)].path) {
    const size_t qa = static_cast<size_t>(a);
    const double ratio = saturation(alloc[qa] + gpu_milli, fair_share_[qa]);
    for (int s : losers) {
      const size_t qs = static_cast<size_t>(s);
      if (s == a || queues_[qs].parent != queues_[qa].parent) continue;
      if (ratio > 1 && fair_share_[qs] > 0 && ratio >= saturation(alloc[qs], fair_share_[qs]))
        return {Refusal::Kind::Saturation, a, s, 0, {alloc[qa] + gpu_milli, fair_share_[qa], alloc[qs], fair_share_[qs]}};
    }
  }
  return {};
}

}  // namespace topsim
