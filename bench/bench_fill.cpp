// Benchmark of fill mode (the FGD experiment, scenarios/fgd-openb-default.json) through
// run_experiment: wall and CPU time of one run (one scheduler, one seed) per scheduler, and of
// the whole scheduler x seed set on N threads, then the summary table.
//
// usage: bench_fill [scenario.json] [--threads N] [--serial] [--runs-only]
//   default scenario: scenarios/fgd-openb-default.json (skips with a message when the Alibaba
//   trace under ../shared is absent);
//   --threads N: threads for the whole set (default: hardware concurrency, at least 2);
//   --serial: also time the whole set on one thread;
//   --runs-only: only the single runs (for profiling).
#include <time.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "reports/text_report.h"
#include "scenario/scenario_loader.h"
#include "sim/experiment.h"

using namespace topsim;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU time of the whole process, seconds (wall time alone misleads on a loaded machine).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Timed {
  ResultSet results;
  double wall_s = 0, cpu_s = 0;
};

Timed timed_run(const Scenario& scenario, int threads) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds();
  ExperimentOptions options;
  options.threads = threads;
  options.keep_jobs = false;
  auto results = run_experiment(scenario, options);
  if (!results) {
    std::fprintf(stderr, "bench_fill: %s\n", results.error().message.c_str());
    std::exit(2);
  }
  return {std::move(results).value(), seconds_since(start), cpu_seconds() - cpu_start};
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = std::string(TOPSIM_SOURCE_DIR) + "/scenarios/fgd-openb-default.json";
  int threads = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  bool serial = false, runs_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--serial") == 0)
      serial = true;
    else if (std::strcmp(argv[i], "--runs-only") == 0)
      runs_only = true;
    else
      path = argv[i];
  }
  if (!std::filesystem::is_directory(std::string(TOPSIM_SHARED_DIR) + "/traces/alibaba-gpu-v2023")) {
    std::printf("bench_fill: skipped: %s/traces/alibaba-gpu-v2023 is absent (the Alibaba 2023 trace)\n", TOPSIM_SHARED_DIR);
    return 0;
  }
  const auto load_start = std::chrono::steady_clock::now();
  auto scenario = load_scenario(path);
  if (!scenario) {
    std::fprintf(stderr, "bench_fill: %s\n", scenario.error().message.c_str());
    return 2;
  }
  std::printf("scenario load (node list, pod list, seed %llu draws): %.3f s\n", static_cast<unsigned long long>(scenario->seed),
              seconds_since(load_start));
  std::printf("one run (one scheduler, seed %llu, %.0f%% load):\n", static_cast<unsigned long long>(scenario->seed),
              100 * scenario->target_load);
  for (const std::string& name : scenario->schedulers) {
    Scenario one = *scenario;
    one.schedulers = {name};
    one.seeds = 1;
    const Timed t = timed_run(one, 1);
    const RunResult& run = t.results.schedulers.front().runs.front();
    std::printf("  %-16s wall %.3f s, cpu %.3f s  (%.0f pods, alloc ratio %.4f, frag rate %.4f)\n", name.c_str(), t.wall_s,
                t.cpu_s, run.metrics.value_or("jobs", 0), run.metrics.value_or("gpu_alloc_ratio.final", 0),
                run.metrics.value_or("fragmentation_rate.final", 0));
  }
  if (runs_only) return 0;
  const size_t runs = scenario->schedulers.size() * static_cast<size_t>(scenario->seeds);
  const Timed all = timed_run(*scenario, threads);
  std::printf("whole set (%zu schedulers x %d seeds = %zu runs) on %d threads: wall %.2f s, cpu %.2f s\n",
              scenario->schedulers.size(), scenario->seeds, runs, threads, all.wall_s, all.cpu_s);
  if (serial) {
    const Timed one = timed_run(*scenario, 1);
    std::printf("whole set on 1 thread: wall %.2f s, cpu %.2f s\n", one.wall_s, one.cpu_s);
  }
  std::printf("\n%s", render_text(all.results).c_str());
  return 0;
}
