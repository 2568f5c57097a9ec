// Kueue's classic preemption (site/content/en/docs/concepts/preemption.md; pkg/scheduler/
// preemption/preemption.go, classical/hierarchical_preemption.go, common/ordering.go, v0.19.2):
// which admitted workloads a pending one may evict, in which order, and the smallest set of them
// that lets it in.
#include <algorithm>

#include "sim/tenancy/kueue_admission.h"

namespace topsim {
namespace {

// How an admitted workload may be preempted by the pending one.
enum class Kind : uint8_t {
  Hierarchical,      // another queue's, while the preemptor's own subtree guarantees the request
  WhileBorrowing,    // another queue's, allowed by borrowWithinCohort even if the preemptor borrows
  WithoutBorrowing,  // another queue's, only if the preemptor then stays inside its nominal quota
  SameQueue,         // the preemptor's own queue (withinClusterQueue)
};

struct Candidate {
  uint32_t id;
  Kind kind;
  int32_t priority;
  int64_t admitted_ms;
  uint64_t sequence;
  int queue;                                          // its ClusterQueue
  const std::vector<std::pair<int, int64_t>>* usage;  // (FR, amount) it holds
};

// The reason Kueue gives a victim found as `kind` (preemptionVariant's PreemptionReason).
PreemptionReason reason_of(Kind kind) {
  switch (kind) {
    case Kind::SameQueue: return PreemptionReason::InClusterQueue;
    case Kind::WhileBorrowing: return PreemptionReason::InCohortReclaimWhileBorrowing;
    case Kind::Hierarchical:
    case Kind::WithoutBorrowing: return PreemptionReason::InCohortReclamation;
  }
  return PreemptionReason::InCohortReclamation;
}

}  // namespace

bool within_queue_eligible(WithinQueuePreemption policy, int32_t priority, int64_t timestamp_ms, int32_t preemptor_priority,
                           int64_t preemptor_timestamp_ms) {
  switch (policy) {
    case WithinQueuePreemption::Never: return false;
    case WithinQueuePreemption::LowerPriority: return priority < preemptor_priority;
    case WithinQueuePreemption::LowerOrNewerEqualPriority:
      return priority < preemptor_priority || (priority == preemptor_priority && preemptor_timestamp_ms < timestamp_ms);
  }
  return false;
}

std::vector<int> KueueAdmission::short_of(int cq, const std::vector<std::pair<int, int64_t>>& needs) const {
  std::vector<int> out;
  for (const auto& [fr, amount] : needs)
    if (amount > tree_.available(cq, fr)) out.push_back(fr);
  return out;
}

bool KueueAdmission::uses_any(const std::vector<std::pair<int, int64_t>>& usage, const std::vector<int>& frs) {
  return std::any_of(usage.begin(), usage.end(),
                     [&](const auto& u) { return u.second > 0 && std::find(frs.begin(), frs.end(), u.first) != frs.end(); });
}

bool KueueAdmission::could_free(int cq, const std::vector<std::pair<int, int64_t>>& needs,
                                const std::vector<int>& short_frs) const {
  const ClusterQueueSpec& spec = queues_[static_cast<size_t>(cq)];
  for (const auto& [fr, amount] : needs) {
    if (std::find(short_frs.begin(), short_frs.end(), fr) == short_frs.end()) continue;
    int64_t freeable = tree_.available(cq, fr);
    if (spec.within_queue != WithinQueuePreemption::Never) freeable += tree_.usage(cq, fr);
    if (spec.reclaim != ReclaimPreemption::Never && tree_.parent(cq) >= 0)
      for (int q = 0; q < tree_.cluster_queues(); ++q)
        if (q != cq && tree_.root(q) == tree_.root(cq) &&
            std::any_of(short_frs.begin(), short_frs.end(), [&](int f) { return tree_.borrowing(q, f); }))
          freeable += tree_.usage(q, fr);
    if (freeable < amount) return false;
  }
  return true;
}

std::vector<KueueAdmission::Target> KueueAdmission::preemption_targets(const QueuedWorkload& workload,
                                                                       const std::vector<std::pair<int, int64_t>>& needs) const {
  if (fair_) return fair_preemption_targets(workload, needs);
  const int cq = workload.cluster_queue;
  const ClusterQueueSpec& spec = queues_[static_cast<size_t>(cq)];
  const std::vector<int> short_frs = short_of(cq, needs);
  if (short_frs.empty() || !could_free(cq, needs, short_frs)) return {};
  auto uses_short = [&](const Admitted& a) { return uses_any(a, short_frs); };
  // The preemptor's queue or a cohort of it below `lca` guarantees its request on every short FR.
  auto guaranteed_below = [&](int lca) {
    for (int node = cq; node >= 0 && node != lca; node = tree_.parent(node)) {
      bool all = true;
      for (const auto& [fr, amount] : needs)
        if (std::find(short_frs.begin(), short_frs.end(), fr) != short_frs.end())
          all = all && tree_.usage(node, fr) + amount <= tree_.subtree_quota(node, fr);
      if (all) return true;
    }
    return false;
  };

  // Only the queue's own workloads, and those of queues of its tree borrowing a short FR, can be
  // victims: other queues are skipped whole.
  const int root = tree_.root(cq);
  const auto source = [&](int other) {
    return other == cq ? spec.within_queue != WithinQueuePreemption::Never
                       : spec.reclaim != ReclaimPreemption::Never && tree_.root(other) == root &&
                             std::any_of(short_frs.begin(), short_frs.end(), [&](int fr) { return tree_.borrowing(other, fr); });
  };
  const bool under_nominal =
      std::all_of(short_frs.begin(), short_frs.end(), [&](int fr) { return tree_.usage(cq, fr) < tree_.nominal(cq, fr); });
  const bool borrow_never = spec.borrow_within_cohort == BorrowWithinCohort::Never;
  // A preemptor that may not borrow while preempting, nor preempt within its queue, takes other
  // queues' workloads only if it then stays within its own quota (its usage is not changed by
  // them), or from queues its own side guarantees it against (hierarchical). At or above its
  // nominal quota, or asking for more than it has left of it, with no hierarchical advantage,
  // every candidate would be refused: the search is not made (Philly's queues, mostly). The
  // workloads it would have noted as too young are noted.
  const bool stays_within = tree_.parent(cq) < 0 || std::all_of(needs.begin(), needs.end(), [&](const auto& need) {
                              return tree_.usage(cq, need.first) + need.second <= tree_.subtree_quota(cq, need.first);
                            });
  if (spec.within_queue == WithinQueuePreemption::Never && borrow_never && (!under_nominal || !stays_within)) {
    bool any_hierarchical = false;
    for (int other = 0; other < tree_.cluster_queues() && !any_hierarchical; ++other)
      any_hierarchical = other != cq && source(other) && guaranteed_below(tree_.common_ancestor(cq, other));
    if (!any_hierarchical) {
      for (int other = 0; other < tree_.cluster_queues() && !left_young_; ++other)
        if (source(other)) left_young_ = young_in(other, uses_short);
      return {};
    }
  }

  std::vector<Candidate> candidates;
  std::vector<size_t> bounds{0};  // where each queue's candidates start, and the end
  auto collect = [&](int queue) {
    // Whether the preemptor's side guarantees its request below the two queues' common ancestor
    // depends on the victim's queue alone (every workload listed here is of `queue`): found once.
    const bool hierarchical = queue != cq && guaranteed_below(tree_.common_ancestor(cq, queue));
    for (const VictimKey& key : admitted_by_queue_[static_cast<size_t>(queue)]) {
      const uint32_t id = key.id;
      const Admitted& a = *key.admitted;
      if (!uses_short(a)) continue;
      if (a.admitted_ms >= instant_ms_) {
        left_young_ = true;
        continue;
      }
      if (queue == cq) {
        if (within_queue_eligible(spec.within_queue, a.priority, a.timestamp_ms, workload.priority, workload.timestamp_ms))
          candidates.push_back({id, Kind::SameQueue, a.priority, a.admitted_ms, a.sequence, queue, &a.usage});
        continue;
      }
      if (spec.reclaim == ReclaimPreemption::LowerPriority && !(a.priority < workload.priority)) continue;
      Kind kind = Kind::WithoutBorrowing;
      if (hierarchical)
        kind = Kind::Hierarchical;
      else if (spec.borrow_within_cohort == BorrowWithinCohort::LowerPriority && a.priority < workload.priority &&
               (!spec.borrow_max_priority || a.priority <= *spec.borrow_max_priority))
        kind = Kind::WhileBorrowing;
      candidates.push_back({id, kind, a.priority, a.admitted_ms, a.sequence, queue, &a.usage});
    }
  };
  for (int other = 0; other < tree_.cluster_queues(); ++other) {
    if (source(other)) collect(other);
    if (candidates.size() > bounds.back()) bounds.push_back(candidates.size());
  }
  if (candidates.empty()) return {};
  // Not enough even with every candidate gone: no search.
  for (const auto& [fr, amount] : needs) {
    int64_t freeable = tree_.available(cq, fr);
    for (const Candidate& c : candidates)
      for (const auto& [used_fr, used] : *c.usage)
        if (used_fr == fr) freeable += used;
    if (freeable < amount) return {};
  }
  // Hierarchy candidates, then other queues', then the queue's own; lower priority first, then
  // the most recently admitted.
  auto group = [](Kind k) { return k == Kind::Hierarchical ? 0 : k == Kind::SameQueue ? 2 : 1; };
  const auto before = [&](const Candidate& a, const Candidate& b) {
    if (group(a.kind) != group(b.kind)) return group(a.kind) < group(b.kind);
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.admitted_ms != b.admitted_ms) return a.admitted_ms > b.admitted_ms;
    return a.sequence > b.sequence;  // admission order: no two alike, so the order is total
  };
  // Each queue's candidates are in this order already (admitted_by_queue_'s VictimKey order, and
  // all of one queue are in one group): its runs are merged, pairwise, instead of sorted anew.
  const size_t runs = bounds.size() - 1;
  for (size_t width = 1; width < runs; width *= 2)
    for (size_t i = 0; i + width < runs; i += 2 * width)
      std::inplace_merge(candidates.begin() + static_cast<std::ptrdiff_t>(bounds[i]),
                         candidates.begin() + static_cast<std::ptrdiff_t>(bounds[i + width]),
                         candidates.begin() + static_cast<std::ptrdiff_t>(bounds[std::min(i + 2 * width, runs)]), before);

