#include "plan/plan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "plan/plan_answer.h"
#include "plan/pooled_queue.h"
#include "plan/quota_moves.h"
#include "sim/experiment.h"
#include "sim/seeds.h"
#include "sim/target_workloads.h"
#include "sim/tenancy/gpu_quota.h"
#include "sim/workload/workload_mix.h"
#include "util/number_format.h"
#include "util/periodic_call.h"
#include "util/workers.h"

namespace topsim {
namespace {

// A metric whose larger cluster is worse than a smaller one by more than this share (and by
// more than kMonotoneSlack in its unit) is reported as non-monotone.
constexpr double kMonotoneShare = 0.05;
constexpr double kMonotoneSlack = 1e-6;

// A bound or a measured value in a sentence: whole numbers as they are, else 4 significant digits.
std::string figure(double v) {
  if (v == std::round(v) || std::abs(v) >= 1000) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

// The workload with its arrivals compressed by `growth` (1.5: half as many again per hour),
// durations unchanged. Submission order (and so job ids) stays.
std::shared_ptr<const Workload> scaled(const std::shared_ptr<const Workload>& workload, double growth) {
  if (growth == 1) return workload;
  auto out = std::make_shared<Workload>(*workload);
  change_jobs(*out, [growth](JobSpec& job) { job.submit_ms = std::llround(static_cast<double>(job.submit_ms) / growth); });
  out->source += fmt::format(" (load x{})", growth);
  return out;
}

bool worse(Better better, double larger, double smaller) {
  const double margin = std::max(kMonotoneSlack, kMonotoneShare * std::abs(smaller));
  if (better == Better::Lower) return larger > smaller + margin;
  if (better == Better::Higher) return larger < smaller - margin;
  return false;
}

class Planner {
 public:
  Planner(const PlanSpec& plan, bool check_invariants, bool early_stop, bool pooled_start = true)
      : plan_(plan),
        check_invariants_(check_invariants),
        early_stop_(early_stop),
        pooled_start_(pooled_start),
        probe_share_(best_probe_share(plan.base.seeds)),
        probe_share_first_(best_probe_share(1)) {
    for (const Slo& slo : plan.slos)
      if (slo.max && decidable_early(slo.metric)) stop_bounds_.push_back({slo.metric, *slo.max});
  }

  // The workloads of every growth step and seed, built once.
  Status prepare() {
    std::vector<std::shared_ptr<const Workload>> seeds{plan_.base.workload};
    for (int i = 1; i < plan_.base.seeds; ++i)
      seeds.push_back(plan_.base.workload_for_seed
                          ? std::make_shared<const Workload>(plan_.base.workload_for_seed(run_seed(plan_.base.seed, i)))
                          : plan_.base.workload);
    for (double g : plan_.growth) {
      std::vector<std::shared_ptr<const Workload>> step;
      for (const auto& w : seeds) step.push_back(scaled(w, g));
      workloads_.push_back(std::move(step));
    }
    return {};
  }

  // The seeds of one size replayed so far: the sums of the metrics of those replayed to their
  // end (PlanEvaluation::metrics is their mean) and which seed missed first.
  struct SeedProgress {
    std::map<std::string, double> sums;
    int full_runs = 0;
    int failed_index = -1;  // the index (0: the plan's seed) of the first seed that missed; -1: none
  };

  // Replays seeds [e.seeds_run, upto) of `scenario` in order; with early_stop, up to the first
  // that misses an SLO and each replay only until its verdict is decided.
  Status replay_seeds(PlanEvaluation& e, SeedProgress& progress, const Scenario& scenario, const ChainKey& key, int upto,
                      RunMonitor* monitor, bool early_stop) const {
    for (int i = e.seeds_run; i < upto && !(early_stop && e.failed_seed); ++i) {
      auto run = replay(scenario, key, i, monitor, early_stop);
      if (!run) return run.error();
      ++e.seeds_run;
      if (run->decided) {
        record_decision(e, *run->decided, run->seed);
        progress.failed_index = i;
        continue;
      }
      ++progress.full_runs;
      std::map<std::string, double> metrics;
      for (const Metric& m : run->metrics.all()) metrics[m.name] = m.value, progress.sums[m.name] += m.value;
      if (e.failed_seed) continue;
      e.unmet = judge(metrics, run->seed);
      if (!e.unmet.empty()) e.failed_seed = run->seed, progress.failed_index = i;
    }
    e.metrics.clear();
    for (const auto& [name, sum] : progress.sums) e.metrics[name] = sum / progress.full_runs;
    e.feasible = e.unmet.empty();
    e.first_seed_only = e.feasible && e.seeds_run < plan_.base.seeds;
    return {};
  }

  // One size, every seed (replay_seeds). `quotas`: a quota plan's split (QuotaSearch::tenants order).
  Expected<PlanEvaluation> evaluate(const ChainKey& key, int units, RunMonitor* monitor, bool early_stop,
                                    const std::vector<int64_t>& quotas = {}) const {
    PlanEvaluation e;
    SeedProgress progress;
    const Scenario scenario = sized(key, units, quotas, e);
    if (Status s = replay_seeds(e, progress, scenario, key, plan_.base.seeds, monitor, early_stop); !s) return s.error();
    return e;
  }

  // `start`: the units where the search starts looking for the first seed's boundary (the answer
  // of the chain before it in its group); none: from one unit.
  Expected<PlanChain> search(size_t index, const ChainKey& key, RunMonitor* monitor, std::atomic<size_t>& evaluations,
                             std::optional<int> start = std::nullopt) const {
    if (plan_.quota) return search_quota(index, key, monitor, evaluations);
    const PlanCandidate& candidate = plan_.candidates[key.candidate];
    PlanChain chain = new_chain(index, key);
    if (!candidate.cannot_run.empty()) {
      chain.notes.push_back("not searched: " + candidate.cannot_run);
      return chain;
    }
    int max_units = plan_.max_nodes / candidate.nodes_per_unit;
    if (plan_.max_cost_per_hour)
      max_units =
          std::min(max_units, static_cast<int>(std::floor(*plan_.max_cost_per_hour / candidate.cost_per_unit_hour + 1e-9)));
    if (max_units < 1) {
      chain.notes.push_back("one unit (" + std::to_string(candidate.nodes_per_unit) + " nodes) is beyond the bounds");
      return chain;
    }
    // A size's seeds are replayed as the search needs them: the first seed alone while the
    // search looks for the first seed's boundary, every seed where it checks an answer.
    struct Probe {
      size_t evaluation = 0;  // into chain.evaluations
      SeedProgress progress;
    };
    std::map<int, Probe> at;  // units -> its probe
    auto probe = [&](int units, int seeds) -> Expected<const Probe*> {
      auto it = at.find(units);
      if (it == at.end()) {
        PlanEvaluation e;
        sized(key, units, {}, e);
        it = at.emplace(units, Probe{chain.evaluations.size(), {}}).first;
        chain.evaluations.push_back(std::move(e));
        ++evaluations;
      }
      PlanEvaluation& e = chain.evaluations[it->second.evaluation];
      if (e.seeds_run < seeds && !(early_stop_ && e.failed_seed)) {
        const bool failed_before = e.failed_seed.has_value();
        PlanEvaluation size;  // sized() fills in a size's figures: e has them already
        const Scenario scenario = sized(key, units, {}, size);
        if (Status s = replay_seeds(e, it->second.progress, scenario, key, seeds, monitor, early_stop_); !s) return s.error();
        if (!failed_before) note_seeds(chain, e);
      }
      return &it->second;
    };
    auto meets_first_seed = [&](int units) -> Expected<bool> {
      auto p = probe(units, 1);
      if (!p) return p.error();
      return (*p)->progress.failed_index != 0;
    };
    auto meets_every_seed = [&](int units) -> Expected<bool> {
      auto p = probe(units, plan_.base.seeds);
      if (!p) return p.error();
      return chain.evaluations[(*p)->evaluation].feasible;
    };
    // The first seed's boundary: a bracket (a size that misses, 0 for none, and one that meets,
    // 0 for none), then bisection between them, each probe nearer the miss (split()). From one
    // unit the bracket comes by doubling up to the bound; from a start, by steps of 1, 2, 4, ...
    // away from it, up while sizes miss and down while they meet: the chain before it in the group
    // (another scheduler, same nodes and load) usually needs within a few units of the same size.
    // The first chain of a group starts where the cluster as one pool would meet the SLOs
    // (pooled_estimate), when that can be judged; from one unit only when it cannot.
    int miss = 0, hit = 0;
    if (!start) start = pooled_estimate(key, max_units);
    if (start && *start >= 1 && *start <= max_units) {
      auto ok = meets_first_seed(*start);
      if (!ok) return ok.error();
      (*ok ? hit : miss) = *start;
      for (int step = 1; hit == 0 ? miss < max_units : hit > 1; step *= 2) {
        const int units = hit == 0 ? std::min(miss + step, max_units) : std::max(hit - step, 1);
        auto meets = meets_first_seed(units);
        if (!meets) return meets.error();
        if (hit == 0 && *meets) {
          hit = units;
          break;
        }
        if (hit != 0 && !*meets) {
          miss = units;
          break;
        }
        (hit == 0 ? miss : hit) = units;
      }
    } else {
      for (int units = 1;; units = std::min(2 * units, max_units)) {
        auto ok = meets_first_seed(units);
        if (!ok) return ok.error();
        if (*ok) {
          hit = units;
          break;
        }
        miss = units;
        if (units == max_units) break;
      }
    }
    while (hit - miss > 1) {
      const int mid = split(miss, hit, probe_share_first_);
      auto ok = meets_first_seed(mid);
      if (!ok) return ok.error();
      (*ok ? hit : miss) = mid;
    }
    // Every seed: the first seed's boundary usually holds; where a later seed misses there, the
    // answer lies above it: steps of 1, 2, 4, ... above the miss, or the next size the first
    // seed met where that is nearer, then bisection on every seed. Seeds disagree near the
    // boundary, so the answer is rarely far above it. A size that misses the first seed misses
    // them all.
    for (int step = 1; hit != 0; step *= 2) {
      auto ok = meets_every_seed(hit);
      if (!ok) return ok.error();
      if (*ok) break;
      miss = hit;
      auto next = at.upper_bound(miss);
      while (next != at.end() && next->second.progress.failed_index == 0) ++next;
      const int stepped = miss < max_units ? std::min(miss + step, max_units) : 0;
      hit = next != at.end() && (stepped == 0 || next->first <= stepped) ? next->first : stepped;
    }
    if (hit == 0) {
      chain.notes.push_back(
          fmt::format("no size up to the bounds meets the SLOs (largest tried: {} nodes)", max_units * candidate.nodes_per_unit));
    } else {
      while (hit - miss > 1) {
        const int mid = split(miss, hit, probe_share_);
        auto ok = meets_every_seed(mid);
        if (!ok) return ok.error();
        (*ok ? hit : miss) = mid;
      }
      chain.answer = at[hit].evaluation;
      // The search assumes more nodes never hurt: one size up must meet the SLOs too.
      if (hit + 1 <= max_units) {
        auto ok = meets_every_seed(hit + 1);
        if (!ok) return ok.error();
      }
    }
    check_monotone(chain);
    return chain;
  }

 private:
  // Where to probe between a size that misses and one that meets. A size that meets costs every
  // seed replayed to its end; one that misses, its first seed only, stopped once decided: about
  // kMissCost of a whole replay next to the answer (plan-philly, 3 seeds: the sizes that missed
  // within 5% of the answer took 0.19-0.41 s, a whole replay 0.40 s). With those costs a probe at
  // share p of the gap (from the miss) buys its bit of the answer's place at
  // (p x seeds + (1 - p) x kMissCost) / H(p) replays (H: the binary entropy, as the probe meets
  // with probability p when the answer lies anywhere in the gap): the p below minimises it (0.5
  // would be plain bisection, best only when both outcomes cost the same). Only the order of the
  // probes changes: on a chain where more nodes never hurt, the answer is the same. (The same
  // share with early stop off, so that both search the same sizes.)
  static int split(int miss, int hit, double share) {
    const int step = static_cast<int>(std::lround(share * (hit - miss)));
    return miss + std::clamp(step, 1, hit - miss - 1);
  }

  static double best_probe_share(int seeds) {
    constexpr double kMissCost = 0.6;
    double best = 0.5, best_cost = HUGE_VAL;
    for (int percent = 5; percent <= 50; ++percent) {
      const double p = percent / 100.0;
      const double entropy = -(p * std::log(p) + (1 - p) * std::log(1 - p));
      const double cost = (p * seeds + (1 - p) * kMissCost) / entropy;
      if (cost < best_cost) best = p, best_cost = cost;
    }
    return best;
  }

  // Where a search with nothing to start from starts: the fewest units whose GPUs, as one pool,
  // meet the wait and JCT SLOs with every job at its ideal run time on the candidate's node type
  // (plan/pooled_queue.h), on the first seed; none for a mix of node types or SLOs the pool
  // cannot judge, or when even the bound's pool misses.
  std::optional<int> pooled_estimate(const ChainKey& key, int max_units) const {
    const Workload& workload = *workloads_[key.growth].front();
    // A job's tenant is the queue it names, unless ClusterQueues admit it (sim/tenancy/): then
    // the pool, which has no quotas, does not judge a tenant's SLOs.
    const std::vector<std::string> tenants = plan_.base.tenancy ? std::vector<std::string>{} : workload.queue_names;
    if (!pooled_start_ || !pooled_judges(plan_.slos, tenants)) return std::nullopt;
    const PlanCandidate& candidate = plan_.candidates[key.candidate];
    if (candidate.types.size() != 1) return std::nullopt;
    PlanEvaluation size;
    const std::vector<PooledJob> jobs = pooled_jobs(sized(key, 1, {}, size), workload, &caches_);
    const int64_t gpus =
        candidate.parts.front() * static_cast<int64_t>(plan_.node_types[candidate.types.front()].group.model.gpus.size());
    const auto units = pooled_units(jobs, gpus * kMilliPerGpu, plan_.slos, tenants, 0, max_units + 1);
    return units && *units <= max_units ? units : std::nullopt;
  }

  PlanChain new_chain(size_t index, const ChainKey& key) const {
    PlanChain chain;
    chain.index = index;
    chain.key = key;
    chain.scheduler = plan_.base.schedulers[key.scheduler];
    chain.candidate = plan_.candidates[key.candidate].name;
    chain.growth = plan_.growth[key.growth];
    return chain;
  }

  // A quota plan's search (docs/planning.md): from the folder's split, each step moves
  // step_gpus from the team with the most slack to the team furthest from its SLOs, until a
  // split meets every SLO, no move is left, or max_evaluations splits were replayed. Seeds run
  // to the end (no early stop): the next move reads every team's metrics.
  Expected<PlanChain> search_quota(size_t index, const ChainKey& key, RunMonitor* monitor,
                                   std::atomic<size_t>& evaluations) const {
    const QuotaSearch& q = *plan_.quota;
    PlanChain chain = new_chain(index, key);
    std::vector<int64_t> split = q.start;
    std::set<std::vector<int64_t>> seen{split};
    while (true) {
      auto e = evaluate(key, 1, monitor, false, split);
      if (!e) return e.error();
      ++evaluations;
      chain.evaluations.push_back(std::move(e).value());
      const PlanEvaluation& last = chain.evaluations.back();
      note_seeds(chain, last);
      if (last.feasible) {
        chain.answer = chain.evaluations.size() - 1;
        break;
      }
      if (static_cast<int>(chain.evaluations.size()) >= q.max_evaluations) {
        chain.notes.push_back(
            fmt::format("no split meeting every SLO within {} splits evaluated (max_evaluations)", q.max_evaluations));
        break;
      }
      std::string why;
      if (!next_quota_split(q, plan_.slos, last, split, seen, why)) {
        chain.notes.push_back(why);
        break;
      }
      seen.insert(split);
    }
    return chain;
  }

  // The SLOs one seed's metrics miss, each with the seed named when the plan has several.
  std::vector<std::string> judge(const std::map<std::string, double>& metrics, uint64_t seed) const {
    std::vector<std::string> unmet;
    const double never = metrics.count("never_placed") ? metrics.at("never_placed") : 0;
    const double stuck = metrics.count("stuck") ? metrics.at("stuck") : 0;
    if (never > 0 || stuck > 0)
      unmet.push_back(fmt::format("{} ({} never placed, {} stuck)", kAllFinish, figure(never), figure(stuck)));
    for (const Slo& slo : plan_.slos) {
      const auto it = metrics.find(slo.metric);
      if (it != metrics.end()) {
        if (!slo.met_by(it->second)) unmet.push_back(slo.describe() + " (got " + figure(it->second) + ")");
      } else if (const auto why = slo.unmeasured(metrics)) {
        unmet.push_back(slo.describe() + " (not measured: " + *why + ")");
      }
    }
    for (std::string& u : unmet) u += on_seed(seed);
    return unmet;
  }

  std::string on_seed(uint64_t seed) const { return plan_.base.seeds > 1 ? " on seed " + std::to_string(seed) : ""; }

  void record_decision(PlanEvaluation& e, const RunDecision& d, uint64_t seed) const {
    e.decided = PlanDecision{Slo{d.bound.metric, std::nullopt, d.bound.max}.describe(), seed,
                             static_cast<double>(d.at_ms) / 1000.0, d.jobs_done, d.jobs};
    e.unmet = {fmt::format("fails {} (decided at {} h, {} of {} jobs){}", e.decided->slo, figure(e.decided->at_s / 3600),
                           format_count(static_cast<long long>(d.jobs_done)), format_count(static_cast<long long>(d.jobs)),
                           on_seed(seed))};
    e.failed_seed = seed;
  }

  // The scenario of `units` of the chain's candidate under its scheduler, with a quota plan's
  // split; fills in e's size.
  Scenario sized(const ChainKey& key, int units, const std::vector<int64_t>& quotas, PlanEvaluation& e) const {
    const PlanCandidate& candidate = plan_.candidates[key.candidate];
    Scenario scenario = plan_.base;
    if (!quotas.empty()) {
      auto tenancy = std::make_shared<TenancySpec>(*plan_.base.tenancy);
      for (size_t t = 0; t < quotas.size(); ++t) set_gpu_quota(tenancy->queues, plan_.quota->tenants[t], quotas[t]);
      scenario.tenancy = std::move(tenancy);
      e.quotas = quotas;
    }
    scenario.cluster.groups.clear();
    e.units = units;
    for (size_t i = 0; i < candidate.types.size(); ++i) {
      NodeGroupSpec group = plan_.node_types[candidate.types[i]].group;
      group.count = units * candidate.parts[i];
      e.gpus += group.count * static_cast<int>(group.model.gpus.size());
      scenario.cluster.groups.push_back(std::move(group));
    }
    e.nodes = units * candidate.nodes_per_unit;
    e.cost_per_hour = units * candidate.cost_per_unit_hour;
    e.watts = units * candidate.watts_per_unit;
    // Hot spares beside the size: bought and powered, held idle until a node fails.
    if (const PlanNodeType& type = plan_.node_types[candidate.types.front()]; candidate.types.size() == 1 && type.spares > 0) {
      scenario.cluster.groups.front().count += type.spares;
      e.gpus += type.spares * static_cast<int>(type.group.model.gpus.size());
      e.nodes += type.spares;
      e.cost_per_hour += type.spares * type.cost_per_node_hour;
      if (e.watts > 0) e.watts += type.spares * type.watts;
      auto failures = std::make_shared<FailureSpec>(*plan_.base.failures);
      failures->spares = SpareSpec{type.spares, "", -1};
      scenario.failures = std::move(failures);
    }
    scenario.schedulers = {plan_.base.schedulers[key.scheduler]};
    return scenario;
  }

  // The replay of seed index `seed` of the plan's seeds.
  Expected<RunResult> replay(Scenario scenario, const ChainKey& key, int seed, RunMonitor* monitor, bool early_stop) const {
    scenario.seed = run_seed(plan_.base.seed, seed);
    scenario.seeds = 1;
    ExperimentOptions options;
    options.keep_jobs = false;
    options.workloads = {workloads_[key.growth][static_cast<size_t>(seed)]};
    options.monitor = monitor;
    options.check_invariants = check_invariants_;
    if (early_stop) options.stop_when = stop_bounds_;
    options.targets = &targets_;
    options.caches = &caches_;
    auto results = run_experiment(scenario, options);
    if (!results) return results.error();
    return std::move(results->schedulers.front().runs.front());
  }

  // A size where the seeds disagree: those before the one that missed met every SLO.
  void note_seeds(PlanChain& chain, const PlanEvaluation& e) const {
    if (!e.failed_seed || *e.failed_seed == plan_.base.seed) return;
    const uint64_t met = *e.failed_seed - plan_.base.seed;  // seeds are consecutive (sim/seeds.h)
    const std::string seeds = met == 1 ? fmt::format("seed {} meets", plan_.base.seed)
                                       : fmt::format("seeds {} to {} meet", plan_.base.seed, *e.failed_seed - 1);
    chain.notes.push_back(fmt::format("seeds differ at {} nodes: {} the SLOs, seed {} does not", e.nodes, seeds, *e.failed_seed));
  }

  // Notes where a larger cluster did worse: a feasible size below an infeasible one, or an SLO
  // metric clearly worse at a larger size.
  void check_monotone(PlanChain& chain) const {
    std::vector<const PlanEvaluation*> by_size;
    for (const PlanEvaluation& e : chain.evaluations) by_size.push_back(&e);
    std::sort(by_size.begin(), by_size.end(), [](auto* a, auto* b) { return a->units < b->units; });
    for (size_t i = 0; i < by_size.size(); ++i)
      for (size_t j = i + 1; j < by_size.size(); ++j)
        if (by_size[i]->feasible && !by_size[j]->feasible) {
          chain.notes.push_back(fmt::format("non-monotone: {} nodes meet the SLOs, {} nodes do not ({})", by_size[i]->nodes,
                                            by_size[j]->nodes, by_size[j]->unmet.front()));
          i = by_size.size();
          break;
        }
    for (const Slo& slo : plan_.slos) {
      const Better better = find_metric(slo.metric)->better;
      for (size_t i = 0; i + 1 < by_size.size(); ++i) {
        const auto a = by_size[i]->metrics.find(slo.metric), b = by_size[i + 1]->metrics.find(slo.metric);
        if (a == by_size[i]->metrics.end() || b == by_size[i + 1]->metrics.end()) continue;
        if (worse(better, b->second, a->second))
          chain.notes.push_back(fmt::format("non-monotone: {} is {} at {} nodes, {} at {} nodes", slo.metric, figure(a->second),
                                            by_size[i]->nodes, figure(b->second), by_size[i + 1]->nodes));
      }
    }
  }

  const PlanSpec& plan_;
  bool check_invariants_ = false, early_stop_ = true, pooled_start_ = true;
  double probe_share_ = 0.5;            // split(): where between a miss and a hit the next probe goes, every seed
  double probe_share_first_ = 0.5;      // the same for the first seed alone
  std::vector<StopBound> stop_bounds_;  // the SLOs a replay can lose before it ends
  std::vector<std::vector<std::shared_ptr<const Workload>>> workloads_;  // [growth][seed]
  // FGD's target workload of each workload and scheduler, derived once for all the replays
  // (thread-safe; workloads_ outlive it).
  mutable TargetWorkloads targets_;
  // Each worker thread's node types and fragmentation memos, kept for all its replays.
  mutable ThreadCaches caches_;
};

}  // namespace

std::string Slo::describe() const {
  if (min && max) return metric + " in [" + figure(*min) + ", " + figure(*max) + "]";
  if (max) return metric + " <= " + figure(*max);
  return metric + " >= " + figure(min.value_or(0));
}

bool Slo::met_by(double value) const { return (!min || value >= *min) && (!max || value <= *max); }

std::optional<std::string> Slo::unmeasured(const std::map<std::string, double>& metrics) const {
  const MetricInfo* info = find_metric(metric);
  if (info == nullptr) return "not measured in this run";
  if (info->needs == MetricNeeds::TopologyAware) return std::nullopt;
  if (const size_t at = metric.find('@'); at != std::string::npos) {
    const std::string tenant = metric.substr(at + 1);
    const auto jobs = metrics.find("jobs@" + tenant);
    if (jobs == metrics.end() || jobs->second <= 0) return std::nullopt;
    return fmt::format("none of tenant {}'s {} {} finished", tenant, figure(jobs->second), jobs->second == 1 ? "job" : "jobs");
  }
  // The catalog says when the metric is absent: "(absent when none finished)".
  const std::string_view said = info->description;
  const size_t from = said.find("(absent when ");
  if (from == std::string_view::npos) return "not measured in this run";
  const size_t begin = from + std::string_view("(absent when ").size();
  return "of the jobs it covers, " + std::string(said.substr(begin, said.find(')', begin) - begin));
}

const PlanEvaluation* PlanChain::largest() const {
  const PlanEvaluation* out = nullptr;
  for (const PlanEvaluation& e : evaluations)
    if (!out || e.units > out->units) out = &e;
  return out;
}

const PlanEvaluation* PlanChain::margin() const {
  const PlanEvaluation* answer_at = best();
  if (!answer_at) return nullptr;
  const PlanEvaluation* out = nullptr;
  for (const PlanEvaluation& e : evaluations)
    if (e.units < answer_at->units && (!out || e.units > out->units)) out = &e;
  return out;
}

PlanInfo plan_info(const PlanSpec& plan) {
  PlanInfo info;
  info.name = plan.name;
  info.description = plan.description;
  info.source = plan.source;
  info.fingerprint = plan.fingerprint;
  info.workload = plan.base.workload->source;
  info.model_mix = describe_mix_limits(mix_llm_limits(*plan.base.workload));
  info.jobs = plan.base.workload->size();
  info.seed = plan.base.seed;
  info.seeds = plan.base.seeds;
  info.schedulers = plan.base.schedulers;
  info.growth = plan.growth;
  for (const PlanCandidate& c : plan.candidates) {
    PlanInfo::Candidate out{c.name, c.nodes_per_unit, 0, c.cost_per_unit_hour, c.watts_per_unit, {}};
    for (size_t i = 0; i < c.types.size(); ++i) {
      const PlanNodeType& type = plan.node_types[c.types[i]];
      out.gpus_per_unit += c.parts[i] * static_cast<int>(type.group.model.gpus.size());
      out.parts.emplace_back(type.name, c.parts[i]);
      if (c.types.size() == 1) out.spares = type.spares;
    }
    info.candidates.push_back(std::move(out));
  }
  info.slos = plan.slos;
  info.max_nodes = plan.max_nodes;
  info.max_cost_per_hour = plan.max_cost_per_hour;
  info.chains = plan_chains(plan).size();
  info.quota = plan.quota;
  return info;
}

std::vector<ChainKey> plan_chains(const PlanSpec& plan) {
  std::vector<ChainKey> chains;
  for (size_t g = 0; g < plan.growth.size(); ++g)
    for (size_t s = 0; s < plan.base.schedulers.size(); ++s)
      for (size_t c = 0; c < plan.candidates.size(); ++c) chains.push_back({s, c, g});
  return chains;
}

size_t plan_group_of(const ChainKey& key, size_t schedulers, size_t candidates, bool quota) {
  const size_t group = key.growth * candidates + key.candidate;
  return quota ? group * schedulers + key.scheduler : group;  // a quota search has no size to start from: alone
}

std::vector<std::vector<size_t>> plan_groups(const PlanSpec& plan) {
  const size_t schedulers = plan.base.schedulers.size(), candidates = plan.candidates.size();
  const std::vector<ChainKey> keys = plan_chains(plan);
  std::vector<std::vector<size_t>> groups(plan.growth.size() * candidates * (plan.quota ? schedulers : 1));
  for (size_t s = 0; s < schedulers; ++s)  // each group's chains in scheduler order
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i].scheduler == s) groups[plan_group_of(keys[i], schedulers, candidates, plan.quota.has_value())].push_back(i);
  return groups;
}

