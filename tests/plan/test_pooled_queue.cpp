// The pool a plan's search probes first from (plan/pooled_queue.h): list scheduling with
// backfilling on one pool of GPUs, judged by the wait and JCT SLOs. The search's answers with and
// without it: tests/plan/test_plan.cpp.
#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "plan/pooled_queue.h"
#include "tests/scenario/scenario_support.h"
#include "util/statistics.h"

using namespace topsim;

namespace {

Slo at_most(const std::string& metric, double max) { return Slo{metric, std::nullopt, max}; }

// `count` jobs of `milli` each, all submitted at 0, each running `run_s`.
std::vector<PooledJob> burst(int count, int64_t milli, int64_t run_s) {
  return std::vector<PooledJob>(static_cast<size_t>(count), PooledJob{0, run_s * 1000, milli});
}

}  // namespace

TEST_CASE("pooled queue: jobs wait for free GPUs, the waits judged as the replays judge them", "[plan][pooled]") {
  // Expected: 4 one-GPU jobs of 100 s on 2 GPUs: waits 0, 0, 100, 100. The max exceeds 50 s, the
  // p50 (2nd smallest) is 0; on 4 GPUs nobody waits. The JCT mean on 2 GPUs is 150 s.
  const auto jobs = burst(4, 1000, 100);
  CHECK_FALSE(pooled_meets(jobs, 2000, {at_most("wait_s.max", 50)}));
  CHECK(pooled_meets(jobs, 2000, {at_most("wait_s.max", 100)}));
  CHECK(pooled_meets(jobs, 2000, {at_most("wait_s.p50", 0)}));
  CHECK(pooled_meets(jobs, 4000, {at_most("wait_s.max", 0)}));
  CHECK(pooled_meets(jobs, 2000, {at_most("jct_s.mean", 150)}));
  CHECK_FALSE(pooled_meets(jobs, 2000, {at_most("jct_s.mean", 149)}));
  CHECK_FALSE(pooled_meets(jobs, 2000, {at_most("wait_s.mean", 49)}));
  // A job larger than the pool never starts.
  CHECK_FALSE(pooled_meets(burst(1, 3000, 10), 2000, {at_most("wait_s.p95", 1e9)}));
  // GPU shares take their share of a card: four halves fit in two GPUs at once.
  CHECK(pooled_meets(burst(4, 500, 100), 2000, {at_most("wait_s.max", 0)}));
}

TEST_CASE("pooled queue: a tenant's SLO is judged on its jobs alone", "[plan][pooled]") {
  // Expected: on 1 GPU, a's job (0 s, runs 100 s) and b's (1 s): b's waits 99 s. wait_s.max@a <= 0
  // holds, wait_s.max@b <= 50 does not, an unknown tenant's bound is not judged at all, and the
  // means are over the tenant's jobs (b: one wait of 99 s; all: 49.5 s).
  const std::vector<PooledJob> jobs{{0, 100000, 1000, 0}, {1000, 10000, 1000, 1}};
  const std::vector<std::string> tenants{"a", "b"};
  CHECK(pooled_meets(jobs, 1000, {at_most("wait_s.max@a", 0)}, tenants));
  CHECK_FALSE(pooled_meets(jobs, 1000, {at_most("wait_s.max@b", 50)}, tenants));
  CHECK(pooled_meets(jobs, 1000, {at_most("wait_s.mean@b", 99)}, tenants));
  CHECK_FALSE(pooled_meets(jobs, 1000, {at_most("wait_s.mean@b", 98.9)}, tenants));
  CHECK(pooled_meets(jobs, 1000, {at_most("wait_s.mean", 49.5)}, tenants));
  CHECK_FALSE(pooled_judges({at_most("wait_s.max@c", 0)}, tenants));
  CHECK_FALSE(pooled_judges({at_most("wait_s.max@a", 0)}));
  CHECK(pooled_judges({at_most("jct_s.p95@b", 0)}, tenants));
}

TEST_CASE("pooled queue: a later job that fits starts before an earlier one that does not", "[plan][pooled]") {
  // Expected: on 3 GPUs, A (2 GPUs, 100 s) at 0, B (2 GPUs) at 1 s waits for A, C (1 GPU) at 2 s
  // starts at once: waits 0, 99, 0, so the p50 is 0. In strict arrival order C would wait 98 s.
  const std::vector<PooledJob> jobs{{0, 100000, 2000}, {1000, 50000, 2000}, {2000, 10000, 1000}};
  CHECK(pooled_meets(jobs, 3000, {at_most("wait_s.p50", 0)}));
  CHECK_FALSE(pooled_meets(jobs, 3000, {at_most("wait_s.max", 98)}));
}

TEST_CASE("pooled queue: the fewest units whose pool meets the SLOs, inside the bracket", "[plan][pooled]") {
  // Expected: 10 one-GPU jobs at once need 10 GPUs for no wait: 5 units of 2 GPUs; the answer is
  // the bracket's hit when nothing in between meets, and none for SLOs the pool cannot judge.
  const auto jobs = burst(10, 1000, 100);
  const std::vector<Slo> none_waits{at_most("wait_s.max", 0)};
  CHECK(pooled_units(jobs, 2000, none_waits, {}, 1, 16) == 5);
  CHECK(pooled_units(jobs, 2000, none_waits, {}, 1, 4) == 4);
  CHECK(pooled_units(jobs, 2000, none_waits, {}, 5, 6) == std::nullopt);  // nothing between
  CHECK_FALSE(pooled_judges({at_most("rejected", 0)}));
  CHECK(pooled_judges({at_most("rejected", 0), at_most("jct_s.p95", 10)}));
  CHECK(pooled_units(jobs, 2000, {at_most("rejected", 0)}, {}, 1, 16) == std::nullopt);
  CHECK(pooled_units({}, 2000, none_waits, {}, 1, 16) == std::nullopt);
}

