// `topsim check SUITE.json`: the CI gate on scheduling quality (docs/ci.md). Runs every scenario
// of the suite, compares the watched metrics with the committed baseline and exits 0 (nothing
// regressed beyond tolerance), 1 (something did: each regression named) or 2 (bad input).
// `--update` (re)writes the baseline; `--list-metrics SCENARIO` prints the names a suite can watch.
#include <fmt/format.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "cli/command_table.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "gate/quality_gate.h"
#include "reports/check_report.h"
#include "scenario/scenario_loader.h"
#include "sim/experiment.h"
#include "sim/schedulers/registry.h"
#include "util/suggest.h"
#include "util/workers.h"

namespace topsim::cli {
namespace {

class Check : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("suite", &suite_path_);
    options.visible.add_options()("baseline", po::value(&baseline_path_),
                                  "the baseline file (default: the suite's \"baseline\")")(
        "update", po::bool_switch(&update_), "run the suite and (re)write the baseline instead of comparing")(
        "junit", po::value(&junit_path_), "write the verdicts as JUnit XML (one testcase per scenario x metric)")(
        "markdown", po::value(&markdown_path_),
        "write the verdicts as a Markdown table (also appended to $GITHUB_STEP_SUMMARY when set)")(
        "threads", po::value(&threads_)->default_value(0),
        "runs at once (default 0 = all cores); the verdicts do not depend on it")(
        "candidate", po::value(&candidates_)->composing(),
        "SCHEDULER=OTHER: run OTHER where a scenario lists SCHEDULER and judge it against SCHEDULER's baseline (repeatable)")(
        "list-metrics", po::value(&list_scenario_), "SCENARIO: print every metric name a suite can watch for it, and exit")(
        "timing", po::bool_switch(&timing_), "print wall time and events/s of each run on stderr")(
        "quiet,q", po::bool_switch(&quiet_),
        "no progress on stderr (on a terminal: a live line per scenario, then its wall time)")(
        "check-invariants", po::bool_switch(&check_invariants_),
        "verify the run invariants after every event (no resource over-allocated, gangs whole, every job accounted for); on in "
        "Debug builds");
  }

  Status finish(const po::variables_map&) override {
    if (threads_ < 0) return Error{"--threads must be 0 (all cores) or more, got " + std::to_string(threads_)};
    if (list_scenario_.empty() && suite_path_.empty()) return Error{"give a suite file (or --list-metrics SCENARIO)"};
    if (update_ && !candidates_.empty())
      return Error{"--candidate measures a scheduler against the baseline; it cannot write one (--update)"};
    for (const std::string& text : candidates_) {
      const size_t eq = text.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        return Error{"--candidate '" + text + "': expected SCHEDULER=OTHER"};
      for (const std::string& name : {text.substr(0, eq), text.substr(eq + 1)})
        if (!find_scheduler(name))
          return Error{"--candidate '" + text + "': " + unknown_name("scheduler", name, scheduler_names())};
      substitutions_.push_back({text.substr(0, eq), text.substr(eq + 1)});
    }
    return {};
  }

  // On bad input with --junit, the JUnit file still gets written, holding the error: CI systems
  // expect one. Only the check's own file: a path that cannot be written stays unwritten.
  Outcome execute(Streams io) override {
    Outcome outcome = run_check(io);
    if (outcome.code == ExitCode::BadInput && !junit_path_.empty() && !update_ && list_scenario_.empty() &&
        !outcome.message.starts_with(junit_path_) && check_output_path(junit_path_))
      (void)write_output(junit_path_, render_check_junit_error(suite_name(), outcome.message), io.out);
    return outcome;
  }

 private:
  // The suite's name for the JUnit error: the file's name without ".json".
  std::string suite_name() const { return std::filesystem::path(suite_path_).stem().string(); }

  Outcome run_check(Streams io) {
    if (!list_scenario_.empty()) return list_metrics(io);
    auto suite = load_suite(suite_path_);
    if (!suite) return Outcome::bad_input(suite.error().message);
    if (!baseline_path_.empty()) suite->baseline_path = baseline_path_;
    std::optional<Baseline> baseline;
    if (!update_) {
      auto loaded = load_baseline(suite->baseline_path);
      if (!loaded) return Outcome::bad_input(loaded.error().message);
      if (loaded->suite != suite->name)
        return Outcome::bad_input(suite->baseline_path + ": written for suite '" + loaded->suite + "', not '" + suite->name +
                                  "'");
      if (Status s = check_baseline_inputs(*suite, *loaded); !s) return Outcome::bad_input(s.error().message);
      baseline = std::move(loaded).value();
    }
    // The files written at the end are checked before the suite runs.
    for (const std::string& path : {update_ ? suite->baseline_path : std::string(), junit_path_, markdown_path_})
      if (!path.empty())
        if (Status s = check_output_path(path); !s) return Outcome::bad_input(s.error().message);
    if (const std::string summary = step_summary_path(); !update_ && !summary.empty())
      if (Status s = check_append_path(summary); !s) return Outcome::bad_input("GITHUB_STEP_SUMMARY: " + s.error().message);
    auto values = run_suite(
        *suite, substitutions_, [&](const SuiteScenario& entry) { return experiment_options(entry.key, io); },
        [&](const SuiteScenario& entry, double wall_s) {
          if (stderr_is_terminal() && !quiet_) io.err << fmt::format("{}: {:.1f} s\n", entry.key, wall_s);
        });
    if (!values) return Outcome::failed(values.error());
    if (update_) return write_baseline(*suite, *values, io);
    auto result = compare_to_baseline(*suite, *baseline, *values);
    if (!result) return Outcome::bad_input(result.error().message);
    result->candidates = substitutions_;
    return report(*result, io);
  }

