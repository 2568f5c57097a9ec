// Simulator benchmark: the whole Philly trace on the 552-node cluster
// (scenarios/philly-552-nodes.json) and a synthetic 1,000,000-job workload on 10,000 GPUs
// (1,250 x DGX A100), per scheduler: wall time, events/s and peak resident memory.
//
//   build/bench/bench_sim [--jobs N] [--skip-philly] [--skip-synthetic]
//
// Reads ../shared/traces/philly/philly.csv (skipped with a message when absent).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/resource.h>

#include "core/builtin_models.h"
#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/simulation.h"
#include "sim/synthetic_workload.h"

using namespace topsim;
using Clock = std::chrono::steady_clock;

namespace {

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

void run_all(const char* label, const ClusterState& cluster, const Workload& workload, SimOptions options) {
  for (SchedulerKind kind : {SchedulerKind::TopologyAware, SchedulerKind::Default}) {
    options.scheduler = kind;
    const auto start = Clock::now();
    const SimResult result = simulate(cluster, workload, options);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const RunSummary summary = summarize(result);
    std::printf("%-28s %-15s jobs %8zu  events %9llu  %7.2f s  %9.0f events/s  finished %llu  mean JCT %.0f s  peak RSS %.0f MB\n",
                label, scheduler_name(kind), workload.jobs.size(), static_cast<unsigned long long>(result.events), seconds,
                result.events / seconds, static_cast<unsigned long long>(summary.finished), summary.jct_s.mean, peak_rss_mb());
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t jobs = 1000000;
  bool philly = true, synthetic = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) jobs = static_cast<uint32_t>(std::atol(argv[++i]));
    if (std::strcmp(argv[i], "--skip-philly") == 0) philly = false;
    if (std::strcmp(argv[i], "--skip-synthetic") == 0) synthetic = false;
  }
  if (philly) {
    const std::string path = std::string(TOPSIM_SOURCE_DIR) + "/scenarios/philly-552-nodes.json";
    if (!std::filesystem::exists(std::string(TOPSIM_SOURCE_DIR) + "/../shared/traces/philly/philly.csv")) {
      std::printf("philly: skipped, ../shared/traces/philly/philly.csv is absent\n");
    } else {
      const auto start = Clock::now();
      auto scenario = load_scenario(path);
      if (!scenario) { std::fprintf(stderr, "%s\n", scenario.error().message.c_str()); return 2; }
      std::printf("philly: scenario + trace loaded in %.2f s\n", std::chrono::duration<double>(Clock::now() - start).count());
      auto cluster = ClusterState::build(scenario->cluster);
      run_all("philly 552 nodes (2,490 GPUs)", *cluster, scenario->workload, scenario->options);
    }
  }
  if (synthetic) {
    SyntheticOptions options;
    options.jobs = jobs;
    options.seed = 42;
    options.arrival_rate_per_hour = 600;  // ~ the rate 10,000 GPUs sustain at the default size mix and durations
    const auto start = Clock::now();
    const Workload workload = generate_synthetic(options);
    std::printf("synthetic: %u jobs generated in %.2f s (peak RSS %.0f MB)\n", jobs,
                std::chrono::duration<double>(Clock::now() - start).count(), peak_rss_mb());
    ClusterSpec spec;
    spec.groups.push_back({*builtin_model("dgx-a100"), 1250, NodeLabel::Topology, false});
    spec.network.transport = NetworkTransport::InfiniBand;
    auto cluster = ClusterState::build(spec);
    SimOptions sim;
    sim.record_transitions = false;
    run_all("synthetic on 10,000 GPUs", *cluster, workload, sim);
  }
  return 0;
}
