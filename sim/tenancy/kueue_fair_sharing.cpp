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
#include <optional>
#include <set>

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
  using Usage = std::vector<std::pair<int, int64_t>>;  // (FR, amount)
  uint32_t id;
  int queue;
  int32_t priority;
  int64_t admitted_ms;
  uint64_t sequence;
  const Usage* usage;  // what it holds
};

// Kueue's CandidatesOrdering (preemption/common/ordering.go): other queues' workloads before the
// preemptor's own, lower priority first, then the most recently admitted.
bool candidate_before(const FairCandidate& a, const FairCandidate& b, int preemptor_queue) {
  if ((a.queue == preemptor_queue) != (b.queue == preemptor_queue)) return b.queue == preemptor_queue;
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.admitted_ms != b.admitted_ms) return a.admitted_ms > b.admitted_ms;
  return a.sequence > b.sequence;
}

// The candidates each queue offers, in order, taken as the search goes (a Source: has, head and
// pop by queue). Two are used: the admitted workloads themselves for the first strategy
// (AdmittedCandidates, in fair_preemption_targets), and this, the first candidate per queue that
// strategy refused, for the second.
class FirstRefused {
 public:
  explicit FirstRefused(int queues) : first_(static_cast<size_t>(queues)) {}
  void add(const FairCandidate& c) {
    auto& slot = first_[static_cast<size_t>(c.queue)];
    if (!slot) slot = c;
  }
  bool has(int q) { return first_[static_cast<size_t>(q)].has_value(); }
  const FairCandidate& head(int q) { return *first_[static_cast<size_t>(q)]; }
  FairCandidate pop(int q) {
    const FairCandidate c = *first_[static_cast<size_t>(q)];
    first_[static_cast<size_t>(q)].reset();
    return c;
  }

 private:
  std::vector<std::optional<FairCandidate>> first_;  // by queue
};

// TargetClusterQueueOrdering: which queue to take a candidate from next, and the queues and
// cohorts no longer worth visiting.
template <class Source>
class TargetOrdering {
 public:
  // `version` changes whenever `tree`'s usage does (a candidate taken).
  TargetOrdering(const QuotaTree& tree, const std::vector<std::vector<int>>& children, int preemptor, Source& source,
                 const uint64_t& version)
      : tree_(tree),
        children_(children),
        preemptor_(preemptor),
        source_(source),
        version_(version),
        pruned_(static_cast<size_t>(tree.nodes()), false),
        shares_(static_cast<size_t>(tree.nodes())),
        share_version_(static_cast<size_t>(tree.nodes()), ~uint64_t{0}) {}
  void drop(int q) { pruned_[static_cast<size_t>(q)] = true; }
  bool done(int root) const { return pruned_[static_cast<size_t>(root)]; }

