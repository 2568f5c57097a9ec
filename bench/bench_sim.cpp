// Engine benchmark: the cases of docs/performance.md, each scheduler of a case in a process of
// its own (so its peak RSS is its own), through run_experiment as `topsim plan` and `topsim
// check` run it (per-job records not kept). Prints, per case and scheduler: jobs, events, the
// time to build the workload (trace read or generation), the run's wall time, events/s, jobs/s
// and the process's peak resident memory.
//
//   build/bench/bench_sim [CASE...] [--jobs N] [--repeat N] [--records] [--markdown]
//
// Cases (default: philly overload synthetic fgd):
//   philly         scenarios/philly-552-nodes.json: the whole Philly trace, 552 nodes, 2,490 GPUs
//   philly-plan    the same trace on 84 DGX-1 V100 (672 GPUs): the size plan-philly.json answers for
//                  topology-aware scheduling, where its replays run (queues form and drain)
//   overload       10^5 synthetic jobs arriving at 150% of what 512 GPUs (64 DGX A100) sustain
//   overload-fabric  the same on a 3-level fabric (racks of 4 nodes, blocks of 4 racks, 2 pods;
//                  2:1 at every level, 8 rails): jobs share the uplinks (sim/link_shares.h)
//   synthetic      10^6 synthetic jobs on 10,000 GPUs (1,250 DGX A100), 600 an hour (31% of what they sustain)
//   synthetic-10m  10^7 synthetic jobs on 100,000 GPUs (12,500 DGX A100), 6,000 an hour (the same load)
//   llm-mix        2 x 10^4 synthetic jobs of 8 to 64 GPUs on 64 HGX H100 (512 GPUs), a third each
//                  Llama 3 8B, Llama 2 13B (model-mix LLMs: their layouts fit to the reference H100,
//                  core/llm_step.h default_parallel, asked at every scheduling pass) and ResNet-50,
//                  400 an hour (queues form)
//   fgd            scenarios/fgd-openb-default.json, one seed, the fgd policy (fill mode)
//   scaling        overload and synthetic at 1/4, 1/2, 1 and 2 x their job counts: time per doubling
// --jobs N overrides the job count of overload / synthetic / synthetic-10m / llm-mix; --repeat N reports the
// best wall time of N runs (peak RSS is that of all of them: the same run N times). --records
// keeps every job's record as `topsim run` does (on disk, sim/job_store.h) and includes in the
// wall time writing jobs.jsonl (to a stream that only counts its bytes); the case is then named
// "<case>+records".
// Cases on ../shared traces are skipped with a message when the trace is absent.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "formats/results/results_json.h"
#include "scenario/scenario_loader.h"
#include "sim/experiment.h"
#include "sim/workload/synthetic_workload.h"
#include "sim/workload/workload_mix.h"

using namespace topsim;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kNoSuchScheduler = 3;  // child exit code: the case has fewer schedulers

bool markdown = false;
bool records = false;
int repeat = 1;

// An output stream that keeps nothing and counts the bytes written to it.
class CountingBuffer final : public std::streambuf {
 public:
  uint64_t bytes = 0;

 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<uint64_t>(n);
    return n;
  }
  int_type overflow(int_type c) override {
    ++bytes;
    return traits_type::not_eof(c);
  }
};

