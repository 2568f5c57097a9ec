#include "sim/tenancy/kueue_admission.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/hardware.h"
#include "util/text.h"

namespace topsim {

// One flavor tried for one resource group (Kueue's flavorassigner: a flavor's mode, borrowing
// level and, for preemption, whether its victims are all in other queues).
struct KueueAdmission::FlavorTry {
  Mode mode = Mode::Fit;
  int level = 0;
  bool no_candidates = false;
  bool reclaim_only = false;
  std::vector<std::pair<int, int64_t>> usage;  // (FR, amount)
  std::vector<std::pair<int, int64_t>> needs;  // FRs short of quota
  std::vector<Target> victims;                 // Preempt: who would be preempted, and why
  std::string reason;
};

namespace {

bool covers(const ResourceGroup& group, const std::string& resource) {
  return std::find(group.covered.begin(), group.covered.end(), resource) != group.covered.end();
}

// A cohort below the root whose own subtree guarantees the request: reclaiming it is a
// "hierarchical reclaim" opportunity (flavorassigner.go), worth trying preemption for.
bool hierarchical_room(const QuotaTree& tree, int cq, int fr, int64_t amount) {
  for (int node = tree.parent(cq); node >= 0 && tree.parent(node) >= 0; node = tree.parent(node))
    if (tree.subtree_quota(node, fr) >= amount) return true;
  return false;
}

}  // namespace

KueueAdmission::KueueAdmission(QuotaTree tree, const QueueConfig& config)
    : tree_(std::move(tree)),
      queues_(config.cluster_queues),
      waiting_by_queue_(config.cluster_queues.size()),
      releases_(static_cast<size_t>(tree_.nodes()), 0),
      admissions_(static_cast<size_t>(tree_.nodes()), 0),
      gpu_resource_(tree_.resource(kResourceGpu)),
      borrowed_gpu_ms_(config.cluster_queues.size(), 0),
      borrowed_since_ms_(config.cluster_queues.size(), 0) {
  admitted_by_queue_.resize(config.cluster_queues.size());
  usage_classes_.resize(config.cluster_queues.size());
  for (const char* name : {kResourceGpu, kResourceGpuMem, "alibabacloud.com/gpu-milli"})
    if (const int resource = tree_.resource(name); resource >= 0) gpu_resources_.push_back(resource);
  flavor_gpu_.assign(static_cast<size_t>(tree_.flavors()), -1);
  for (const ResourceFlavorSpec& flavor : config.flavors)
    if (const int f = tree_.flavor(flavor.name); f >= 0) flavor_gpu_[static_cast<size_t>(f)] = flavor.gpu;
  if (std::any_of(queues_.begin(), queues_.end(), [](const ClusterQueueSpec& q) { return q.admission_fair_sharing; }))
    fair_admission_ = config.admission_fair_sharing;
  if (fair_admission_) {
    local_usage_.resize(config.local_queues.size() + config.cluster_queues.size());
    for (size_t l = 0; l < config.local_queues.size(); ++l) {
      local_usage_[l].weight = config.local_queues[l].fair_weight;
      for (const auto& [name, value] : config.local_queues[l].consumed)  // a live queue's usage: the start
        local_usage_[l].consumed += resource_weight(name) * value;
    }
  }
  fair_ = config.fair_sharing;
  strategies_ = config.fair_strategies;
  children_.resize(static_cast<size_t>(tree_.nodes()));
  for (int n = tree_.cluster_queues(); n < tree_.nodes(); ++n)
    if (tree_.parent(n) >= 0) children_[static_cast<size_t>(tree_.parent(n))].push_back(n);
  for (int q = 0; q < tree_.cluster_queues(); ++q)
    if (tree_.parent(q) >= 0) children_[static_cast<size_t>(tree_.parent(q))].push_back(q);
  within_preempts_.assign(static_cast<size_t>(tree_.nodes()), false);
  for (int q = 0; q < tree_.cluster_queues(); ++q)
    if (queues_[static_cast<size_t>(q)].within_queue != WithinQueuePreemption::Never)
      within_preempts_[static_cast<size_t>(tree_.root(q))] = true;
}

std::string KueueAdmission::never_admitted(int cluster_queue, const QuotaRequest& request, uint64_t gpu_models) const {
  const ClusterQueueSpec& spec = queues_[static_cast<size_t>(cluster_queue)];
  for (const auto& asked : request) {
    const int resource = asked.first;
    const int64_t amount = asked.second;
    const auto group = std::find_if(spec.groups.begin(), spec.groups.end(),
                                    [&](const ResourceGroup& g) { return covers(g, tree_.resource_name(resource)); });
    if (group == spec.groups.end())
      return "ClusterQueue " + spec.name + " has no quota for " + tree_.resource_name(resource) + " (" + std::to_string(amount) +
             " requested)";
    if (gpu_models == kAnyGpuModels) continue;  // every flavor matches
    const bool some = std::any_of(group->flavors.begin(), group->flavors.end(), [&](const FlavorQuotas& flavor) {
      return matches(*group, tree_.flavor(flavor.flavor), gpu_models);
    });
    if (!some) return no_matching_flavor(spec, *group, gpu_models);
  }
  return {};
}

bool KueueAdmission::matches(const ResourceGroup& group, int f, uint64_t gpu_models) const {
  if (gpu_models == kAnyGpuModels) return true;
  if (const int gpu = flavor_gpu_[static_cast<size_t>(f)]; gpu >= 0) return ((gpu_models >> gpu) & 1u) != 0;
  // A flavor naming no GPU model: the key counts only when another flavor of the group names it,
  // and then a node without the label does not pass the selector.
  return std::none_of(group.flavors.begin(), group.flavors.end(), [&](const FlavorQuotas& other) {
    return flavor_gpu_[static_cast<size_t>(tree_.flavor(other.flavor))] >= 0;
  });
}

std::string KueueAdmission::no_matching_flavor(const ClusterQueueSpec& spec, const ResourceGroup& group,
                                               uint64_t gpu_models) const {
  const std::string flavors = join(group.flavors, ", ", [&](const FlavorQuotas& flavor) {
    const int gpu = flavor_gpu_[static_cast<size_t>(tree_.flavor(flavor.flavor))];
    return flavor.flavor + " (" + (gpu >= 0 ? gpu_at(gpu)->name : "no GPU model") + ")";
  });
  return "no flavor of ClusterQueue " + spec.name + " for " + join(group.covered, ", ") +
         " matches the GPU models its pods select (" + join(gpu_model_names_in(gpu_models), ", ") + "): its flavors are " +
         flavors;
}

int KueueAdmission::gpu_flavor(uint32_t id) const {
  const auto it = admitted_.find(id);
  if (it == admitted_.end()) return -1;
  int gpu = -1, named = -1;  // its GPU resource's flavor; the first flavor naming a GPU model
  for (const auto& [fr, amount] : it->second.usage) {
    const int flavor = fr / tree_.resources();
    const bool gpu_resource =
        std::find(gpu_resources_.begin(), gpu_resources_.end(), fr % tree_.resources()) != gpu_resources_.end();
    if (gpu_resource && gpu < 0) gpu = flavor;
    if (named < 0 && flavor_gpu_[static_cast<size_t>(flavor)] >= 0) named = flavor;
  }
  if (gpu >= 0 && flavor_gpu_[static_cast<size_t>(gpu)] >= 0) return gpu;
  return named >= 0 ? named : gpu;
}

bool KueueAdmission::fair_admission(int cluster_queue) const {
  return fair_admission_ && queues_[static_cast<size_t>(cluster_queue)].admission_fair_sharing;
}

KueueAdmission::ShapeKey KueueAdmission::shape_of(const QueuedWorkload& workload) const {
  return {fair_admission(workload.cluster_queue) ? workload.local_queue : -1, workload.priority, workload.request,
          workload.gpu_models};
}

double KueueAdmission::resource_weight(const std::string& name) const {
  const auto weight = fair_admission_->resource_weights.find(name);
  return weight == fair_admission_->resource_weights.end() ? 1.0 : weight->second;
}

double KueueAdmission::fair_usage_of(const QuotaRequest& request) const {
  double usage = 0;
  for (const auto& [resource, amount] : request) {
    const std::string& name = tree_.resource_name(resource);
    // Kueue's Quantity.AsApproximateFloat64: cpu in cores (topsim counts thousandths), the rest as counted.
    usage += resource_weight(name) * static_cast<double>(amount) / (name == kResourceCpu ? 1000.0 : 1.0);
  }
  return usage;
}

// The sampling ticks since the last update, what the queue held unchanged between them:
// k ticks decay the usage by 0.5^(k x interval / half-life) towards what it holds.
void KueueAdmission::sample_usage(LocalQueueUsage& queue, int64_t now_ms) const {
  const AdmissionFairSharingSpec& afs = *fair_admission_;
  if (afs.half_life_ms == 0) {  // Kueue resets the usage of every queue to 0
    queue.consumed = 0;
    queue.updated_ms = now_ms;
    return;
  }
  const int64_t ticks = (now_ms - queue.updated_ms) / afs.sampling_ms;
  if (ticks <= 0) return;
  const double kept = std::pow(0.5, static_cast<double>(ticks * afs.sampling_ms) / static_cast<double>(afs.half_life_ms));
  queue.consumed = queue.consumed * kept + queue.held * (1 - kept);
  queue.updated_ms += ticks * afs.sampling_ms;
}

// What a LocalQueue holds changes by `amount` (weighted). An admission also updates its usage at
// once, over the time since its last update, and adds the entry penalty.
void KueueAdmission::change_held(int local_queue, double amount, int64_t now_ms, bool admission) {
  LocalQueueUsage& queue = local_usage_[static_cast<size_t>(local_queue)];
  sample_usage(queue, now_ms);
  queue.held = std::max(0.0, queue.held + amount);
  if (!admission || fair_admission_->half_life_ms == 0) return;
  const double half_life = static_cast<double>(fair_admission_->half_life_ms);
  const double alpha = 1 - std::pow(0.5, static_cast<double>(now_ms - queue.updated_ms) / half_life);
  const double penalty = amount * (1 - std::pow(0.5, static_cast<double>(fair_admission_->sampling_ms) / half_life));
  queue.consumed = queue.consumed * (1 - alpha) + queue.held * alpha + penalty;
  queue.updated_ms = now_ms;
}

double KueueAdmission::local_queue_usage(int local_queue) const {
  if (!fair_admission_ || local_queue < 0 || static_cast<size_t>(local_queue) >= local_usage_.size()) return 0;
  const LocalQueueUsage& queue = local_usage_[static_cast<size_t>(local_queue)];
  // A weight of 0 puts the queue last (Kueue: usage / weight with weight <= 0 is +Inf).
  return queue.weight > 0 ? queue.consumed / queue.weight : std::numeric_limits<double>::infinity();
}

void KueueAdmission::enqueue(QueuedWorkload workload) {
  if (fair_admission(workload.cluster_queue) && workload.local_queue < 0)  // named its ClusterQueue
    workload.local_queue = static_cast<int>(local_usage_.size() - queues_.size()) + workload.cluster_queue;
  Queue& queue = waiting_by_queue_[static_cast<size_t>(workload.cluster_queue)];
  queue.shapes[shape_of(workload)].jobs.insert({-workload.priority, workload.timestamp_ms, workload.id});
  waiting_.emplace(workload.id, std::move(workload));
}

bool KueueAdmission::still_failed(const Failure& failure, int cluster_queue) const {
  const size_t root = static_cast<size_t>(tree_.root(cluster_queue));
  if (failure.releases != releases_[root]) return false;
  if (failure.young_at_ms >= 0 && failure.young_at_ms != instant_ms_) return false;  // they are candidates now
  return !failure.needs_candidates || failure.admissions == admissions_[root];
}

const QueuedWorkload* KueueAdmission::first_waiting(int cluster_queue, bool skip_failed) const {
  const Queue& queue = waiting_by_queue_[static_cast<size_t>(cluster_queue)];
  const bool by_usage = fair_admission(cluster_queue);  // the LocalQueue's usage first, lower first
  const OrderKey* best = nullptr;
  double best_usage = 0;
  for (const auto& [key, shape] : queue.shapes) {
    if (shape.jobs.empty() || (skip_failed && still_failed(shape.failed, cluster_queue))) continue;
    const OrderKey& first = *shape.jobs.begin();
    const double usage = by_usage ? local_queue_usage(std::get<0>(key)) : 0;
    if (!best || usage < best_usage || (usage == best_usage && first < *best)) {
      best = &first;
      best_usage = usage;
    }
  }
  return best ? &waiting_.at(best->id) : nullptr;
}

const QueuedWorkload* KueueAdmission::head(int cluster_queue) const {
  if (const auto& pinned = waiting_by_queue_[static_cast<size_t>(cluster_queue)].preemptor)
    if (const auto it = waiting_.find(*pinned); it != waiting_.end()) return &it->second;
  if (queues_[static_cast<size_t>(cluster_queue)].queueing != QueueingStrategy::StrictFIFO)
    return first_waiting(cluster_queue, true);
  const Queue& queue = waiting_by_queue_[static_cast<size_t>(cluster_queue)];
  return still_failed(queue.strict_failed, cluster_queue) ? nullptr : first_waiting(cluster_queue, false);
}

bool KueueAdmission::fits(const std::vector<std::pair<int, int64_t>>& usage, int cluster_queue, const QuotaTree& tree,
                          bool allow_borrowing) const {
  for (const auto& [fr, amount] : usage) {
    if (amount > tree.available(cluster_queue, fr)) return false;
    if (!allow_borrowing && tree.borrowing_level(cluster_queue, fr, amount) > 0) return false;
  }
  return true;
}

KueueAdmission::Nomination KueueAdmission::nominate(const QueuedWorkload& workload) const {
  const int cq = workload.cluster_queue;
  const ClusterQueueSpec& spec = queues_[static_cast<size_t>(cq)];
  Nomination out;
  left_young_ = false;
  out.id = workload.id;
  out.mode = Mode::Fit;
  int groups_preempting = 0;
  for (const ResourceGroup& group : spec.groups) {
    std::vector<std::pair<int, int64_t>> asked;
    for (const auto& [resource, amount] : workload.request)
      if (covers(group, tree_.resource_name(resource))) asked.emplace_back(resource, amount);
    if (asked.empty()) continue;
    FlavorTry best;
    bool have = false;
    for (const FlavorQuotas& flavor : group.flavors) {
      FlavorTry t;
      const int f = tree_.flavor(flavor.flavor);
      if (!matches(group, f, gpu_models_of(workload))) continue;  // "flavor ... doesn't match node affinity"
      for (const auto& [resource, amount] : asked) {
        const int fr = tree_.fr(f, resource);
        t.usage.emplace_back(fr, amount);
        const int64_t available = tree_.available(cq, fr);
        if (amount <= available) {
          t.level = std::max(t.level, tree_.borrowing_level(cq, fr, amount));
          continue;
        }
        const int64_t potential = tree_.potential_available(cq, fr);
        // Preempting while borrowing: borrowWithinCohort, or Fair Sharing with reclaim
        // (flavorassigner.go canPreemptWhileBorrowing).
        const bool while_borrowing =
            spec.borrow_within_cohort != BorrowWithinCohort::Never || (fair_ && spec.reclaim != ReclaimPreemption::Never);
        const bool considered = amount <= potential &&
                                (amount <= tree_.nominal(cq, fr) || while_borrowing || hierarchical_room(tree_, cq, fr, amount));
        if (t.reason.empty())
          t.reason = "insufficient quota for " + tree_.resource_name(resource) + " in flavor " + flavor.flavor +
                     " of ClusterQueue " + spec.name + ": " + std::to_string(amount) + " requested, " +
                     std::to_string(amount > potential ? potential : available) +
                     (amount > potential ? " at most ever" : " available");
        if (!considered || t.mode == Mode::NoFit) {
          t.mode = Mode::NoFit;
          continue;
        }
        t.mode = Mode::Preempt;
        if (amount > tree_.nominal(cq, fr)) t.level = std::max(t.level, tree_.borrowing_level(cq, fr, amount));
        t.needs.emplace_back(fr, amount);
      }
      if (t.mode == Mode::Preempt) {
        t.victims = preemption_targets(workload, t.usage);
        t.no_candidates = t.victims.empty();
        t.reclaim_only = std::none_of(t.victims.begin(), t.victims.end(),
                                      [&](const Target& v) { return admitted_.at(v.id).cluster_queue == cq; });
        if (t.no_candidates) t.reason += "; no workload it may preempt frees enough";
      }
      // isPreferred (flavorassigner.go): a smaller rank wins, the first flavor ties.
      auto rank = [&](const FlavorTry& x) {
        // Fit 0, reclaim (victims in other queues only) 1, preempt 2, no candidates 3, no fit 4
        const int mode = x.mode == Mode::Fit ? 0 : x.mode == Mode::NoFit ? 4 : x.no_candidates ? 3 : x.reclaim_only ? 1 : 2;
        const int level = std::min(x.level, 63);
        if (mode >= 3) return 1000 + mode;
        if (spec.preference == FlavorPreference::PreemptionOverBorrowing) return level * 8 + mode;
        const int category = mode == 0 ? (level > 0) : 2 + (level > 0) * 2 + (mode - 1);
        return category * 64 + level;
      };
      if (!have || rank(t) < rank(best)) best = t;
      have = true;
      const bool stop =
          (t.mode == Mode::Fit && t.level == 0) ||
          (t.mode == Mode::Fit && spec.when_can_borrow == FungibilityChoice::MayStopSearch) ||
          (t.mode == Mode::Preempt && !t.no_candidates && spec.when_can_preempt == FungibilityChoice::MayStopSearch);
      if (stop) break;
    }
    if (!have) {  // no flavor matches its node selector (never_admitted keeps such workloads out)
      out.mode = Mode::NoFit;
      if (out.reason.empty()) out.reason = no_matching_flavor(spec, group, gpu_models_of(workload));
      continue;
    }
    out.usage.insert(out.usage.end(), best.usage.begin(), best.usage.end());
    if (best.mode == Mode::Preempt) {
      ++groups_preempting;
      out.targets = best.victims;
    }
    out.level = std::max(out.level, best.level);
    if (best.mode == Mode::NoFit || best.no_candidates) {
      out.mode = Mode::NoFit;
      out.needs_candidates = out.needs_candidates || best.no_candidates;
      if (out.reason.empty()) out.reason = best.reason;
    } else if (best.mode == Mode::Preempt && out.mode == Mode::Fit) {
      out.mode = Mode::Preempt;
    }
  }
  if (out.mode == Mode::Preempt && groups_preempting > 1) {  // victims for every group at once
    out.targets = preemption_targets(workload, out.usage);
    if (out.targets.empty()) {
      out.mode = Mode::NoFit;
      out.needs_candidates = true;
      out.reason = "ClusterQueue " + spec.name + ": no set of workloads it may preempt frees enough quota";
    }
  }
  out.young_candidates = left_young_;
  return out;
}

int64_t KueueAdmission::gpus_borrowed(int cluster_queue) const {
  if (gpu_resource_ < 0) return 0;
  return std::max<int64_t>(
      0, tree_.usage_all_flavors(cluster_queue, gpu_resource_) - tree_.nominal_all_flavors(cluster_queue, gpu_resource_));
}

void KueueAdmission::change_usage(int cluster_queue, int fr, int64_t amount, int64_t now_ms) {
  const size_t q = static_cast<size_t>(cluster_queue);
  if (gpu_resource_ >= 0 && fr % tree_.resources() == gpu_resource_) {
    borrowed_gpu_ms_[q] += gpus_borrowed(cluster_queue) * (now_ms - borrowed_since_ms_[q]);
    borrowed_since_ms_[q] = now_ms;
  }
  tree_.add_usage(cluster_queue, fr, amount);
}

std::vector<int64_t> KueueAdmission::borrowed_gpu_ms(int64_t now_ms) const {
  std::vector<int64_t> out = borrowed_gpu_ms_;
  for (int q = 0; q < tree_.cluster_queues(); ++q)
    out[static_cast<size_t>(q)] += gpus_borrowed(q) * (now_ms - borrowed_since_ms_[static_cast<size_t>(q)]);
  return out;
}

void KueueAdmission::take_from_queue(const QueuedWorkload& workload) {
  Queue& queue = waiting_by_queue_[static_cast<size_t>(workload.cluster_queue)];
  const auto shape = queue.shapes.find(shape_of(workload));
  assert(shape != queue.shapes.end());
  shape->second.jobs.erase({-workload.priority, workload.timestamp_ms, workload.id});
  if (shape->second.jobs.empty()) queue.shapes.erase(shape);
}

void KueueAdmission::mark_failed(const QueuedWorkload& workload, const Nomination& nomination) {
  const size_t root = static_cast<size_t>(tree_.root(workload.cluster_queue));
  const Failure failure{releases_[root], admissions_[root], nomination.needs_candidates,
                        nomination.young_candidates ? instant_ms_ : -1, nomination.reason};
  Queue& queue = waiting_by_queue_[static_cast<size_t>(workload.cluster_queue)];
  if (queues_[static_cast<size_t>(workload.cluster_queue)].queueing == QueueingStrategy::StrictFIFO)
    queue.strict_failed = failure;
  else
    queue.shapes.at(shape_of(workload)).failed = failure;
}

bool KueueAdmission::cycle(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict) {
  std::vector<CycleEntry> entries;
  for (int q = 0; q < tree_.cluster_queues(); ++q)
    if (const QueuedWorkload* w = head(q))
      entries.push_back({w, nominate(*w), waiting_by_queue_[static_cast<size_t>(q)].preemptor == w->id});
  if (entries.empty()) return false;
  // Classic: a pinned preemptor first, then inside nominal quota, then higher priority, then
  // older (PrioritySortingWithinCohort). Fair Sharing: one tournament per entry taken.
  if (!fair_)
    std::stable_sort(entries.begin(), entries.end(), [](const CycleEntry& a, const CycleEntry& b) {
      if (a.preemptor != b.preemptor) return a.preemptor;
      if (a.nomination.level != b.nomination.level) return a.nomination.level < b.nomination.level;
      if (a.workload->priority != b.workload->priority) return a.workload->priority > b.workload->priority;
      if (a.workload->timestamp_ms != b.workload->timestamp_ms) return a.workload->timestamp_ms < b.workload->timestamp_ms;
      return a.workload->id < b.workload->id;
    });
  bool changed = false;
  std::map<uint32_t, Preemption> evicted;  // by victim
  // Kueue's cycle snapshot once a preemption is issued (scheduler.go processEntry): the
  // preemptor's usage is added and its victims' taken out, so that later entries of the cycle
  // cannot take what the preemptor waits for.
  QuotaTree& view = scratch_;
  bool reserved = false;
  auto change_view = [&](int cq, const std::vector<std::pair<int, int64_t>>& usage, int sign) {
    for (const auto& [fr, amount] : usage) view.add_usage(cq, fr, sign * amount);
  };
  auto change_victims = [&](const std::vector<Target>& victims, int sign) {
    for (const Target& v : victims) change_view(admitted_.at(v.id).cluster_queue, admitted_.at(v.id).usage, sign);
  };
  while (!entries.empty()) {
    const size_t next = fair_ ? fair_next(entries) : 0;
    const CycleEntry e = std::move(entries[next]);
    entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(next));
    const QueuedWorkload& w = *e.workload;
    std::optional<uint32_t>& pinned = waiting_by_queue_[static_cast<size_t>(w.cluster_queue)].preemptor;
    if (e.nomination.mode == Mode::NoFit) {
      pinned.reset();
      mark_failed(w, e.nomination);
      changed = true;
    } else if (e.nomination.mode == Mode::Preempt) {
      const auto& targets = e.nomination.targets;
      if (std::any_of(targets.begin(), targets.end(),
                      [&](const Target& t) { return evicted.count(t.id) || !admitted_.count(t.id); }))
        continue;  // chosen by an earlier entry of this cycle: retried in the next
      if (!reserved) view = tree_, reserved = true;
      change_victims(targets, -1);
      if (!fits(e.nomination.usage, w.cluster_queue, view, true)) {  // an earlier entry took what it needs
        change_victims(targets, +1);
        continue;
      }
      change_view(w.cluster_queue, e.nomination.usage, +1);
      for (const Target& t : targets)  // they hold their quota until the cycle ends
        evicted.emplace(t.id, Preemption{now_ms, t.id, w.id, t.reason});
      pinned = w.id;
      changed = true;
    } else if (fits(e.nomination.usage, w.cluster_queue, reserved ? view : tree_, true)) {
      for (const auto& [fr, amount] : e.nomination.usage) change_usage(w.cluster_queue, fr, amount, now_ms);
      if (reserved) change_view(w.cluster_queue, e.nomination.usage, +1);
      Admitted& a =
          admitted_[w.id] = {w.cluster_queue, w.priority, w.timestamp_ms, now_ms, ++admitted_count_, e.nomination.usage};
      if (fair_admission(w.cluster_queue)) {
        a.local_queue = w.local_queue;
        a.fair_usage = fair_usage_of(w.request);
        change_held(a.local_queue, a.fair_usage, now_ms, true);
      }
      hold(w.id, a);
      // A new preemption candidate only when it borrows, or when a queue preempts within itself.
      const size_t root = static_cast<size_t>(tree_.root(w.cluster_queue));
      if (e.nomination.level > 0 || within_preempts_[root]) ++admissions_[root];
      const uint32_t id = w.id;
      pinned.reset();
      take_from_queue(w);
      waiting_.erase(id);
      admit(id);
      changed = true;
    }  // else: no longer fits after an earlier admission; nominated again next cycle
  }
  for (const auto& [victim, preemption] : evicted) {  // in id order
    release(victim, now_ms);
    evict(preemption);
  }
  return changed;
}

