// LLM jobs' cost in a replay: 10^5 synthetic jobs on 64 HGX H100 nodes, once as generated (CNN
// jobs) and once with 30% of them made LLM jobs (Megatron GPT 1.7B, TP up to 8 inside the job's
// GPUs, the rest data-parallel), each scheduler in turn, best of --repeat runs. Prints the wall
// time of both and their ratio (docs/performance.md: the LLM replay stays within 2x).
//
//   build/bench/bench_llm [--jobs N] [--repeat N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "core/builtin_models.h"
#include "core/llm_catalog.h"
#include "sim/experiment.h"
#include "sim/workload/synthetic_workload.h"

using namespace topsim;
using Clock = std::chrono::steady_clock;

namespace {

Scenario scenario_of(uint32_t jobs, bool llm) {
  SyntheticOptions options;
  options.jobs = jobs;
  options.seed = 42;
  options.arrival_rate_per_hour = 0.3 * 100.0;  // 30% of what 64 nodes of 8 GPUs sustain (bench_sim)
  Workload workload = stream_synthetic(options);
  workload.reference_gpu = "h100";
  if (llm) {
    // One configuration per job size: TP the largest of 8, 4, 2, 1 dividing the GPUs, DP the rest.
    auto table = std::make_shared<std::vector<LlmJob>>();
    auto by_size = std::make_shared<std::map<int, uint16_t>>();
    const LlmModel* model = *find_llm_model("megatron-1.7b");
    for (int gpus = 1; gpus <= 512; ++gpus) {
      LlmJob job{model, {}};
      for (int tp : {8, 4, 2, 1})
        if (gpus % tp == 0) {
          job.config.tp = tp;
          break;
        }
      job.config.dp = gpus / job.config.tp;
      job.config.global_batch = 4 * job.config.dp;
      (*by_size)[gpus] = static_cast<uint16_t>(table->size());
      table->push_back(job);
    }
    workload.llm_jobs = table;
    change_jobs(workload, [by_size](JobSpec& job) {
      if (!job.is_training() || job.id % 10 >= 3) return;
      const auto it = by_size->find(job.total_gpus());
      if (it == by_size->end()) return;
      job.llm = it->second;
      job.model = kNoModel;
    });
  }
  Scenario s;
  s.name = llm ? "llm-30pct" : "cnn";
  s.workload = std::make_shared<const Workload>(std::move(workload));
  s.cluster.groups.push_back({*builtin_model("hgx-h100"), 64, NodeMode::Topology, false, {}, {}});
  s.cluster.network.transport = NetworkTransport::InfiniBand;
  s.record_transitions = false;
  return s;
}

// Started LLM jobs of the last run (its throughput-by-model rows of LLMs), so a run that timed
// none cannot pass for a cheap one.
uint64_t llm_jobs_started = 0;

double best_run_s(Scenario scenario, const std::string& scheduler, int repeat) {
  scenario.schedulers = {scheduler};
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto start = Clock::now();
    auto results = run_experiment(scenario, ExperimentOptions{});
    if (!results) {
      std::fprintf(stderr, "bench_llm: %s\n", results.error().message.c_str());
      std::exit(2);
    }
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    llm_jobs_started = 0;
    for (const ModelThroughput& t : results->schedulers.front().runs.front().by_model)
      if (t.framework == "megatron") llm_jobs_started += t.jobs;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t jobs = 100000;
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc)
      jobs = static_cast<uint32_t>(std::atol(argv[++i]));
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_llm [--jobs N] [--repeat N]\n");
      return 2;
    }
  }
  const Scenario cnn = scenario_of(jobs, false), llm = scenario_of(jobs, true);
  std::printf("%-15s %10s %10s %12s %14s %7s\n", "scheduler", "jobs", "LLM jobs", "CNN run s", "30% LLM run s", "ratio");
  for (const char* scheduler : {"topology-aware", "default"}) {
    const double a = best_run_s(cnn, scheduler, repeat), b = best_run_s(llm, scheduler, repeat);
    std::printf("%-15s %10u %10llu %12.3f %14.3f %7.2f\n", scheduler, jobs, static_cast<unsigned long long>(llm_jobs_started), a,
                b, b / a);
    std::fflush(stdout);
  }
  return 0;
}
