// The quality gate behind `topsim check` (docs/ci.md): a suite names scenarios and, for each,
// the metrics to watch with the direction that is better and a tolerance; a committed baseline
// holds their values; a check runs the suite and compares.
//
// A metric is `<scheduler>/<metric>[.<statistic>]`, the metric from the results model
// (sim/metrics.h). With several seeds the mean over seeds is compared, and a move counts as a
// regression only when it goes the worse way by more than the tolerance AND by more than the
// seed noise: 2 x sqrt(sd_base^2 / n_base + sd_now^2 / n_now) (about two standard errors of the
// difference of the two means; 0 with one seed).
//
// Files are read with errors naming the file and the JSON pointer; a suite's relative paths
// resolve against the suite file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <functional>

#include "sim/experiment.h"
#include "sim/metrics.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "util/expected.h"

namespace topsim {

inline constexpr std::string_view kBaselineSchema = "topsim.quality-baseline/1";

// "1%" (relative to the baseline) or an amount in the metric's unit ("5s", "0.5", "2 GPUs").
struct Tolerance {
  double amount = 0;
  bool relative = false;
  std::string text;  // as written
  // The allowed move from `base`.
  double allowed(double base) const { return relative ? amount / 100 * std::abs(base) : amount; }
};

struct WatchedMetric {
  std::string name;       // "topology-aware/wait_s.p95"
  std::string scheduler;  // "topology-aware"
  std::string metric;     // "wait_s.p95"
  Better better = Better::Lower;
  Tolerance tolerance;
};

struct SuiteScenario {
  std::string key;    // "name", default the scenario's name; unique in the suite
  std::string path;   // resolved
  Scenario scenario;  // loaded, with the suite's "seeds" applied
  std::vector<WatchedMetric> metrics;
  uint64_t inputs = 0;  // the digest of the scenario file and every file it reads (util/input_file.h)
};

struct Suite {
  std::string name;           // "name", default the suite file's stem
  std::string baseline_path;  // resolved
  std::vector<SuiteScenario> scenarios;
};

// A file that is another input (a scenario, a plan, ...) fails with what it is and where it goes
// (scenario/other_inputs.h).
[[nodiscard]] Expected<Suite> load_suite(const std::string& path);
// The same from the suite's text; `path` names it in errors and anchors its relative paths.
[[nodiscard]] Expected<Suite> parse_suite(std::string_view text, const std::string& path);

// One metric's value over seeds.
struct MeasuredValue {
  double mean = 0, sd = 0;
  int runs = 1;
  // False: the runs had no such figure (a metric over jobs none of which finished, or started);
  // mean and sd are then meaningless. A baseline holds measured values only.
  bool measured = true;
};

struct Baseline {
  std::string suite;                                                      // the suite it was written for
  std::map<std::string, std::map<std::string, MeasuredValue>> scenarios;  // key -> metric -> value
  std::map<std::string, uint64_t> inputs;  // key -> the inputs it was measured on (none in older baselines)
};

// Values of a suite's run: scenario key -> watched metric -> value.
using SuiteValues = std::map<std::string, std::map<std::string, MeasuredValue>>;

[[nodiscard]] Expected<Baseline> load_baseline(const std::string& path);
// The baseline file for `values` (schema topsim.quality-baseline/1): sorted keys, numbers
// rounded to 1e-6, so an unchanged tree writes the same bytes; "inputs" gives each scenario's
// inputs digest.
std::string render_baseline(const Suite& suite, const SuiteValues& values);
// Whether the baseline was measured on the inputs the suite reads now: a scenario whose file,
// trace or node files changed since `check --update` would be judged against numbers of other
// inputs. Error naming the baseline and the scenario. A baseline without "inputs" passes.
[[nodiscard]] Status check_baseline_inputs(const Suite& suite, const Baseline& baseline);

// Runs `candidate` in place of `scheduler` (a scheduler developer's new policy measured
// against the baseline of the one it replaces); empty: as the scenarios say.
struct Substitution {
  std::string scheduler, candidate;
};
// The scenario as the check runs it (a candidate the scenario runs already is run once).
[[nodiscard]] Expected<Scenario> scenario_to_run(const SuiteScenario& entry, const std::vector<Substitution>& substitutions);
// The watched values of one scenario's results (candidates named as what they replace).
// Error: a watched metric the results do not have, with the names they do have.
[[nodiscard]] Expected<std::map<std::string, MeasuredValue>> measure(const SuiteScenario& entry, const ResultSet& results,
                                                                     const std::vector<Substitution>& substitutions);

// Runs every scenario of the suite in order, as scenario_to_run says, with the experiment options
// `options_for` gives it, and measures its watched metrics; `done` (may be empty) is called after
// each scenario with its wall time. A watched metric the runs did not measure (over jobs none of
// which finished or started) is kept as not measured. Error: a run failed.
[[nodiscard]] Expected<SuiteValues> run_suite(const Suite& suite, const std::vector<Substitution>& substitutions,
                                              const std::function<ExperimentOptions(const SuiteScenario&)>& options_for,
                                              const std::function<void(const SuiteScenario&, double wall_s)>& done = {});

enum class Verdict : uint8_t { Ok, Improved, WithinNoise, Regressed };

struct MetricCheck {
  std::string scenario;
  WatchedMetric watched;
  MeasuredValue base, now;
  double delta = 0;                     // now - base
  std::optional<double> delta_percent;  // vs |base|; none when base is 0 (a change against 0 has no percentage)
  double allowed = 0;                   // the tolerance as an amount
  double noise = 0;                     // the seed noise (0 with one seed)
  Verdict verdict = Verdict::Ok;
};

struct CheckResult {
  std::string suite;
  std::vector<MetricCheck> checks;       // in suite order
  std::vector<Substitution> candidates;  // --candidate: each run in place of a scheduler, judged by its baseline
  size_t regressions = 0, improvements = 0;
};

// Compares every watched metric. Error (bad input): a baseline for another suite or other inputs
// (check_baseline_inputs), or missing a scenario or metric of the suite.
[[nodiscard]] Expected<CheckResult> compare_to_baseline(const Suite& suite, const Baseline& baseline, const SuiteValues& now);

}  // namespace topsim
