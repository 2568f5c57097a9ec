// Kueue's Fair Sharing: which head a scheduling cycle takes next, and which workloads of other
// ClusterQueues a preemptor may evict (kubernetes-sigs/kueue at ff69552e, 2026-08:
// pkg/scheduler/fair_sharing_iterator.go, pkg/scheduler/preemption/preemption.go fairPreemptions,
// pkg/scheduler/preemption/fairsharing/{ordering,target,strategy,least_common_ancestor}.go,
// site/content/en/docs/concepts/fair_sharing.md; paraphrased, not copied).
//
// The cycle: each time, a tournament from the root of a tree. At every cohort its children's
// candidates compete: a preemptor waiting for its victims' quota first (PrioritizePreemptorWorkloads,
// see kueue_admission.h), then one that would not borrow on what it asks beats one that would
// (FairSharingPrioritizeNonBorrowing, beta and on), then the lower share of the child on the
// candidate's path with the candidate admitted, then higher priority, then older.
//
// Preemption: the preemptor's own queue's workloads (withinClusterQueue) and those of borrowing
// queues of its tree (reclaimWithinCohort; borrowWithinCohort plays no part) are candidates. With
// the preemptor's usage added, the queue of highest share is taken first, again and again. An own
// workload is always taken; while the preemptor's queue stays within its nominal quota, any
// other's is (FairSharingPreemptWithinNominal, beta and on); otherwise a candidate is taken when
// the first strategy holds between the two queues' shares below their common ancestor. Those it
// refused get the second strategy (LessThanInitialShare), one per queue. Victims found are then
// put back in reverse order while the preemptor still fits.
#include <algorithm>
#include <map>
#include <numeric>

#include "sim/tenancy/fair_sharing.h"
#include "sim/tenancy/kueue_admission.h"

namespace topsim {
namespace {

bool reclaim_eligible(ReclaimPreemption policy, int32_t priority, int32_t preemptor_priority) {
  return policy == ReclaimPreemption::Any || (policy == ReclaimPreemption::LowerPriority && priority < preemptor_priority);
}

// The ancestor of `node` (or `node` itself) just below `lca`.
int almost_lca(const QuotaTree& tree, int node, int lca) {
  int at = node;
  while (tree.parent(at) != lca) at = tree.parent(at);
  return at;
}

}  // namespace

size_t KueueAdmission::fair_next(const std::vector<CycleEntry>& entries) {
  // A queue outside any cohort competes with nobody (Kueue returns it at once).
  for (size_t i = 0; i < entries.size(); ++i)
    if (tree_.parent(entries[i].workload->cluster_queue) < 0) return i;
  const int root = tree_.root(entries.front().workload->cluster_queue);
  // Each entry's share at every cohort on its path: that of the cohort's child on the path, with
  // the entry's usage added (computeDRS).
  std::vector<std::map<int, Drs>> shares(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const int cq = entries[i].workload->cluster_queue;
    if (tree_.root(cq) != root) continue;
    const auto& usage = entries[i].nomination.usage;
    for (const auto& [fr, amount] : usage) tree_.add_usage(cq, fr, amount);
    for (int child = cq; tree_.parent(child) >= 0; child = tree_.parent(child))
      shares[i][tree_.parent(child)] = dominant_resource_share(tree_, child, true);
    for (const auto& [fr, amount] : usage) tree_.add_usage(cq, fr, -amount);
  }
  auto less = [&](size_t a, size_t b, int cohort) {
    if (entries[a].preemptor != entries[b].preemptor) return entries[a].preemptor;
    const Drs& da = shares[a].at(cohort);
    const Drs& db = shares[b].at(cohort);
    const bool a_borrows = da.borrowing_on(entries[a].nomination.usage);
    const bool b_borrows = db.borrowing_on(entries[b].nomination.usage);
    if (a_borrows != b_borrows) return !a_borrows;
    if (const int c = compare_drs(da, db); c != 0) return c < 0;
    const QueuedWorkload& wa = *entries[a].workload;
    const QueuedWorkload& wb = *entries[b].workload;
    if (wa.priority != wb.priority) return wa.priority > wb.priority;
    if (wa.timestamp_ms != wb.timestamp_ms) return wa.timestamp_ms < wb.timestamp_ms;
    return wa.id < wb.id;
  };
  // runTournament: child cohorts' winners, then the child queues' entries.
  std::vector<int> entry_of(static_cast<size_t>(tree_.cluster_queues()), -1);
  for (size_t i = 0; i < entries.size(); ++i)
    entry_of[static_cast<size_t>(entries[i].workload->cluster_queue)] = static_cast<int>(i);
  auto tournament = [&](auto&& self, int cohort) -> int {
    int best = -1;
    for (int child : children_[static_cast<size_t>(cohort)]) {
      const int candidate = child >= tree_.cluster_queues() ? self(self, child) : entry_of[static_cast<size_t>(child)];
      if (candidate >= 0 && (best < 0 || less(static_cast<size_t>(candidate), static_cast<size_t>(best), cohort)))
        best = candidate;
    }
    return best;
  };
  return static_cast<size_t>(tournament(tournament, root));
}

namespace {

struct FairCandidate {
  uint32_t id;
  int queue;
  int32_t priority;
  int64_t admitted_ms;
  uint64_t sequence;
  const std::vector<std::pair<int, int64_t>>* usage;  // (FR, amount) it holds
};

// Kueue's CandidatesOrdering (preemption/common/ordering.go): other queues' workloads before the
// preemptor's own, lower priority first, then the most recently admitted.
bool candidate_before(const FairCandidate& a, const FairCandidate& b, int preemptor_queue) {
  if ((a.queue == preemptor_queue) != (b.queue == preemptor_queue)) return b.queue == preemptor_queue;
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.admitted_ms != b.admitted_ms) return a.admitted_ms > b.admitted_ms;
  return a.sequence > b.sequence;
}

// TargetClusterQueueOrdering: the candidates of each queue in order, and the queues and cohorts
// no longer worth visiting.
class TargetOrdering {
 public:
  TargetOrdering(const QuotaTree& tree, const std::vector<std::vector<int>>& children, int preemptor,
                 const std::vector<FairCandidate>& candidates)
      : tree_(tree),
        children_(children),
        preemptor_(preemptor),
        ordered_(candidates.size()),
        end_(static_cast<size_t>(tree.cluster_queues()), 0),
        pruned_(static_cast<size_t>(tree.nodes()), false) {
    // Each queue's candidates in their order, queue after queue in one array (a counting sort:
    // one allocation, not one per queue; this is built for every preemption search). Filled from
    // the back, each queue's cursor ends at its run's start.
    for (const FairCandidate& c : candidates) ++end_[static_cast<size_t>(c.queue)];
    std::partial_sum(end_.begin(), end_.end(), end_.begin());
    next_ = end_;
    for (auto c = candidates.rbegin(); c != candidates.rend(); ++c) ordered_[--next_[static_cast<size_t>(c->queue)]] = *c;
  }
  bool has(int q) const { return next_[static_cast<size_t>(q)] < end_[static_cast<size_t>(q)]; }
  const FairCandidate& head(int q) const { return ordered_[next_[static_cast<size_t>(q)]]; }
  FairCandidate pop(int q) { return ordered_[next_[static_cast<size_t>(q)]++]; }
  void drop(int q) { pruned_[static_cast<size_t>(q)] = true; }
  bool done(int root) const { return pruned_[static_cast<size_t>(root)]; }