// Writes jobs.jsonl of `results` nowhere; its size in bytes.
uint64_t jobs_jsonl_bytes(const ResultSet& results) {
  CountingBuffer buffer;
  std::ostream out(&buffer);
  write_jobs_jsonl(results, out);
  if (!out) {
    std::fprintf(stderr, "bench_sim: jobs.jsonl could not be written\n");
    std::_Exit(2);
  }
  return buffer.bytes;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// `jobs` synthetic jobs on `nodes` DGX A100 (8 GPUs each). The default size mix asks 3.1 GPUs
// per job and the log-normal durations last 1.65 x 60 min on average, 5.1 GPU-hours a job: 64
// nodes (512 GPUs) sustain 100 jobs an hour. `load` is the arrival rate as a share of that.
Scenario synthetic_scenario(const std::string& name, uint32_t jobs, int nodes, double load) {
  SyntheticOptions options;
  options.jobs = jobs;
  options.seed = 42;
  options.arrival_rate_per_hour = load * 100.0 * nodes / 64.0;
  Scenario s;
  s.name = name;
  Workload workload = stream_synthetic(options);
  workload.reference_gpu = "v100";  // as a scenario's synthetic workload: run times from work on the reference GPU
  s.workload = std::make_shared<const Workload>(std::move(workload));
  s.cluster.groups.push_back({*builtin_model("dgx-a100"), nodes, NodeMode::Topology, false, {}, {}});
  s.cluster.network.transport = NetworkTransport::InfiniBand;
  s.schedulers = {"topology-aware", "default"};
  s.record_transitions = false;
  return s;
}

// `jobs` synthetic jobs of 8 to 64 GPUs on 64 HGX H100, a third each Llama 3 8B, Llama 2 13B and
// ResNet-50, 400 an hour, durations measured on H100.
Scenario llm_mix_scenario(const std::string& name, uint32_t jobs) {
  SyntheticOptions options;
  options.jobs = jobs;
  options.seed = 42;
  options.arrival_rate_per_hour = 400;
  options.size_mix = {{8, 0.5}, {16, 0.3}, {32, 0.1}, {64, 0.1}};
  options.model_mix = {{"resnet50", 1, default_batch_per_gpu("resnet50")}, {"llama3-8b", 1, 1}, {"llama2-13b", 1, 1}};
  options.reference_gpu = find_gpu_model("h100");  // every size fits both LLMs: drawn as without it
  Scenario s;
  s.name = name;
  Workload workload = stream_synthetic(options);
  set_reference_gpu(workload, "h100");  // as a scenario's synthetic workload (scenario/scenario_workload.cpp)
  s.workload = std::make_shared<const Workload>(std::move(workload));
  s.cluster.groups.push_back({*builtin_model("hgx-h100"), 64, NodeMode::Topology, false, {}, {}});
  s.cluster.network.transport = NetworkTransport::InfiniBand;
  s.schedulers = {"topology-aware", "default"};
  s.record_transitions = false;
  return s;
}

Scenario load_or_exit(const std::string& relative) {
  auto scenario = load_scenario(std::string(TOPSIM_SOURCE_DIR) + "/" + relative);
  if (!scenario) {
    std::fprintf(stderr, "bench_sim: %s\n", scenario.error().message.c_str());
    std::exit(2);
  }
  return std::move(scenario).value();
}

void print_header() {
  if (markdown) {
    std::printf("| case | scheduler | jobs | events | workload s | run s | events/s | jobs/s | peak RSS MB |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  } else {
    std::printf("%-22s %-15s %10s %10s %10s %8s %11s %11s %8s\n", "case", "scheduler", "jobs", "events", "workload s", "run s",
                "events/s", "jobs/s", "RSS MB");
  }
  std::fflush(stdout);
}

// Child process: builds case `name`'s scenario, runs its scheduler `index` and prints one row.
[[noreturn]] void run_case(const std::string& name, uint32_t jobs, size_t index) {
  const auto build_start = Clock::now();
  Scenario scenario;
  std::string label = name;
  if (name == "philly") {
    scenario = load_or_exit("scenarios/philly-552-nodes.json");
  } else if (name == "philly-plan") {
    scenario = load_or_exit("scenarios/philly-552-nodes.json");
    NodeGroupSpec dgx1 = scenario.cluster.groups.back();  // the DGX-1 V100 group
    dgx1.count = 84;
    scenario.cluster.groups = {dgx1};
  } else if (name == "fgd") {
    scenario = load_or_exit("scenarios/fgd-openb-default.json");
    scenario.schedulers = {"fgd"};
    scenario.seeds = 1;
  } else if (name == "overload") {
    scenario = synthetic_scenario(name, jobs ? jobs : 100000, 64, 1.5);
  } else if (name == "overload-fabric") {  // the same on a 3-level fabric whose uplinks jobs share
    scenario = synthetic_scenario(name, jobs ? jobs : 100000, 64, 1.5);
    scenario.cluster.network.fabric.levels = {
        {"rack", 4, "", 2, 0, false}, {"block", 4, "", 2, 0, false}, {"pod", 2, "", 2, 0, false}};
    scenario.cluster.network.fabric.rails = 8;
  } else if (name == "synthetic") {
    scenario = synthetic_scenario(name, jobs ? jobs : 1000000, 1250, 0.3072);  // 600 jobs/h
  } else if (name == "llm-mix") {
    scenario = llm_mix_scenario(name, jobs ? jobs : 20000);
  } else if (name == "synthetic-10m") {
    scenario = synthetic_scenario(name, jobs ? jobs : 10000000, 12500, 0.3072);  // 6,000 jobs/h
  }
  const double build_s = seconds_since(build_start);
  if (index >= scenario.schedulers.size()) std::_Exit(kNoSuchScheduler);
  scenario.schedulers = {scenario.schedulers[index]};
  ExperimentOptions options;
  options.keep_jobs = records;
  options.spill_dir = std::filesystem::temp_directory_path().string();
  double run_s = 1e300;
  Expected<ResultSet> results = Error{"not run"};
  for (int i = 0; i < repeat; ++i) {  // the best of `repeat` runs: the machine's noise only ever adds time
    const auto start = Clock::now();
    results = run_experiment(scenario, options);
    if (!results) {
      std::fprintf(stderr, "bench_sim: %s\n", results.error().message.c_str());
      std::_Exit(2);
    }
    if (records) jobs_jsonl_bytes(*results);
    run_s = std::min(run_s, seconds_since(start));
  }
  const Metrics& m = results->schedulers.front().runs.front().metrics;
  const double n = m.value_or("jobs", 0), events = m.value_or("events", 0);
  if (jobs && (name == "overload" || name == "overload-fabric" || name == "synthetic" || name == "llm-mix"))
    label += " " + std::to_string(jobs);
  if (records) label += "+records";
  const char* format = markdown ? "| %s | %s | %.0f | %.0f | %.2f | %.3f | %.0f | %.0f | %.0f |\n"
                                : "%-22s %-15s %10.0f %10.0f %10.2f %8.3f %11.0f %11.0f %8.0f\n";
  std::printf(format, label.c_str(), scenario.schedulers.front().c_str(), n, events, build_s, run_s, events / run_s, n / run_s,
              peak_rss_mb());
  std::fflush(stdout);
  std::_Exit(0);
}

// Runs every scheduler of the case, one child process each.
void run_all_schedulers(const std::string& name, uint32_t jobs) {
  for (size_t index = 0;; ++index) {
    const pid_t child = fork();
    if (child < 0) {
      std::perror("bench_sim: fork");
      std::exit(2);
    }
    if (child == 0) run_case(name, jobs, index);
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == kNoSuchScheduler) return;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "bench_sim: case %s failed\n", name.c_str());
      std::exit(2);
    }
  }
}

