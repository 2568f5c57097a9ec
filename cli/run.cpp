// `topsim run [<scenario>] [-o DIR]`: replays a scenario under every scheduler it lists and
// prints the side-by-side comparison; writes DIR/results.json. Fill-mode scenarios (the FGD
// fragmentation protocol) run their policies x seeds instead.
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <ostream>
#include <thread>
#include <unistd.h>

#include "cli/command_table.h"
#include "cli/output_file.h"
#include "reports/fill_report.h"
#include "reports/run_report.h"
#include "reports/share_replay_report.h"
#include "sim/fill_experiment.h"
#include "sim/scenario.h"
#include "sim/share_replay.h"

namespace topsim::cli {
namespace {

namespace fs = std::filesystem;

class Run : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("scenario", &scenario_);
    options.visible.add_options()
        ("output,o", po::value(&output_dir_), "folder for results.json (default: results/<scenario name>)")
        ("summary-only", po::bool_switch(&summary_only_), "leave per-job records out of results.json")
        ("threads", po::value(&threads_)->default_value(0), "fill mode: worker threads (default 0 = all cores)")
        ("timing", po::bool_switch(&timing_), "print wall time and events/s per scheduler on stderr");
  }

  Outcome execute(Streams io) override {
    if (scenario_.empty()) scenario_ = default_scenario_path(TOPSIM_SOURCE_DIR);
    auto mode = scenario_mode(scenario_);
    if (!mode) return Outcome::bad_input(mode.error().message);
    if (*mode == "fill") return run_fill_mode(io);
    if (*mode == "share-replay") return run_share_replay_mode(io);
    if (*mode != "replay") return Outcome::bad_input(scenario_ + ": /mode: '" + *mode + "' is not one of replay, fill, share-replay");
    auto scenario = load_scenario(scenario_);
    if (!scenario) return Outcome::bad_input(scenario.error().message);
    auto cluster = ClusterState::build(scenario->cluster);
    if (!cluster) return Outcome::bad_input(scenario_ + ": " + cluster.error().message);
    std::vector<SchedulerRun> runs;
    for (SchedulerKind kind : scenario->schedulers) {
      SimOptions options = scenario->options;
      options.scheduler = kind;
      options.seed = scenario->seed;
      const auto start = std::chrono::steady_clock::now();
      SimResult result = simulate(*cluster, scenario->workload, options);
      const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (timing_ || isatty(STDERR_FILENO))
        io.err << fmt::format("{}: {} jobs, {} events in {:.2f} s ({:.0f} events/s)\n", scheduler_name(kind),
                              result.jobs.size(), result.events, wall_s, result.events / std::max(wall_s, 1e-9));
      RunSummary summary = summarize(result);
      runs.push_back({std::move(result), summary});
    }
    ReportOptions report;
    report.job_details = !summary_only_;
    const std::string dir = output_dir_.empty() ? (fs::path("results") / scenario->name).string() : output_dir_;
    if (Status s = write_results(dir, render_run_json(*scenario, runs, report), io); !s) return Outcome::bad_input(s.error().message);
    io.out << render_run_text(*scenario, runs, report);
    io.out << "\nresults: " << (fs::path(dir) / "results.json").string() << "\n";
    return Outcome::ok();
  }

 private:
  Outcome run_fill_mode(Streams io) {
    auto scenario = load_fill_scenario(scenario_);
    if (!scenario) return Outcome::bad_input(scenario.error().message);
    const int threads = threads_ > 0 ? threads_ : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    auto result = run_fill(*scenario, threads);
    if (!result) return Outcome::bad_input(result.error().message);
    const std::string dir = output_dir_.empty() ? (fs::path("results") / scenario->name).string() : output_dir_;
    if (Status s = write_results(dir, render_fill_json(*result), io); !s) return Outcome::bad_input(s.error().message);
    io.out << render_fill_text(*result);
    io.out << "\nresults: " << (fs::path(dir) / "results.json").string() << "\n";
    return Outcome::ok();
  }

  Outcome run_share_replay_mode(Streams io) {
    auto scenario = load_share_replay_scenario(scenario_);
    if (!scenario) return Outcome::bad_input(scenario.error().message);
    auto result = run_share_replay(*scenario);
    if (!result) return Outcome::bad_input(result.error().message);
    const std::string dir = output_dir_.empty() ? (fs::path("results") / scenario->name).string() : output_dir_;
    if (Status s = write_results(dir, render_share_replay_json(*result), io); !s) return Outcome::bad_input(s.error().message);
    io.out << render_share_replay_text(*result);
    io.out << "\nresults: " << (fs::path(dir) / "results.json").string() << "\n";
    return Outcome::ok();
  }

  static Status write_results(const std::string& dir, const std::string& json, Streams io) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error{"cannot create '" + dir + "': " + ec.message()};
    return write_output((fs::path(dir) / "results.json").string(), json, io.out);
  }

  std::string scenario_;
  std::string output_dir_;
  bool summary_only_ = false;
  bool timing_ = false;
  int threads_ = 0;
};

const Registrar registered{{
    "run",
    "replay a scenario under each scheduler and compare them",
    "[<scenario.json>] [-o DIR]",
    "Runs every scheduler the scenario lists (topology-aware, default) on its cluster and workload,\n"
    "prints a side-by-side summary and writes DIR/results.json (per job: placement, ring bandwidth,\n"
    "transport, throughput, wait, JCT; per scheduler: wait/JCT distributions, makespan, utilisation,\n"
    "cross-NUMA ratio, topology success rate, fallbacks; over time: GPUs allocated, FGD\n"
    "fragmentation, running and pending jobs, sampled and time-weighted). Shared-GPU jobs\n"
    "(gpu_mem_gib, gpu_core_percent) run on nodes labelled share / core_mem beside whole-GPU jobs.\n"
    "Without a scenario it runs the built-in default, scenarios/ack-v100-benchmark.json.\n"
    "Scenarios with \"mode\": \"fill\" run the FGD fragmentation experiment instead, and\n"
    "\"mode\": \"share-replay\" replays GPU-sharing pods over time (queueing and fragmentation per\n"
    "share policy). Formats: docs/scenarios.md, docs/fill-scenarios.md.",
    [] { return std::make_unique<Run>(); },
}};

}  // namespace
}  // namespace topsim::cli
