// Renderers of a fill-mode result (the FGD experiment, sim/fill_experiment.h): a text summary
// per policy and a JSON document with the curves versus arrived load.
//
// Both are deterministic functions of the FillResult (no wall-clock, no host names); numbers in
// the JSON are rounded to 1e-6.
#pragma once

#include <string>
#include <vector>

#include "sim/fill_experiment.h"

namespace topsim {

struct SeedStats {
  double mean = 0;
  double sd = 0;   // sample standard deviation over seeds (0 for one seed)
  double min = 0;
  double max = 0;
};
SeedStats seed_stats(const std::vector<double>& values);

struct FillPolicySummary {
  SharePolicyKind policy = SharePolicyKind::Fgd;
  SeedStats gpu_alloc_ratio;  // final allocated GPU share / capacity
  SeedStats frag_rate;        // final F / unallocated share
  SeedStats frag_gpus;        // final F, GPUs
  SeedStats pods_failed;
  SeedStats unusable_gpus;
};
// One summary per policy, in the scenario's policy order.
std::vector<FillPolicySummary> summarize_fill(const FillResult& result);

// Text: scenario and cluster facts, then one row per policy with the final GPU allocation
// ratio, fragmentation rate, fragmentation (GPUs) and failed pods as mean ± sd over seeds.
// Ends with a newline.
std::string render_fill_text(const FillResult& result);

// JSON (2-space indent): "scenario", "cluster", "pods", and "policies": per policy the final
// statistics, the mean curves over seeds and each seed's run with its own curves.
std::string render_fill_json(const FillResult& result);

}  // namespace topsim
