// Planning benchmark: runs shipped plans through run_plan, as `topsim plan` does (reports not
// written), and prints per plan: searches, configurations evaluated, wall time, configurations
// per second and events per second. Then how even the shards of `--shard I/N` are for several N:
// the slowest shard's work over the mean shard's, by the jobs each search replayed (the same on
// every machine: docs/distributed.md quotes it, and a test checks it) and by its wall time here.
//
//   build/bench/bench_plan [PLAN.json...] [--threads N] [--seeds N] [--no-early-stop] [--cold-start] [--no-pooled-start]
//   [--markdown]
//
// Default plans: scenarios/plan-philly.json and scenarios/plan-alibaba-shares.json (skipped with
// a message when their ../shared trace is absent). --threads: searches at once (default: all
// cores). --seeds: replays per size instead of the plan's. --no-early-stop: every replay to its
// end (PlanRunOptions::early_stop). --cold-start: every search from one unit, not from the answer
// of the search before it in its group (PlanRunOptions::start_from_group). --no-pooled-start: a
// search from one unit bisects without the pool's estimate (PlanRunOptions::pooled_start). Also printed: replays made and replays
// stopped early.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "plan/plan.h"
#include "plan/plan_parts.h"

using namespace topsim;
using Clock = std::chrono::steady_clock;

namespace {

bool markdown = false;
bool early_stop = true;
bool start_from_group = true;
bool pooled_start = true;
int seeds = 0;                           // 0: the plan's
std::vector<std::string> balance_lines;  // --markdown: printed under the table

// "2: 1.00, 3: 1.02, ..." for the shard counts a plan of `costs` searches can use.
std::string balance_text(const std::vector<double>& costs, const std::vector<std::vector<size_t>>& groups) {
  std::string text;
  for (size_t shards : {2, 3, 4, 6, 8, 16})
    if (shards <= groups.size()) {
      char item[48];
      std::snprintf(item, sizeof item, "%s%zu: %.2f", text.empty() ? "" : ", ", shards, shard_balance(costs, groups, shards));
      text += item;
    }
  return text;
}

bool bench_plan(const std::string& path, int threads) {
  auto plan = load_plan(path);
  if (!plan) {
    std::printf("%s: skipped: %s\n", path.c_str(), plan.error().message.c_str());
    return false;
  }
  if (seeds > 0) plan->base.seeds = seeds;
  std::vector<double> chain_wall(plan_chains(*plan).size(), 0);
  std::mutex mutex;
  uint64_t events = 0;
  PlanRunOptions options;
  options.threads = threads;
  options.early_stop = early_stop;
  options.start_from_group = start_from_group;
  options.pooled_start = pooled_start;
  options.chain_done = [&](const PlanChain& chain, double wall_s) {
    const std::lock_guard lock(mutex);
    chain_wall[chain.index] = wall_s;
  };
  options.live = [&](const PlanProgress& p) {
    if (p.finished) events = p.events;
  };
  const auto start = Clock::now();
  auto result = run_plan(*plan, options);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  if (!result) {
    std::fprintf(stderr, "bench_plan: %s: %s\n", path.c_str(), result.error().message.c_str());
    return false;
  }
  size_t configurations = 0, replays = 0, decided = 0;
  for (const PlanChain& chain : result->chains) {
    configurations += chain.evaluations.size();
    for (const PlanEvaluation& e : chain.evaluations) {
      replays += static_cast<size_t>(e.seeds_run);
      decided += e.decided ? 1 : 0;
    }
  }
  const char* row = markdown ? "| %s | %d | %zu | %zu | %.2f | %.1f | %.3g |\n" : "%-22s %7d %8zu %14zu %8.2f %10.1f %10.3g\n";
  std::printf(row, plan->name.c_str(), threads, chain_wall.size(), configurations, wall,
              static_cast<double>(configurations) / wall, static_cast<double>(events) / wall);
  const std::vector<std::vector<size_t>> groups = plan_groups(*plan);
  std::vector<double> chain_jobs;
  for (const PlanChain& chain : result->chains)
    chain_jobs.push_back(static_cast<double>(jobs_replayed(chain, result->info.jobs)));
  const std::string line =
      plan->name + ": " + std::to_string(plan->base.seeds) + " seeds, " + std::to_string(replays) + " replays, " +
      std::to_string(decided) +
      " stopped early; shard balance, slowest / mean shard (N: ratio), by jobs replayed: " + balance_text(chain_jobs, groups) +
      "; by wall time: " + balance_text(chain_wall, groups);
  if (markdown)
    balance_lines.push_back(line);  // after the table
  else
    std::printf("  %s\n", line.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> plans;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--markdown") {
      markdown = true;
    } else if (arg == "--no-early-stop") {
      early_stop = false;
    } else if (arg == "--cold-start") {
      start_from_group = false;
    } else if (arg == "--no-pooled-start") {
      pooled_start = false;
    } else if (arg == "--seeds" && i + 1 < argc) {
      seeds = std::atoi(argv[++i]);
      if (seeds < 1) {
        std::fprintf(stderr, "bench_plan: --seeds must be 1 or more\n");
        return 2;
      }
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
      if (threads < 1) {
        std::fprintf(stderr, "bench_plan: --threads must be 1 or more\n");
        return 2;
      }
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr,
                   "bench_plan: unknown option '%s' (usage: bench_plan [PLAN.json...] [--threads N] [--seeds N] "
                   "[--no-early-stop] [--cold-start] [--no-pooled-start] [--markdown])\n",
                   arg.c_str());
      return 2;
    } else {
      plans.push_back(arg);
    }
  }
  if (plans.empty())
    for (const char* name : {"plan-philly.json", "plan-alibaba-shares.json"})
      plans.push_back((std::filesystem::path(TOPSIM_SOURCE_DIR) / "scenarios" / name).string());
  if (markdown) {
    std::printf("| plan | threads | searches | configurations | wall s | configurations/s | events/s |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  } else {
    std::printf("%-22s %7s %8s %14s %8s %10s %10s\n", "plan", "threads", "searches", "configurations", "wall s", "configs/s",
                "events/s");
  }
  for (const std::string& path : plans) bench_plan(path, threads);
  if (!balance_lines.empty()) std::printf("\n");
  for (const std::string& line : balance_lines) std::printf("- %s\n", line.c_str());
  return 0;
}