std::vector<size_t> plan_shard(const std::vector<std::vector<size_t>>& groups, size_t index, size_t count) {
  std::vector<size_t> mine;
  for (size_t i = index; i < groups.size(); i += count) mine.insert(mine.end(), groups[i].begin(), groups[i].end());
  std::sort(mine.begin(), mine.end());
  return mine;
}

Expected<PlanEvaluation> evaluate_plan_size(const PlanSpec& plan, const ChainKey& chain, int units, bool early_stop) {
  Planner planner(plan, invariants_on_by_default(), early_stop);
  if (Status s = planner.prepare(); !s) return s.error();
  return planner.evaluate(chain, units, nullptr, early_stop);
}

Expected<PlanResult> run_plan(const PlanSpec& plan, const PlanRunOptions& options) {
  Planner planner(plan, options.check_invariants, options.early_stop, options.pooled_start);
  if (Status s = planner.prepare(); !s) return s.error();
  const std::vector<ChainKey> keys = plan_chains(plan);
  std::vector<size_t> to_run;
  if (options.chains) {
    to_run = *options.chains;
    for (size_t c : to_run)
      if (c >= keys.size())
        return Error{"search " + std::to_string(c) + " is not one of the plan's " + std::to_string(keys.size())};
  } else {
    for (size_t i = 0; i < keys.size(); ++i) to_run.push_back(i);
  }
  PlanResult result;
  result.info = plan_info(plan);
  result.chains.resize(to_run.size());
  // The groups to run: each plan group's chains that run, in scheduler order (positions in to_run).
  std::vector<std::vector<size_t>> groups;
  for (const std::vector<size_t>& group : plan_groups(plan)) {
    std::vector<size_t> here;
    for (size_t chain : group)
      if (const auto at = std::find(to_run.begin(), to_run.end(), chain); at != to_run.end())
        here.push_back(static_cast<size_t>(at - to_run.begin()));
    if (!here.empty()) groups.push_back(std::move(here));
  }
  std::vector<std::optional<Error>> errors(to_run.size());
  std::atomic<size_t> next{0}, done{0}, evaluations{0};
  RunMonitor monitor;
  std::mutex call_mutex;
  auto worker = [&] {
    for (size_t g = next++; g < groups.size(); g = next++) {
      std::optional<int> from;  // the answer of the chain before, in units
      for (size_t t : groups[g]) {
        const auto start = std::chrono::steady_clock::now();
        auto chain =
            planner.search(to_run[t], keys[to_run[t]], &monitor, evaluations, options.start_from_group ? from : std::nullopt);
        ++done;
        if (!chain) {
          errors[t] = chain.error();
          from.reset();
          continue;
        }
        result.chains[t] = std::move(chain).value();
        from = result.chains[t].best() ? std::optional<int>(result.chains[t].best()->units) : std::nullopt;
        if (!options.chain_done) continue;
        std::lock_guard<std::mutex> lock(call_mutex);
        options.chain_done(result.chains[t], std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
  };
  const auto start = std::chrono::steady_clock::now();
  std::function<void(bool)> tick;
  if (options.live)
    tick = [&](bool finished) {
      const PlanProgress p{done,
                           to_run.size(),
                           evaluations,
                           monitor.events,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                           finished};
      std::lock_guard<std::mutex> lock(call_mutex);
      options.live(p);
    };
  {
    const PeriodicCall ticker(std::move(tick), options.live_every_s);
    run_workers(options.threads, groups.size(), worker);
  }
  for (const auto& error : errors)
    if (error) return *error;
  return result;
}

}  // namespace topsim
