#include "reports/fill_report.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <numeric>

namespace topsim {
namespace {

using OrderedJson = nlohmann::ordered_json;

double rounded(double x) { return std::round(x * 1e6) / 1e6; }

// The runs of one policy (runs are policy-major, `seeds` per policy).
std::vector<const FillRun*> policy_runs(const FillResult& result, size_t policy) {
  const size_t seeds = static_cast<size_t>(result.scenario.seeds);
  std::vector<const FillRun*> runs;
  for (size_t i = policy * seeds; i < (policy + 1) * seeds && i < result.runs.size(); ++i) runs.push_back(&result.runs[i]);
  return runs;
}

template <class Field>
SeedStats final_stats(const std::vector<const FillRun*>& runs, Field field) {
  std::vector<double> values;
  for (const FillRun* run : runs) values.push_back(field(*run));
  return seed_stats(values);
}

OrderedJson stats_json(const SeedStats& s) {
  return OrderedJson{{"mean", rounded(s.mean)}, {"sd", rounded(s.sd)}, {"min", rounded(s.min)}, {"max", rounded(s.max)}};
}

template <class Field>
OrderedJson curve_json(const FillRun& run, Field field) {
  OrderedJson values = OrderedJson::array();
  for (const FillPoint& point : run.curve) values.push_back(rounded(field(point)));
  return values;
}

// Mean over seeds at each load point (every run has the same points).
template <class Field>
OrderedJson mean_curve_json(const std::vector<const FillRun*>& runs, Field field) {
  OrderedJson values = OrderedJson::array();
  if (runs.empty()) return values;
  for (size_t p = 0; p < runs.front()->curve.size(); ++p) {
    double sum = 0;
    for (const FillRun* run : runs) sum += field(run->curve[p]);
    values.push_back(rounded(sum / static_cast<double>(runs.size())));
  }
  return values;
}

const auto kAlloc = [](const FillPoint& p) { return p.gpu_alloc_ratio; };
const auto kFragRate = [](const FillPoint& p) { return p.frag_rate; };
const auto kFragGpus = [](const FillPoint& p) { return p.frag_gpus; };
const auto kUnusable = [](const FillPoint& p) { return p.unusable_gpus; };
const auto kIdleCards = [](const FillPoint& p) { return static_cast<double>(p.idle_cards); };
const auto kFailed = [](const FillPoint& p) { return static_cast<double>(p.pods_failed); };

OrderedJson run_json(const FillRun& run) {
  OrderedJson out;
  out["seed"] = run.seed;
  out["pods_arrived"] = run.pods_arrived;
  out["pods_placed"] = run.pods_placed;
  out["pods_failed"] = run.pods_failed;
  out["pods_rejected"] = run.pods_rejected;
  out["arrived_gpu_milli"] = run.arrived_milli;
  out["final"] = {{"gpu_alloc_ratio", rounded(run.final.gpu_alloc_ratio)}, {"frag_rate", rounded(run.final.frag_rate)},
                  {"frag_gpus", rounded(run.final.frag_gpus)}, {"unusable_gpus", rounded(run.final.unusable_gpus)},
                  {"idle_cards", run.final.idle_cards}};
  out["curve"] = {{"gpu_alloc_ratio", curve_json(run, kAlloc)}, {"frag_rate", curve_json(run, kFragRate)},
                  {"frag_gpus", curve_json(run, kFragGpus)}};
  return out;
}

OrderedJson policy_json(const FillResult& result, size_t policy, const FillPolicySummary& summary) {
  const std::vector<const FillRun*> runs = policy_runs(result, policy);
  OrderedJson out;
  out["policy"] = std::string(share_policy_name(summary.policy));
  out["final"] = {{"gpu_alloc_ratio", stats_json(summary.gpu_alloc_ratio)}, {"frag_rate", stats_json(summary.frag_rate)},
                  {"frag_gpus", stats_json(summary.frag_gpus)}, {"unusable_gpus", stats_json(summary.unusable_gpus)},
                  {"pods_failed", stats_json(summary.pods_failed)}};
  OrderedJson loads = OrderedJson::array();
  if (!runs.empty()) {
    for (const FillPoint& point : runs.front()->curve) loads.push_back(point.load_percent);
  }
  out["mean_curve"] = {{"load_percent", loads},
                       {"gpu_alloc_ratio", mean_curve_json(runs, kAlloc)},
                       {"frag_rate", mean_curve_json(runs, kFragRate)},
                       {"frag_gpus", mean_curve_json(runs, kFragGpus)},
                       {"unusable_gpus", mean_curve_json(runs, kUnusable)},
                       {"idle_cards", mean_curve_json(runs, kIdleCards)},
                       {"pods_failed", mean_curve_json(runs, kFailed)}};
  OrderedJson seeds = OrderedJson::array();
  for (const FillRun* run : runs) seeds.push_back(run_json(*run));
  out["runs"] = std::move(seeds);
  return out;
}

OrderedJson scenario_json(const FillScenario& s) {
  OrderedJson policies = OrderedJson::array();
  for (SharePolicyKind kind : s.policies) policies.push_back(std::string(share_policy_name(kind)));
  return OrderedJson{{"name", s.name},
                     {"description", s.description},
                     {"node_list", s.node_list_source},
                     {"pod_list", s.pod_list_source},
                     {"include_cpu_nodes", s.include_cpu_nodes},
                     {"policies", policies},
                     {"seeds", s.seeds},
                     {"seed", s.seed},
                     {"target_load", s.target_load},
                     {"workload_coverage", s.workload_coverage}};
}

std::string pm(const SeedStats& s, int decimals) {
  return fmt::format("{:.{}f} ± {:.{}f}", s.mean, decimals, s.sd, decimals);
}

}  // namespace

SeedStats seed_stats(const std::vector<double>& values) {
  SeedStats s;
  if (values.empty()) return s;
  const double n = static_cast<double>(values.size());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(squares / (n - 1));
  }
  return s;
}