void KueueAdmission::run(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict, int max_cycles) {
  instant_ms_ = now_ms;
  if (fair_admission_)
    for (LocalQueueUsage& queue : local_usage_) sample_usage(queue, now_ms);
  for (int n = 0; max_cycles < 0 || n < max_cycles; ++n)
    if (!cycle(now_ms, admit, evict)) break;
}

void KueueAdmission::release(uint32_t id, int64_t now_ms) {
  const auto it = admitted_.find(id);
  assert(it != admitted_.end());
  for (const auto& [fr, amount] : it->second.usage) change_usage(it->second.cluster_queue, fr, -amount, now_ms);
  ++releases_[static_cast<size_t>(tree_.root(it->second.cluster_queue))];
  if (it->second.local_queue >= 0) change_held(it->second.local_queue, -it->second.fair_usage, now_ms, false);
  unhold(id, it->second);
  admitted_.erase(it);
}

void KueueAdmission::finish(uint32_t id, int64_t now_ms) {
  if (admitted_.count(id)) release(id, now_ms);
}

std::string KueueAdmission::wait_reason(uint32_t id) const {
  const auto it = waiting_.find(id);
  if (it == waiting_.end()) return {};
  const QueuedWorkload& w = it->second;
  const Queue& queue = waiting_by_queue_[static_cast<size_t>(w.cluster_queue)];
  const ClusterQueueSpec& spec = queues_[static_cast<size_t>(w.cluster_queue)];
  if (spec.queueing == QueueingStrategy::StrictFIFO) {
    const QueuedWorkload* first = first_waiting(w.cluster_queue, false);
    if (first && first->id != id) return "StrictFIFO: behind job " + std::to_string(first->id) + " in ClusterQueue " + spec.name;
    return queue.strict_failed.reason.empty() ? "waiting for quota in ClusterQueue " + spec.name : queue.strict_failed.reason;
  }
  const auto shape = queue.shapes.find(shape_of(w));
  if (shape == queue.shapes.end() || shape->second.failed.reason.empty()) return "waiting for quota in ClusterQueue " + spec.name;
  return shape->second.failed.reason;
}