  // $GITHUB_STEP_SUMMARY: the file GitHub Actions shows as the step's summary ("" when unset).
  static std::string step_summary_path() {
    const char* path = std::getenv("GITHUB_STEP_SUMMARY");
    return path ? path : "";
  }

  ExperimentOptions experiment_options(const std::string& key, Streams io) const {
    ExperimentOptions options;
    options.threads = threads_or_all_cores(threads_);
    options.check_invariants = options.check_invariants || check_invariants_;
    options.keep_jobs = false;
    attach_progress(options, io.err, {timing_, quiet_, stderr_is_terminal(), key});
    return options;
  }

  Outcome write_baseline(const Suite& suite, const SuiteValues& values, Streams io) const {
    for (const auto& [key, watched] : values)
      for (const auto& [name, value] : watched)
        if (!value.measured)
          return Outcome::bad_input("suite '" + suite.name + "': " + key + " " + name +
                                    ": no run measured it (none of its jobs finished or started), so there is no baseline "
                                    "to write; watch another metric or change the scenario");
    if (Status s = write_output(suite.baseline_path, render_baseline(suite, values), io.out); !s)
      return Outcome::bad_input(s.error().message);
    size_t metrics = 0;
    for (const auto& [key, watched] : values) metrics += watched.size();
    io.out << "baseline: " << suite.baseline_path << " (" << metrics << " metrics of " << values.size() << " scenarios)\n";
    return Outcome::ok();
  }

  Outcome report(const CheckResult& result, Streams io) const {
    io.out << render_check_text(result);
    if (!junit_path_.empty())
      if (Status s = write_output(junit_path_, render_check_junit(result), io.out); !s)
        return Outcome::bad_input(s.error().message);
    const std::string markdown = render_check_markdown(result);
    if (!markdown_path_.empty())
      if (Status s = write_output(markdown_path_, markdown, io.out); !s) return Outcome::bad_input(s.error().message);
    if (const std::string summary = step_summary_path(); !summary.empty())
      if (Status s = append_output(summary, markdown); !s) return Outcome::bad_input("GITHUB_STEP_SUMMARY: " + s.error().message);
    if (result.regressions == 0) return Outcome::ok();
    std::string names;
    for (const MetricCheck& c : result.checks)
      if (c.verdict == Verdict::Regressed)
        names += (names.empty() ? "" : ", ") + c.scenario + " " + checked_name(result, c.watched.name);
    return Outcome::check_failed(
        fmt::format("{} regression{}: {}", result.regressions, result.regressions == 1 ? "" : "s", names));
  }

  Outcome list_metrics(Streams io) const {
    auto scenario = load_scenario(list_scenario_);
    if (!scenario) return Outcome::bad_input(scenario.error().message);
    scenario->seeds = 1;
    auto results = run_experiment(*scenario, experiment_options(scenario->name, io));
    if (!results) return Outcome::bad_input(results.error().message);
    for (const SchedulerResult& s : results->schedulers)
      for (const MetricSummary& m : s.metrics) {
        const MetricInfo* info = find_metric(m.name);
        const char* better = info->better == Better::Higher ? "higher" : info->better == Better::Lower ? "lower" : "-";
        io.out << fmt::format("{:<48} {:<10} {:<7} {}\n", s.name + "/" + m.name, info->unit, better, info->description);
      }
    return Outcome::ok();
  }

  std::string suite_path_, baseline_path_, junit_path_, markdown_path_, list_scenario_;
  std::vector<std::string> candidates_;
  std::vector<Substitution> substitutions_;
  bool update_ = false;
  bool timing_ = false;
  bool quiet_ = false;
  bool check_invariants_ = false;
  int threads_ = 0;
};

const Registrar registered{{
    "check",
    "CI gate: run a suite of scenarios and fail when scheduling quality regressed",
    "SUITE.json [--baseline FILE] [--update] [--junit FILE] [--markdown FILE] [--threads N]",
    "Runs every scenario of the suite (paths relative to the suite file), compares each watched\n"
    "metric (<scheduler>/<metric>[.<statistic>], `--list-metrics SCENARIO` prints them) with the\n"
    "baseline and prints one line per metric: baseline, now, delta, verdict. A metric regresses\n"
    "when it moves the worse way by more than its tolerance and, with several seeds, by more than\n"
    "the seed noise. Exit 0: no regression (improvements are reported, with a hint to --update);\n"
    "1: regressions, each named; 2: bad input (unknown metric, missing or foreign baseline,\n"
    "malformed files). --update (re)writes the baseline: sorted keys, fixed rounding, so an\n"
    "unchanged tree gives the same bytes. Adopting it in CI: docs/ci.md.",
    [] { return std::make_unique<Check>(); },
}};

}  // namespace
}  // namespace topsim::cli