namespace {

// The pool's schedule by its definition: at each instant, the waiting jobs scanned in arrival
// order, each started if its GPUs are free; every job's wait, seconds (all start: no job is
// larger than the pool).
std::vector<double> scan_waits(const std::vector<PooledJob>& jobs, int64_t capacity) {
  std::vector<int64_t> start(jobs.size(), -1);
  std::vector<std::pair<int64_t, int64_t>> running;  // (finish, milli)
  int64_t free = capacity;
  std::set<int64_t> instants;
  for (const PooledJob& j : jobs) instants.insert(j.submit_ms);
  while (!instants.empty()) {
    const int64_t now = *instants.begin();
    instants.erase(instants.begin());
    for (auto it = running.begin(); it != running.end();)
      if (it->first <= now)
        free += it->second, it = running.erase(it);
      else
        ++it;
    for (size_t i = 0; i < jobs.size(); ++i)
      if (start[i] < 0 && jobs[i].submit_ms <= now && jobs[i].milli <= free) {
        start[i] = now;
        free -= jobs[i].milli;
        running.emplace_back(now + jobs[i].run_ms, jobs[i].milli);
        instants.insert(now + jobs[i].run_ms);
      }
  }
  std::vector<double> waits;
  for (size_t i = 0; i < jobs.size(); ++i) waits.push_back(static_cast<double>(start[i] - jobs[i].submit_ms) / 1000.0);
  return waits;
}

}  // namespace

TEST_CASE("pooled queue: the schedule is the arrival-order scan's, with many request sizes", "[plan][pooled]") {
  // Expected: on random bursts of whole-GPU jobs and GPU shares (sizes 100 to 8000 milli), each
  // wait percentile of the pool is the plain scan's: the pool meets a bound at that value and
  // misses one 0.5 ms below it, for several pool sizes.
  std::mt19937_64 rng(11);
  size_t positive = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<PooledJob> jobs;
    int64_t t = 0;
    const int count = 20 + static_cast<int>(rng() % 60);
    for (int i = 0; i < count; ++i) {
      t += static_cast<int64_t>(rng() % 3) * 1000;
      const int64_t milli = rng() % 3 == 0 ? 100 * static_cast<int64_t>(1 + rng() % 10) : 1000 * int64_t{1 << (rng() % 4)};
      jobs.push_back({t, 1000 * static_cast<int64_t>(1 + rng() % 50), milli});
    }
    for (const int64_t capacity : {8000, 12000, 24000}) {
      std::vector<double> waits = scan_waits(jobs, capacity);
      std::sort(waits.begin(), waits.end());
      for (const char* stat : {"p50", "p95", "p99", "max"}) {
        const std::string metric = std::string("wait_s.") + stat;
        const double p = stat[0] == 'm' ? 1.0 : std::stod(stat + 1) / 100;
        const double value = nearest_rank(waits, p);
        INFO("round " << round << ", " << capacity << " milli, " << metric << " " << value);
        CHECK(pooled_meets(jobs, capacity, {at_most(metric, value)}));
        if (value > 0) CHECK_FALSE(pooled_meets(jobs, capacity, {at_most(metric, value - 0.0005)}));
        positive += value > 0;
      }
    }
  }
  CHECK(positive > 100);  // the pools were small enough for jobs to wait
}

TEST_CASE("pooled queue: a job's run time on the pool is its replay's on an idle cluster", "[plan][pooled]") {
  // Jobs far apart in time, so each runs alone on idle nodes under the topology-aware scheduler:
  // its replayed run time must be JobTimer::ideal_run_ms, the pool's. CNN jobs timed by
  // iterations and by a trace duration on the workload's reference GPU (V100 here, H100 nodes),
  // and LLM jobs (3D-parallel step model) of both kinds.
  const std::string jobs = R"([
    {"name": "cnn-iter", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "resnet50", "iterations": 5000},
    {"name": "cnn-duration", "submit_s": 100000, "workers": 1, "gpus_per_worker": 4, "model": "vgg16", "duration_s": 3600},
    {"name": "llm-iter", "submit_s": 200000, "workers": 4, "gpus_per_worker": 8, "iterations": 50,
     "llm": {"model": "llama3-8b", "tp": 2, "global_batch": 256, "sequence_parallel": true, "precision": "fp8"}},
    {"name": "llm-duration", "submit_s": 300000, "workers": 2, "gpus_per_worker": 8, "duration_s": 7200,
     "llm": {"model": "llama3-8b", "tp": 4, "global_batch": 64, "precision": "bf16"}}])";
  const Scenario scenario =
      test::scenario_from(test::scenario_json(R"([{"model": "hgx-h100", "count": 6}])", jobs,
                                              R"(, "schedulers": ["topology-aware"])", R"(, "network": {"transport": "ib"})"));
  const std::vector<PooledJob> pooled = pooled_jobs(scenario, *scenario.workload, nullptr);
  REQUIRE(pooled.size() == 4);
  const RunResult result = test::run(scenario, "topology-aware");
  for (const char* name : {"cnn-iter", "cnn-duration", "llm-iter", "llm-duration"}) {
    INFO(name);
    const JobRecord& r = test::record(result, scenario, name);
    REQUIRE(r.state == JobState::Finished);
    const auto at = std::find_if(pooled.begin(), pooled.end(), [&](const PooledJob& j) { return j.submit_ms == r.submit_ms; });
    REQUIRE(at != pooled.end());
    CHECK(r.start_ms == r.submit_ms);
    CHECK(r.finish_ms - r.start_ms == at->run_ms);
    CHECK(at->run_ms > 0);
  }
}
