// Capacity planning (`topsim plan`, docs/planning.md): for every scheduler x candidate (a node
// type, or a mix of types) x growth step of a plan, the smallest cluster that meets every SLO,
// found by a bracket (doubling from one unit, or steps away from where the search before it in
// its group ended) then bisection on the number of candidate units, each size a replay of the
// plan's workload (its arrivals compressed by the growth factor) through run_experiment.
//
// One such search is a chain. The chains of one growth step and candidate (one per scheduler)
// make a group: they run one after another, each starting where the one before found its answer
// (plan_groups). Groups are independent, so they run on threads, and a shard of a sharded plan
// runs a deterministic subset of them (plan_shard). A PlanResult holds every evaluated size of
// every chain it ran with its metrics (the mean over seeds).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/invariants.h"
#include "sim/metrics.h"
#include "sim/scenario.h"
#include "util/expected.h"

namespace topsim {

// Seeds a plan replays each size with unless its file sets "seeds"; a size meets the SLOs when
// every seed's replay meets them.
inline constexpr int kPlanSeeds = 3;

inline constexpr double kHoursPerMonth = 730;  // 8,760 hours a year / 12

struct PlanNodeType {
  std::string name;  // what mixes and reports call it; default: the model's name
  NodeGroupSpec group;
  double cost_per_node_hour = 0;
  double watts = 0;   // per node; 0 = not given
  bool alone = true;  // a candidate on its own
  int spares = 0;     // hot spares held beside every size of it (the plan's "failures"; SpareSpec)
  // Why a job of the workload cannot run on it, however many (scenario/scenario_loader.h
  // jobs_unrunnable_on); "" when every job can. A mix with it is searched when every job runs on
  // one of the mix's types (PlanCandidate::cannot_run).
  std::string cannot_run;
};

// A candidate: `parts[i]` nodes of node type `types[i]` make one unit; the search scales units.
struct PlanCandidate {
  std::string name;  // "dgx-a100", or "2 dgx-a100 + 1 hgx-h100"
  std::vector<size_t> types;
  std::vector<int> parts;
  int nodes_per_unit = 0;
  double cost_per_unit_hour = 0;
  double watts_per_unit = 0;  // 0 = unknown (some node type in it gives no watts)
  // Why a job of the workload can run on none of its node types (jobs_unrunnable_on), "" when each
  // can run on one of them (a mix keeps a job off the types it cannot run on). Not searched when set.
  std::string cannot_run;
};

// A bound on one metric (full name, sim/metrics.h); either or both sides.
struct Slo {
  std::string metric;
  std::optional<double> min, max;
  std::string describe() const;  // "wait_s.p95 <= 600"
  bool met_by(double value) const;
  // When its metric is absent from a run's `metrics`: why it could not be measured there, which
  // misses the SLO ("none of tenant b's 2 jobs finished"), or nullopt when the SLO does not apply
  // to that run (a placement metric under a scheduler serving no topology-aware nodes; a tenant
  // with no job).
  std::optional<std::string> unmeasured(const std::map<std::string, double>& metrics) const;
};

// A quota plan (docs/planning.md, "Splitting quota between teams"): the scenario's cluster and
// queues stay, and the search moves GPU quota between tenants until each meets its SLOs.
struct QuotaSearch {
  std::vector<std::string> tenants;  // whose GPU quota moves (sim/tenancy/gpu_quota.h), in the folder's order
  std::vector<int64_t> start;        // their GPU quota in the folder
  std::vector<int64_t> floor;        // the least each keeps: its largest job's GPUs (its jobs stay admissible), at least 0
  int64_t step_gpus = 8;             // GPUs moved at a time; default 8
  int max_evaluations = 32;          // splits evaluated per search at most; default 32
};

struct PlanSpec {
  std::string name, description;
  std::string source;             // the plan file's name
  uint64_t fingerprint = 0;       // of the plan's content and of every file it reads (load_plan):
                                  // shards and parts of one plan on the same inputs share it
  Scenario base;                  // workload, network, queue, seeds, schedulers of every evaluation
  std::vector<double> growth{1};  // load multipliers; default {1}
  std::vector<PlanNodeType> node_types;
  std::vector<PlanCandidate> candidates;
  std::vector<Slo> slos;
  int max_nodes = 1024;
  std::optional<double> max_cost_per_hour;
  std::optional<QuotaSearch> quota;  // a quota plan: one candidate, the scenario's cluster, at 1 unit
};

// The metrics an SLO can bound: every per-run metric of sim/metrics.h (not the fill curves).
std::vector<std::string> slo_metric_names();

// A file that is another input (a scenario, manifests, ...) fails with what it is and where it goes
// (scenario/other_inputs.h).
[[nodiscard]] Expected<PlanSpec> load_plan(const std::string& path);
[[nodiscard]] Expected<PlanSpec> parse_plan(std::string_view text, std::string_view source, const std::string& base_dir);

// One search: its place in the plan's canonical order is its index.
struct ChainKey {
  size_t scheduler = 0, candidate = 0, growth = 0;
};
std::vector<ChainKey> plan_chains(const PlanSpec& plan);  // growth-major, then scheduler, then candidate

// The plan's chains by growth step and candidate (growth-major), each group its chains in scheduler
// order: a later scheduler's search starts from the answer of the one before it (docs/planning.md,
// "Where a search starts"). A quota plan's chains are groups of one.
std::vector<std::vector<size_t>> plan_groups(const PlanSpec& plan);
// A chain's group (its index in plan_groups) from the plan's shape, for checking parts.
size_t plan_group_of(const ChainKey& key, size_t schedulers, size_t candidates, bool quota);

// The chains shard `index` of `count` runs, ascending: groups index, index + count, ... (round
// robin over plan_groups), so shards differ by at most one group, each gets a mix of candidates
// and growth steps, and a group's chains are never split.
std::vector<size_t> plan_shard(const std::vector<std::vector<size_t>>& groups, size_t index, size_t count);

// A size whose replay stopped once an SLO was lost for good (sim/verdict_watch.h).
struct PlanDecision {
  std::string slo;                   // "wait_s.p95 <= 600"
  uint64_t seed = 0;                 // the run seed of that replay
  double at_s = 0;                   // simulated seconds since the first submission
  uint64_t jobs_done = 0, jobs = 0;  // jobs whose record was final then, of the workload
};

// One size of a chain. It meets the SLOs when every seed's replay meets every SLO; the seeds run
// in order and stop at the first that misses (so `seeds_run` may be fewer than the plan's).
struct PlanEvaluation {
  int units = 0, nodes = 0, gpus = 0;
  double cost_per_hour = 0, watts = 0;
  bool feasible = false;
  // The SLOs the first missing seed misses, e.g. "wait_s.p95 <= 600 (got 1,234)", prefixed
  // "seed 8: " in plans of several seeds; a decided replay: "fails wait_s.p95 <= 600 (decided
  // at 41.2 h, 1,234 of 82,247 jobs)".
  std::vector<std::string> unmet;
  std::map<std::string, double> metrics;  // mean over the seeds replayed to the end (none: empty)
  std::vector<int64_t> quotas;            // a quota plan: each tenant's GPU quota (QuotaSearch::tenants order)
  int seeds_run = 0;                      // replays made, in seed order
  std::optional<uint64_t> failed_seed;    // the seed that missed (with !feasible)
  std::optional<PlanDecision> decided;    // that seed's replay stopped early
  // Met the SLOs on the seeds replayed, which were fewer than the plan's: a size above the answer
  // that the search needed on its first seed only (the answer and the size above it are replayed
  // on every seed).
  bool first_seed_only = false;
};

struct PlanChain {
  size_t index = 0;  // in plan_chains order
  ChainKey key;
  std::string scheduler, candidate;
  double growth = 1;
  std::vector<PlanEvaluation> evaluations;  // in the order they ran
  std::optional<size_t> answer;             // the smallest feasible size (into evaluations)
  std::vector<std::string> notes;           // non-monotone steps, bounds that stopped the search
  const PlanEvaluation* best() const { return answer ? &evaluations[*answer] : nullptr; }
  // The largest size evaluated (the nearest to feasible when there is no answer).
  const PlanEvaluation* largest() const;
  // The answer's margin: the largest size below the answer that was evaluated (it misses an SLO
  // when the chain is monotone); nullptr without an answer or when the answer is one unit.
  const PlanEvaluation* margin() const;
};

// What reports need to know about the plan, carried by results and shard parts (merging needs
// neither the plan's traces nor its node files).
struct PlanInfo {
  std::string name, description, source;
  uint64_t fingerprint = 0;
  std::string workload;   // e.g. "philly.csv"
  std::string model_mix;  // the jobs the model mix left its LLMs out of, in words (ScenarioInfo::model_mix); empty: none
  size_t jobs = 0;        // of the workload at growth 1, seed 0
  uint64_t seed = 1;
  int seeds = 1;
  std::vector<std::string> schedulers;
  std::vector<double> growth;
  struct Candidate {
    std::string name;
    int nodes_per_unit = 0, gpus_per_unit = 0;
    double cost_per_unit_hour = 0, watts_per_unit = 0;
    std::vector<std::pair<std::string, int>> parts;  // (node type, nodes per unit)
    int spares = 0;                                  // hot spares beside every size (PlanNodeType::spares)
  };
  std::vector<Candidate> candidates;
  std::vector<Slo> slos;
  int max_nodes = 0;
  std::optional<double> max_cost_per_hour;
  size_t chains = 0;  // in the whole plan
  std::optional<QuotaSearch> quota;
};
PlanInfo plan_info(const PlanSpec& plan);

struct PlanResult {
  PlanInfo info;
  std::vector<PlanChain> chains;  // ascending index; all of them, or one shard's
};

// The plan while it runs, for a live progress line (never part of the results).
struct PlanProgress {
  size_t chains_done = 0, chains = 0;
  size_t evaluations = 0;  // simulations finished
  uint64_t events = 0;     // events processed, finished and running simulations
  double elapsed_s = 0;
  bool finished = false;  // the last call
};

struct PlanRunOptions {
  int threads = 1;                                     // groups of chains at once; default 1
  bool check_invariants = invariants_on_by_default();  // in every replay (sim/invariants.h)
  // Which to run, ascending (none: all; empty: none). A chain starts from the answer of the chain
  // before it in its group only when that chain runs too (plan_shard keeps groups whole).
  std::optional<std::vector<size_t>> chains;
  // At the start, every live_every_s and at the end, from a thread of its own, one call at a
  // time (never at once with chain_done).
  std::function<void(const PlanProgress&)> live;
  double live_every_s = 0.5;
  // Stop a replay once its verdict cannot change (sim/verdict_watch.h); answers are the same
  // either way, only the metrics of sizes that miss are left out. Default true.
  bool early_stop = true;
  // A later scheduler's search starts from the answer of the one before it in its group; false:
  // every search starts from one unit. Answers are the same either way on chains where more nodes
  // never hurt; only the sizes tried differ. Default true.
  bool start_from_group = true;
  // A search from one unit probes first where the cluster as one pool of GPUs would meet the
  // wait and JCT SLOs (plan/pooled_queue.h), once it has a size that meets; false: bisection.
  // Answers are the same either way on chains where more nodes never hurt. Default true.
  bool pooled_start = true;
  // After each chain, from the thread that ran it, one call at a time.
  std::function<void(const PlanChain& chain, double wall_s)> chain_done;
};

// Runs the chains. Errors only for a workload that cannot be scaled or evaluated at all.
[[nodiscard]] Expected<PlanResult> run_plan(const PlanSpec& plan, const PlanRunOptions& options);

// The evaluation of one chain at `units` (exposed for the brute-force test).
[[nodiscard]] Expected<PlanEvaluation> evaluate_plan_size(const PlanSpec& plan, const ChainKey& chain, int units,
                                                          bool early_stop = true);

}  // namespace topsim