  // The queue to take a candidate from next below `cohort`, or -1 (something was pruned).
  int next(int cohort) {
    int best_queue = -1, best_cohort = -1;
    Drs queue_share, cohort_share;  // NegativeDRS: below every share
    queue_share.ratio = cohort_share.ratio = -1;
    for (int child : children_[static_cast<size_t>(cohort)]) {
      if (pruned_[static_cast<size_t>(child)]) continue;
      const Drs& share = share_of(child);
      if (child >= tree_.cluster_queues()) {
        if (!share.borrowing && tree_.common_ancestor(preemptor_, child) != child)  // not on the preemptor's path
          pruned_[static_cast<size_t>(child)] = true;
        else if (compare_drs(share, cohort_share) >= 0)
          best_cohort = child, cohort_share = share;
        continue;
      }
      const int c = best_queue < 0 ? 1 : compare_drs(share, queue_share);
      if ((!share.borrowing && child != preemptor_) || !source_.has(child))
        pruned_[static_cast<size_t>(child)] = true;
      else if (c > 0 || (c == 0 && candidate_before(source_.head(child), source_.head(best_queue), preemptor_)))
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
  // A node's share, computed again only after the usage changed: a search asks for the shares
  // of every child of a cohort each time it picks a queue, and takes few candidates.
  const Drs& share_of(int node) {
    const size_t n = static_cast<size_t>(node);
    if (share_version_[n] != version_) shares_[n] = dominant_resource_share(tree_, node), share_version_[n] = version_;
    return shares_[n];
  }

  const QuotaTree& tree_;
  const std::vector<std::vector<int>>& children_;
  int preemptor_;
  Source& source_;
  const uint64_t& version_;
  std::vector<bool> pruned_;  // by node
  std::vector<Drs> shares_;   // by node: its share at usage version share_version_
  std::vector<uint64_t> share_version_;
};

}  // namespace

std::vector<KueueAdmission::Target> KueueAdmission::fair_preemption_targets(
    const QueuedWorkload& workload, const std::vector<std::pair<int, int64_t>>& needs) const {
  const int cq = workload.cluster_queue;
  const ClusterQueueSpec& spec = queues_[static_cast<size_t>(cq)];
  const std::vector<int> short_frs = short_of(cq, needs);
  if (short_frs.empty() || !could_free(cq, needs, short_frs)) return {};
  auto uses_short = [&](const Admitted& a) { return uses_any(a, short_frs); };
  const int root = tree_.root(cq);
  // Whether an admitted workload of queue `q` may be evicted for this one, young or not.
  auto may_take = [&](int q, const Admitted& a) {
    const bool eligible =
        q == cq ? within_queue_eligible(spec.within_queue, a.priority, a.timestamp_ms, workload.priority, workload.timestamp_ms)
                : reclaim_eligible(spec.reclaim, a.priority, workload.priority);
    return eligible && uses_short(a);
  };
  // The candidates: the preemptor's own queue's workloads (withinClusterQueue) and those of
  // borrowing queues of its tree, each queue's in its order (admitted_by_queue_), read in place
  // as the search goes: a search that finds nothing would otherwise copy every admitted workload
  // of the cohort, and Philly's replays run a million of them.
  class AdmittedCandidates {
   public:
    using Queue = std::set<VictimKey>;
    AdmittedCandidates(const KueueAdmission& self, decltype(may_take)& may) : self_(self), may_(may) {
      const size_t queues = static_cast<size_t>(self.tree_.cluster_queues());
      at_.resize(queues);
      end_.resize(queues);
    }
    void open(int q) {
      const Queue& queue = self_.admitted_by_queue_[static_cast<size_t>(q)];
      at_[static_cast<size_t>(q)] = queue.begin();
      end_[static_cast<size_t>(q)] = queue.end();
    }
    bool has(int q) {  // moves past what is no candidate (young ones too: they are left out)
      auto& at = at_[static_cast<size_t>(q)];
      while (at != end_[static_cast<size_t>(q)] && !(at->admitted->admitted_ms < self_.instant_ms_ && may_(q, *at->admitted)))
        ++at;
      return at != end_[static_cast<size_t>(q)];
    }
    FairCandidate head(int q) {
      const VictimKey& key = *at_[static_cast<size_t>(q)];
      const Admitted& a = *key.admitted;
      return {key.id, q, a.priority, a.admitted_ms, a.sequence, &a.usage};
    }
    FairCandidate pop(int q) {
      const FairCandidate c = head(q);
      ++at_[static_cast<size_t>(q)];
      popped_run_[static_cast<size_t>(q)] = c.priority;
      return c;
    }
    void clear(int q) { at_[static_cast<size_t>(q)] = end_[static_cast<size_t>(q)]; }
    // Whether no workload of the head's priority was popped yet (has(q) true): its run, the
    // queue's workloads of that priority, is whole from the head on (those before it were no
    // candidates).
    bool whole_run(int q) {
      const auto& popped = popped_run_[static_cast<size_t>(q)];
      return !popped || *popped != at_[static_cast<size_t>(q)]->priority;
    }
    void skip_run(int q) {  // past the head's run
      auto& at = at_[static_cast<size_t>(q)];
      at = past_run(self_.admitted_by_queue_[static_cast<size_t>(q)], at->priority);
    }

   private:
    const KueueAdmission& self_;
    decltype(may_take)& may_;
    std::vector<Queue::const_iterator> at_, end_;      // by queue: its next admitted workload, its end
    std::vector<std::optional<int32_t>> popped_run_ =  // by queue: the priority last popped
        std::vector<std::optional<int32_t>>(static_cast<size_t>(self_.tree_.cluster_queues()));
  };
  AdmittedCandidates candidates(*this, may_take);
  bool any = false;
  for (int q = 0; q < tree_.cluster_queues(); ++q) {
    const bool own = q == cq;
    if (own ? spec.within_queue == WithinQueuePreemption::Never
            : tree_.parent(cq) < 0 || spec.reclaim == ReclaimPreemption::Never || tree_.root(q) != root ||
                  std::none_of(short_frs.begin(), short_frs.end(), [&](int fr) { return tree_.borrowing(q, fr); }))
      continue;
    // Workloads admitted at this instant are no candidates yet, but the search notes them.
    left_young_ = left_young_ || young_in(q, [&](const Admitted& a) { return may_take(q, a); });
    candidates.open(q);
    any = any || candidates.has(q);
  }
  if (!any) return {};

  QuotaTree& work = scratch_;
  work = tree_;
  auto change_by = [&](int queue, const FairCandidate::Usage& usage, int sign) {
    for (const auto& [fr, amount] : usage) work.add_usage(queue, fr, sign * amount);
  };
  auto change = [&](const FairCandidate& c, int sign) { change_by(c.queue, *c.usage, sign); };
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
  FirstRefused refused(tree_.cluster_queues());  // all the second strategy reads of those refused
  bool fit = false;
  uint64_t version = 0;  // of `work`'s usage, bumped by each candidate taken
  auto take = [&](const FairCandidate& c) {
    change(c, -1);
    ++version;
    targets.push_back(c);
    return fit = fits_now();
  };
  TargetOrdering first(work, children_, cq, candidates, version);
  const bool by_final = strategies_.front() == FairStrategy::LessThanOrEqualToFinalShare;
  const int top = work.parent(cq) < 0 ? cq : root;
  while (!fit && !first.done(top)) {
    const int target = top == cq ? (candidates.has(cq) ? cq : -1) : first.next(root);
    if (top == cq && target < 0) break;
    if (target < 0) continue;
    if (target == cq || within_nominal) {
      take(candidates.pop(target));
      continue;
    }
    const int lca = work.common_ancestor(cq, target);
    const Drs preemptor_new = share_below(cq, lca);
    const Drs target_old = share_below(target, lca);
    // fsStrategyUnsatisfiable, or LessThanInitialShare, which reads no candidate's usage.
    const bool none =
        (preemptor_new.infinite() && !target_old.infinite()) || (!by_final && compare_drs(preemptor_new, target_old) >= 0);
    if (none) {  // every candidate of the queue is refused
      if (candidates.has(target)) refused.add(candidates.head(target));
      candidates.clear(target);
      continue;
    }
    // Nothing changes in `work` until a candidate is taken, so whether one passes depends on what
    // it holds alone: a usage that failed fails again. So a run of one priority none of whose
    // usages pass (usage_classes_) is refused whole, its first candidate noted, without reading
    // it: Philly's queues hold hundreds of workloads of a few sizes, and most searches find
    // nothing (philly-kueue-fair: 1.5 million searches, 37 thousand finding victims).
    std::vector<const FairCandidate::Usage*> failed;
    auto fails = [&](const FairCandidate::Usage& usage) {
      if (std::any_of(failed.begin(), failed.end(), [&](const auto* u) { return *u == usage; })) return true;
      if (!by_final) return false;
      change_by(target, usage, -1);
      const Drs target_new = share_below(target, lca);
      change_by(target, usage, +1);
      if (compare_drs(preemptor_new, target_new) <= 0) return false;
      failed.push_back(&usage);
      return true;
    };
    const auto& classes = usage_classes_[static_cast<size_t>(target)];
    while (candidates.has(target)) {
      if (by_final && candidates.whole_run(target)) {
        const int32_t priority = candidates.head(target).priority;
        bool some = false;
        for (auto it = classes.lower_bound({priority, {}}); !some && it != classes.end() && it->first.first == priority; ++it)
          some = uses_any(it->first.second, short_frs) && !fails(it->first.second);
        if (!some) {
          refused.add(candidates.head(target));
          candidates.skip_run(target);
          continue;
        }
      }
      const FairCandidate c = candidates.pop(target);
      const bool passed = !fails(*c.usage);
      if (passed) {
        take(c);
        break;
      }
      refused.add(c);
    }
  }
  if (!fit && strategies_.size() > 1) {
    TargetOrdering second(work, children_, cq, refused, version);
    while (!fit && !second.done(root)) {
      const int target = second.next(root);
      if (target < 0) continue;
      const int lca = work.common_ancestor(cq, target);
      const bool passed = compare_drs(share_below(cq, lca), share_below(target, lca)) < 0;
      const FairCandidate c = refused.pop(target);
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
  // Kueue's reasons under Fair Sharing (preemption.go): within the preemptor's ClusterQueue, else
  // Fair Sharing within the cohort.
  std::vector<Target> out;
  for (const FairCandidate& c : targets)
    out.push_back({c.id, admitted_.at(c.id).cluster_queue == cq ? PreemptionReason::InClusterQueue
                                                                : PreemptionReason::InCohortFairSharing});
  return out;
}

}  // namespace topsim