  // Greedy removal until the preemptor fits, then the reverse fill-back.
  auto attempt = [&](bool allow_borrowing) -> std::vector<Target> {
    QuotaTree& work = scratch_;
    work = tree_;  // copy-assigned: no allocation once the scratch tree has the shape
    std::vector<Target> targets;
    std::vector<const Candidate*> taken;
    auto change = [&](const Candidate& c, int sign) {
      for (const auto& [fr, amount] : *c.usage) work.add_usage(c.queue, fr, sign * amount);
    };
    for (const Candidate& c : candidates) {
      if (c.kind == Kind::WithoutBorrowing && allow_borrowing) continue;
      if (c.kind != Kind::SameQueue) {  // its queue, and its cohorts below the common one, must still borrow
        const int lca = tree_.common_ancestor(cq, c.queue);
        bool valid = false;
        for (int fr : short_frs) {
          bool all = true;
          for (int node = c.queue; node >= 0 && node != lca; node = tree_.parent(node)) all = all && work.borrowing(node, fr);
          valid = valid || all;
        }
        if (!valid) continue;
      }
      change(c, -1);
      taken.push_back(&c);
      if (!fits(needs, cq, work, allow_borrowing)) continue;
      for (size_t i = taken.size() - 1; i-- > 0;) {
        change(*taken[i], +1);
        if (fits(needs, cq, work, allow_borrowing))
          taken.erase(taken.begin() + static_cast<std::ptrdiff_t>(i));
        else
          change(*taken[i], -1);
      }
      for (const Candidate* t : taken) targets.push_back({t->id, reason_of(t->kind)});
      return targets;
    }
    return {};
  };
  const bool any_other =
      std::any_of(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.kind != Kind::SameQueue; });
  const bool any_hierarchical =
      std::any_of(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.kind == Kind::Hierarchical; });
  std::vector<bool> modes{true, false};
  if (!any_other || (borrow_never && !under_nominal))
    modes = {true};
  else if (borrow_never && !any_hierarchical)
    modes = {false, true};
  for (bool allow_borrowing : modes)
    if (std::vector<Target> targets = attempt(allow_borrowing); !targets.empty()) return targets;
  return {};
}

}  // namespace topsim