  // The queue to take a candidate from next below `cohort`, or -1 (something was pruned).
  int next(int cohort) {
    int best_queue = -1, best_cohort = -1;
    Drs queue_share, cohort_share;  // NegativeDRS: below every share
    queue_share.ratio = cohort_share.ratio = -1;
    for (int child : children_[static_cast<size_t>(cohort)]) {
      if (pruned_[static_cast<size_t>(child)]) continue;
      const Drs share = dominant_resource_share(tree_, child);
      if (child >= tree_.cluster_queues()) {
        if (!share.borrowing && tree_.common_ancestor(preemptor_, child) != child)  // not on the preemptor's path
          pruned_[static_cast<size_t>(child)] = true;
        else if (compare_drs(share, cohort_share) >= 0)
          best_cohort = child, cohort_share = share;
        continue;
      }
      const int c = best_queue < 0 ? 1 : compare_drs(share, queue_share);
      if ((!share.borrowing && child != preemptor_) || !has(child))
        pruned_[static_cast<size_t>(child)] = true;
      else if (c > 0 || (c == 0 && candidate_before(head(child), head(best_queue), preemptor_)))
        best_queue = child, queue_share = share;
    }
    if (best_queue < 0 && best_cohort < 0) {
      pruned_[static_cast<size_t>(cohort)] = true;
      return -1;
    }
    if (best_cohort >= 0 && (best_queue < 0 || compare_drs(cohort_share, queue_share) >= 0)) return next(best_cohort);
    return best_queue;
  }

 private:
  const QuotaTree& tree_;
  const std::vector<std::vector<int>>& children_;
  int preemptor_;
  std::vector<FairCandidate> ordered_;  // by queue, each queue's in candidate order
  std::vector<size_t> next_, end_;      // per queue: its next candidate in ordered_, one past its last
  std::vector<bool> pruned_;            // by node
};

}  // namespace