bool shared_file_present(const char* relative, const std::string& name) {
  if (std::filesystem::exists(std::string(TOPSIM_SHARED_DIR) + "/" + relative)) return true;
  std::printf("%s: skipped, %s/%s is absent\n", name.c_str(), TOPSIM_SHARED_DIR, relative);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> cases;
  uint32_t jobs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--jobs" && i + 1 < argc) {
      jobs = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--records") {
      records = true;
    } else if (arg == "--markdown") {
      markdown = true;
    } else if (arg == "philly" || arg == "philly-plan" || arg == "overload" || arg == "overload-fabric" || arg == "synthetic" ||
               arg == "synthetic-10m" || arg == "llm-mix" || arg == "fgd" || arg == "scaling") {
      cases.push_back(arg);
    } else {
      std::fprintf(stderr,
                   "bench_sim: unknown argument '%s' (cases: philly philly-plan overload overload-fabric synthetic synthetic-10m "
                   "llm-mix fgd scaling)\n",
                   arg.c_str());
      return 2;
    }
  }
  if (cases.empty()) cases = {"philly", "overload", "synthetic", "fgd"};
  print_header();
  for (const std::string& name : cases) {
    if ((name == "philly" || name == "philly-plan") && !shared_file_present("traces/philly/philly.csv", name)) continue;
    if (name == "fgd" && !shared_file_present("traces/alibaba-gpu-v2023/openb_pod_list_default.csv", name)) continue;
    if (name != "scaling") {
      run_all_schedulers(name, jobs);
      continue;
    }
    for (uint32_t n : {25000u, 50000u, 100000u, 200000u}) run_all_schedulers("overload", n);
    for (uint32_t n : {250000u, 500000u, 1000000u, 2000000u}) run_all_schedulers("synthetic", n);
  }
  return 0;
}
