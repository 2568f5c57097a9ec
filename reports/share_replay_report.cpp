#include "reports/share_replay_report.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace topsim {
namespace {

using OrderedJson = nlohmann::ordered_json;

double rounded(double x) { return std::round(x * 1e6) / 1e6; }

template <typename Field>
OrderedJson curve_values(const ShareReplayRun& run, Field field) {
  OrderedJson values = OrderedJson::array();
  for (const ShareReplaySample& sample : run.curve) values.push_back(field(sample));
  return values;
}

OrderedJson curve_json(const ShareReplayRun& run) {
  OrderedJson out;
  out["time_s"] = curve_values(run, [](const ShareReplaySample& s) { return s.time_s; });
  out["gpu_alloc_ratio"] = curve_values(run, [](const ShareReplaySample& s) { return rounded(s.gpu_alloc_ratio); });
  out["frag_gpus"] = curve_values(run, [](const ShareReplaySample& s) { return rounded(s.frag_gpus); });
  out["frag_rate"] = curve_values(run, [](const ShareReplaySample& s) { return rounded(s.frag_rate); });
  out["pending"] = curve_values(run, [](const ShareReplaySample& s) { return s.pending; });
  out["running"] = curve_values(run, [](const ShareReplaySample& s) { return s.running; });
  return out;
}

OrderedJson run_json(const ShareReplayRun& run) {
  const ShareReplaySummary summary = summarize_share_replay(run);
  OrderedJson out;
  out["policy"] = std::string(share_policy_name(run.policy));
  out["pods_placed"] = run.pods_placed;
  out["pods_rejected"] = run.pods_rejected;
  out["never_placed"] = run.never_placed;
  out["peak_pending"] = run.peak_pending;
  out["mean_wait_s"] = rounded(run.mean_wait_s);
  out["p95_wait_s"] = rounded(run.p95_wait_s);
  out["end_s"] = run.end_s;
  out["mean_gpu_alloc_ratio"] = rounded(summary.mean_alloc_ratio);
  out["mean_frag_rate"] = rounded(summary.mean_frag_rate);
  out["mean_frag_gpus"] = rounded(summary.mean_frag_gpus);
  out["peak_gpu_alloc_ratio"] = rounded(summary.peak_alloc_ratio);
  out["curve"] = curve_json(run);
  return out;
}

}  // namespace

ShareReplaySummary summarize_share_replay(const ShareReplayRun& run) {
  ShareReplaySummary summary;
  if (run.curve.empty()) return summary;
  for (const ShareReplaySample& s : run.curve) {
    summary.mean_alloc_ratio += s.gpu_alloc_ratio;
    summary.mean_frag_rate += s.frag_rate;
    summary.mean_frag_gpus += s.frag_gpus;
    summary.peak_alloc_ratio = std::max(summary.peak_alloc_ratio, s.gpu_alloc_ratio);
  }
  const auto n = static_cast<double>(run.curve.size());
  summary.mean_alloc_ratio /= n;
  summary.mean_frag_rate /= n;
  summary.mean_frag_gpus /= n;
  return summary;
}

std::string render_share_replay_text(const ShareReplayResult& result) {
  const ShareReplayScenario& s = result.scenario;
  std::string out = fmt::format("share-replay {}: {} nodes, {} GPUs, {} timed pods ({} without times skipped), sample every {} s\n",
                                s.name, result.nodes, result.gpus, result.pods, result.untimed_pods, s.sample_every_s);
  if (!s.description.empty()) out += s.description + "\n";
  if (!result.runs.empty() && !result.runs.front().curve.empty()) {
    const ShareReplayRun& run = result.runs.front();
    const int64_t span_s = run.end_s - run.curve.front().time_s;
    out += fmt::format("replayed span: {} s ({:.1f} days), {} samples\n", span_s, static_cast<double>(span_s) / 86400.0, run.curve.size());
  }
  out += fmt::format("\n{:<16}{:>14}{:>14}{:>13}{:>13}{:>10}{:>12}{:>12}{:>12}\n", "policy", "mean wait s", "p95 wait s",
                     "never placed", "peak pending", "rejected", "mean alloc", "peak alloc", "mean frag");
  for (const ShareReplayRun& run : result.runs) {
    const ShareReplaySummary summary = summarize_share_replay(run);
    out += fmt::format("{:<16}{:>14.1f}{:>14.0f}{:>13}{:>13}{:>10}{:>11.1f}%{:>11.1f}%{:>11.1f}%\n", share_policy_name(run.policy),
                       run.mean_wait_s, run.p95_wait_s, run.never_placed, run.peak_pending, run.pods_rejected,
                       100 * summary.mean_alloc_ratio, 100 * summary.peak_alloc_ratio, 100 * summary.mean_frag_rate);
  }
  return out;
}

std::string render_share_replay_json(const ShareReplayResult& result) {
  const ShareReplayScenario& s = result.scenario;
  OrderedJson out;
  out["mode"] = "share-replay";
  out["scenario"] = {{"name", s.name},           {"description", s.description},   {"node_list", s.node_list_source},
                     {"pod_list", s.pod_list_source}, {"max_pods", s.max_pods}, {"sample_every_s", s.sample_every_s}};
  out["cluster"] = {{"nodes", result.nodes}, {"gpus", result.gpus}};
  out["pods"] = {{"timed", result.pods}, {"untimed_skipped", result.untimed_pods}};
  OrderedJson policies = OrderedJson::array();
  for (const ShareReplayRun& run : result.runs) policies.push_back(run_json(run));
  out["policies"] = std::move(policies);
  return out.dump(2) + "\n";
}

}  // namespace topsim