std::vector<uint32_t> KueueAdmission::fair_preemption_targets(const QueuedWorkload& workload,
                                                              const std::vector<std::pair<int, int64_t>>& needs) const {
  const int cq = workload.cluster_queue;
  const ClusterQueueSpec& spec = queues_[static_cast<size_t>(cq)];
  const std::vector<int> short_frs = short_of(cq, needs);
  if (short_frs.empty() || !could_free(cq, needs, short_frs)) return {};
  auto uses_short = [&](const Admitted& a) { return uses_any(a, short_frs); };
  std::vector<FairCandidate> candidates;
  const int root = tree_.root(cq);
  for (int q = 0; q < tree_.cluster_queues(); ++q) {
    const bool own = q == cq;
    if (own ? spec.within_queue == WithinQueuePreemption::Never
            : tree_.parent(cq) < 0 || spec.reclaim == ReclaimPreemption::Never || tree_.root(q) != root ||
                  std::none_of(short_frs.begin(), short_frs.end(), [&](int fr) { return tree_.borrowing(q, fr); }))
      continue;
    for (const VictimKey& key : admitted_by_queue_[static_cast<size_t>(q)]) {  // in candidate order
      const Admitted& a = *key.admitted;
      const bool eligible =
          own ? within_queue_eligible(spec.within_queue, a.priority, a.timestamp_ms, workload.priority, workload.timestamp_ms)
              : reclaim_eligible(spec.reclaim, a.priority, workload.priority);
      if (!eligible || !uses_short(a)) continue;
      if (a.admitted_ms >= instant_ms_)
        left_young_ = true;
      else
        candidates.push_back({key.id, q, a.priority, a.admitted_ms, a.sequence, &a.usage});
    }
  }
  if (candidates.empty()) return {};
  // Each queue's candidates are in their order already (admitted_by_queue_), which is all the
  // target ordering reads.

  QuotaTree& work = scratch_;
  work = tree_;
  auto change = [&](const FairCandidate& c, int sign) {
    for (const auto& [fr, amount] : *c.usage) work.add_usage(c.queue, fr, sign * amount);
  };
  auto add_preemptor = [&](int sign) {
    for (const auto& [fr, amount] : needs) work.add_usage(cq, fr, sign * amount);
  };
  auto fits_now = [&] {  // workloadFitsForFairSharing: with the preemptor's usage taken out again
    add_preemptor(-1);
    const bool ok = fits(needs, cq, work, true);
    add_preemptor(+1);
    return ok;
  };
  // Shares are compared between the two queues' ancestors just below their common one.
  auto share_below = [&](int node, int lca) { return dominant_resource_share(work, almost_lca(work, node, lca)); };
  add_preemptor(+1);
  const bool within_nominal = std::none_of(short_frs.begin(), short_frs.end(), [&](int fr) { return work.borrowing(cq, fr); });
  std::vector<FairCandidate> targets;
  std::vector<FairCandidate> retry;
  bool fit = false;
  auto take = [&](const FairCandidate& c) {
    change(c, -1);
    targets.push_back(c);
    return fit = fits_now();
  };
  TargetOrdering first(work, children_, cq, candidates);
  const int top = work.parent(cq) < 0 ? cq : root;
  while (!fit && !first.done(top)) {
    const int target = top == cq ? (first.has(cq) ? cq : -1) : first.next(root);
    if (top == cq && target < 0) break;
    if (target < 0) continue;
    if (target == cq || within_nominal) {
      take(first.pop(target));
      continue;
    }
    const int lca = work.common_ancestor(cq, target);
    const Drs preemptor_new = share_below(cq, lca);
    const Drs target_old = share_below(target, lca);
    const bool hopeless = preemptor_new.infinite() && !target_old.infinite();  // fsStrategyUnsatisfiable
    while (first.has(target)) {
      const FairCandidate c = first.pop(target);
      if (hopeless) {
        retry.push_back(c);
        continue;
      }
      change(c, -1);
      const Drs target_new = share_below(target, lca);
      change(c, +1);
      const bool passed = strategies_.front() == FairStrategy::LessThanOrEqualToFinalShare
                              ? compare_drs(preemptor_new, target_new) <= 0
                              : compare_drs(preemptor_new, target_old) < 0;
      if (passed) {
        take(c);
        break;
      }
      retry.push_back(c);
    }
  }
  if (!fit && strategies_.size() > 1) {
    TargetOrdering second(work, children_, cq, retry);
    while (!fit && !second.done(root)) {
      const int target = second.next(root);
      if (target < 0) continue;
      const int lca = work.common_ancestor(cq, target);
      const bool passed = compare_drs(share_below(cq, lca), share_below(target, lca)) < 0;
      const FairCandidate c = second.pop(target);
      if (passed) take(c);
      second.drop(target);
    }
  }
  add_preemptor(-1);
  if (!fit) return {};
  for (size_t i = targets.size() - 1; i-- > 0;) {  // fill back, borrowing allowed
    change(targets[i], +1);
    if (fits(needs, cq, work, true))
      targets.erase(targets.begin() + static_cast<std::ptrdiff_t>(i));
    else
      change(targets[i], -1);
  }
  std::vector<uint32_t> ids;
  for (const FairCandidate& c : targets) ids.push_back(c.id);
  return ids;
}

}  // namespace topsim