void KueueAdmission::admit_now(const QueuedWorkload& workload, int64_t admitted_ms, const std::vector<std::string>& flavors) {
  const ClusterQueueSpec& spec = queues_[static_cast<size_t>(workload.cluster_queue)];
  std::vector<std::pair<int, int64_t>> usage;
  size_t group_index = 0;
  for (const ResourceGroup& group : spec.groups) {
    const std::string& flavor = group_index < flavors.size() ? flavors[group_index] : group.flavors.front().flavor;
    ++group_index;
    for (const auto& [resource, amount] : workload.request)
      if (covers(group, tree_.resource_name(resource))) usage.emplace_back(tree_.fr(tree_.flavor(flavor), resource), amount);
  }
  for (const auto& [fr, amount] : usage) change_usage(workload.cluster_queue, fr, amount, admitted_ms);
  Admitted& a = admitted_[workload.id] = {
      workload.cluster_queue, workload.priority, workload.timestamp_ms, admitted_ms, ++admitted_count_, usage};
  if (fair_admission(workload.cluster_queue) && workload.local_queue >= 0) {
    a.local_queue = workload.local_queue;
    a.fair_usage = fair_usage_of(workload.request);
    change_held(a.local_queue, a.fair_usage, admitted_ms, true);
  }
  hold(workload.id, a);
}

void KueueAdmission::hold(uint32_t id, const Admitted& a) {
  admitted_by_queue_[static_cast<size_t>(a.cluster_queue)].insert(victim_key(id, a));
  if (fair_) ++usage_classes_[static_cast<size_t>(a.cluster_queue)][{a.priority, a.usage}];
}

void KueueAdmission::unhold(uint32_t id, const Admitted& a) {
  admitted_by_queue_[static_cast<size_t>(a.cluster_queue)].erase(victim_key(id, a));
  if (!fair_) return;
  auto& classes = usage_classes_[static_cast<size_t>(a.cluster_queue)];
  const auto it = classes.find({a.priority, a.usage});
  if (--it->second == 0) classes.erase(it);
}

}  // namespace topsim
