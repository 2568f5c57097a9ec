// Simulator benchmark through run_experiment: the whole Philly trace on the 552-node cluster
// (scenarios/philly-552-nodes.json) and a synthetic 1,000,000-job workload on 10,000 GPUs
// (1,250 x DGX A100), per scheduler: wall time, events/s and peak resident memory.
//
//   build/bench/bench_sim [--jobs N] [--skip-philly] [--skip-synthetic] [--overload N]
// --overload N adds N synthetic jobs arriving at 150% of a 512-GPU cluster's capacity.
//
// Reads ../shared/traces/philly/philly.csv (skipped with a message when absent).
#include <sys/resource.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/builtin_models.h"
#include "sim/experiment.h"
#include "sim/synthetic_workload.h"

using namespace topsim;
using Clock = std::chrono::steady_clock;

namespace {

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Each scheduler alone (one thread), so the wall time is that scheduler's.
void run_each(const char* label, const Scenario& scenario) {
  for (const std::string& name : scenario.schedulers) {
    Scenario one = scenario;
    one.schedulers = {name};
    ExperimentOptions options;
    options.keep_jobs = false;
    const auto start = Clock::now();
    auto results = run_experiment(one, options);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!results) {
      std::fprintf(stderr, "%s\n", results.error().message.c_str());
      std::exit(2);
    }
    const Metrics& m = results->schedulers.front().runs.front().metrics;
    const double events = m.value_or("events", 0);
    std::printf(
        "%-28s %-15s jobs %8.0f  events %9.0f  %7.2f s  %9.0f events/s  finished %.0f  mean JCT %.0f s  peak RSS %.0f MB\n",
        label, name.c_str(), m.value_or("jobs", 0), events, seconds, events / seconds, m.value_or("finished", 0),
        m.value_or("jct_s.mean", 0), peak_rss_mb());
  }
}

Scenario synthetic_scenario(uint32_t jobs) {
  SyntheticOptions options;
  options.jobs = jobs;
  options.seed = 42;
  options.arrival_rate_per_hour = 600;  // ~ the rate 10,000 GPUs sustain at the default size mix and durations
  const auto start = Clock::now();
  Scenario s;
  s.name = "synthetic-10k-gpus";
  s.workload = std::make_shared<const Workload>(generate_synthetic(options));
  std::printf("synthetic: %u jobs generated in %.2f s (peak RSS %.0f MB)\n", jobs,
              std::chrono::duration<double>(Clock::now() - start).count(), peak_rss_mb());
  s.cluster.groups.push_back({*builtin_model("dgx-a100"), 1250, NodeMode::Topology, false});
  s.cluster.network.transport = NetworkTransport::InfiniBand;
  s.schedulers = {"topology-aware", "default"};
  s.record_transitions = false;
  return s;
}

// `jobs` synthetic jobs arriving at 150% of what 64 DGX A100 (512 GPUs) sustain: the default
// size mix asks 3.1 GPUs per job and the log-normal durations last 1.65 x 60 min on average,
// 5.1 GPU-hours a job, so 512 GPUs sustain 100 jobs an hour. The backlog grows all run long.
Scenario overload_scenario(uint32_t jobs) {
  SyntheticOptions options;
  options.jobs = jobs;
  options.seed = 42;
  options.arrival_rate_per_hour = 150;
  Scenario s;
  s.name = "overload-512-gpus";
  s.workload = std::make_shared<const Workload>(generate_synthetic(options));
  s.cluster.groups.push_back({*builtin_model("dgx-a100"), 64, NodeMode::Topology, false});
  s.cluster.network.transport = NetworkTransport::InfiniBand;
  s.schedulers = {"topology-aware", "default"};
  s.record_transitions = false;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t jobs = 1000000;
  bool philly = true, synthetic = true;
  uint32_t overload = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) jobs = static_cast<uint32_t>(std::atol(argv[++i]));
    if (std::strcmp(argv[i], "--skip-philly") == 0) philly = false;
    if (std::strcmp(argv[i], "--skip-synthetic") == 0) synthetic = false;
    if (std::strcmp(argv[i], "--overload") == 0 && i + 1 < argc) overload = static_cast<uint32_t>(std::atol(argv[++i]));
  }
  if (philly) {
    const std::string path = std::string(TOPSIM_SOURCE_DIR) + "/scenarios/philly-552-nodes.json";
    if (!std::filesystem::exists(std::string(TOPSIM_SOURCE_DIR) + "/../shared/traces/philly/philly.csv")) {
      std::printf("philly: skipped, ../shared/traces/philly/philly.csv is absent\n");
    } else {
      const auto start = Clock::now();
      auto scenario = load_scenario(path);
      if (!scenario) {
        std::fprintf(stderr, "%s\n", scenario.error().message.c_str());
        return 2;
      }
      std::printf("philly: scenario + trace loaded in %.2f s\n", std::chrono::duration<double>(Clock::now() - start).count());
      run_each("philly 552 nodes (2,490 GPUs)", *scenario);
    }
  }
  if (synthetic) run_each("synthetic on 10,000 GPUs", synthetic_scenario(jobs));
  if (overload > 0) run_each("overload 150% on 512 GPUs", overload_scenario(overload));
  return 0;
}