std::vector<FillPolicySummary> summarize_fill(const FillResult& result) {
  std::vector<FillPolicySummary> out;
  for (size_t p = 0; p < result.scenario.policies.size(); ++p) {
    const std::vector<const FillRun*> runs = policy_runs(result, p);
    FillPolicySummary s;
    s.policy = result.scenario.policies[p];
    s.gpu_alloc_ratio = final_stats(runs, [](const FillRun& r) { return r.final.gpu_alloc_ratio; });
    s.frag_rate = final_stats(runs, [](const FillRun& r) { return r.final.frag_rate; });
    s.frag_gpus = final_stats(runs, [](const FillRun& r) { return r.final.frag_gpus; });
    s.pods_failed = final_stats(runs, [](const FillRun& r) { return static_cast<double>(r.pods_failed); });
    s.unusable_gpus = final_stats(runs, [](const FillRun& r) { return r.final.unusable_gpus; });
    out.push_back(s);
  }
  return out;
}

std::string render_fill_text(const FillResult& result) {
  const FillScenario& s = result.scenario;
  std::string out = fmt::format("fill experiment {}{}\n", s.name, s.description.empty() ? "" : ": " + s.description);
  out += fmt::format("  cluster: {} nodes, {} GPUs ({})\n", result.nodes, result.gpus, s.node_list_source);
  out += fmt::format("  pods: {} in {}, {} invalid; target workload: {} specs covering {:.0f}% of pods\n", result.pod_list_size,
                     s.pod_list_source, result.pods_invalid, result.workload_specs, 100 * s.workload_coverage);
  out += fmt::format("  protocol: pods drawn with replacement until {:.0f}% of GPU capacity has arrived, no departures, "
                     "{} seed{} ({}..{})\n\n",
                     100 * s.target_load, s.seeds, s.seeds == 1 ? "" : "s", s.seed, s.seed + static_cast<uint64_t>(s.seeds) - 1);
  out += fmt::format("{:<16}{:>22}{:>22}{:>20}{:>20}\n", "policy", "GPU alloc ratio", "frag rate", "frag GPUs", "failed pods");
  for (const FillPolicySummary& p : summarize_fill(result)) {
    out += fmt::format("{:<16}{:>22}{:>22}{:>20}{:>20}\n", share_policy_name(p.policy), pm(p.gpu_alloc_ratio, 4),
                       pm(p.frag_rate, 4), pm(p.frag_gpus, 1), pm(p.pods_failed, 1));
  }
  out += "\nfinal values after the last arrival, mean ± sample sd over seeds; GPU alloc ratio = allocated GPU share / "
         "capacity; frag = FGD fragmentation (USENIX ATC '23), rate = frag / unallocated GPU share\n";
  for (const std::string& reason : result.rejections) out += "  rejected at submission: " + reason + "\n";
  return out;
}

std::string render_fill_json(const FillResult& result) {
  OrderedJson root;
  root["mode"] = "fill";
  root["scenario"] = scenario_json(result.scenario);
  root["cluster"] = {{"nodes", result.nodes}, {"gpus", result.gpus}};
  root["pods"] = {{"list_size", result.pod_list_size}, {"invalid", result.pods_invalid},
                  {"workload_specs", result.workload_specs}, {"rejections", result.rejections}};
  OrderedJson policies = OrderedJson::array();
  const std::vector<FillPolicySummary> summaries = summarize_fill(result);
  for (size_t p = 0; p < summaries.size(); ++p) policies.push_back(policy_json(result, p, summaries[p]));
  root["policies"] = std::move(policies);
  return root.dump(2) + "\n";
}

}  // namespace topsim
