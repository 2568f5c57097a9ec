// Benchmark of fill mode (the FGD experiment, sim/fill_experiment.h) on the Alibaba 2023
// trace: wall time of one run (one policy, one seed) per policy, and of the whole
// policy x seed set on N threads, then the final GPU allocation ratio per policy.
//
// usage: bench_fill [scenario.json] [--threads N] [--serial] [--runs-only]
//   default scenario: the `default` pod list, all policies, 10 seeds, 130% load, read from
//   TOPSIM_SHARED_DIR/traces (skips with a message when ../shared is absent);
//   --threads N: threads for the whole set (default: hardware concurrency, at least 2);
//   --serial: also time the whole set on one thread;
//   --runs-only: only the single runs (for profiling).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <time.h>

#include "reports/fill_report.h"
#include "sim/fill_experiment.h"

using namespace topsim;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU time of the calling thread / of the whole process, seconds (wall time alone misleads on
// a loaded machine).
double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::optional<FillScenario> default_scenario() {
  const std::filesystem::path traces = std::filesystem::path(TOPSIM_SHARED_DIR) / "traces" / "alibaba-gpu-v2023";
  if (!std::filesystem::is_directory(traces)) return std::nullopt;
  FillScenario s;
  s.name = "fgd-openb-default (bench)";
  s.node_list = (traces / "openb_node_list_gpu_node.csv").string();
  s.pod_list = (traces / "openb_pod_list_default.csv").string();
  s.node_list_source = "alibaba-gpu-v2023/openb_node_list_gpu_node.csv";
  s.pod_list_source = "alibaba-gpu-v2023/openb_pod_list_default.csv";
  for (const std::string& name : share_policy_names()) s.policies.push_back(*parse_share_policy(name));
  return s;
}

struct SetTime {
  double wall_s = 0;
  double cpu_s = 0;  // all threads
};

Expected<SetTime> time_whole_set(const FillScenario& scenario, int threads, FillResult* out) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  auto result = run_fill(scenario, threads);
  if (!result) return result.error();
  const SetTime time{seconds_since(start), cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start};
  if (out) *out = std::move(result).value();
  return time;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario_path;
  int threads = std::max(2u, std::thread::hardware_concurrency());
  bool serial = false;
  bool runs_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--serial") == 0) serial = true;
    else if (std::strcmp(argv[i], "--runs-only") == 0) runs_only = true;
    else scenario_path = argv[i];
  }
  std::optional<FillScenario> scenario;
  if (scenario_path.empty()) {
    scenario = default_scenario();
    if (!scenario) {
      std::printf("bench_fill: skipped: %s/traces/alibaba-gpu-v2023 is absent (the Alibaba 2023 trace)\n", TOPSIM_SHARED_DIR);
      return 0;
    }
  } else {
    auto loaded = load_fill_scenario(scenario_path);
    if (!loaded) {
      std::fprintf(stderr, "bench_fill: %s\n", loaded.error().message.c_str());
      return 2;
    }
    scenario = std::move(loaded).value();
  }

  const auto load_start = std::chrono::steady_clock::now();
  auto inputs = load_fill_inputs(*scenario);
  if (!inputs) {
    std::fprintf(stderr, "bench_fill: %s\n", inputs.error().message.c_str());
    return 2;
  }
  std::printf("trace load: %zu nodes, %d GPUs, %zu pods, %zu workload specs: %.3f s\n", inputs->nodes.size(), inputs->gpus,
              inputs->pods.size(), inputs->workload.specs.size(), seconds_since(load_start));

  std::printf("one run (one policy, seed %llu, %.0f%% load):\n", static_cast<unsigned long long>(scenario->seed),
              100 * scenario->target_load);
  for (SharePolicyKind policy : scenario->policies) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
    const FillRun run = run_fill_once(*inputs, policy, scenario->seed, scenario->target_load);
    std::printf("  %-16s wall %.3f s, cpu %.3f s  (%lld pods, alloc ratio %.4f, frag rate %.4f)\n",
                std::string(share_policy_name(policy)).c_str(), seconds_since(start), cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start,
                static_cast<long long>(run.pods_arrived), run.final.gpu_alloc_ratio, run.final.frag_rate);
  }

  if (runs_only) return 0;
  FillResult result;
  const size_t jobs = scenario->policies.size() * static_cast<size_t>(scenario->seeds);
  auto elapsed = time_whole_set(*scenario, threads, &result);
  if (!elapsed) {
    std::fprintf(stderr, "bench_fill: %s\n", elapsed.error().message.c_str());
    return 2;
  }
  std::printf("whole set (%zu policies x %d seeds = %zu runs) on %d threads: wall %.2f s, cpu %.2f s\n",
              scenario->policies.size(), scenario->seeds, jobs, threads, elapsed->wall_s, elapsed->cpu_s);
  if (serial) {
    auto one = time_whole_set(*scenario, 1, nullptr);
    if (one) std::printf("whole set on 1 thread: wall %.2f s, cpu %.2f s\n", one->wall_s, one->cpu_s);
  }
  std::printf("\n%s", render_fill_text(result).c_str());
  return 0;
}
