// The early verdict of a run (sim/verdict_watch.h): a bound is reported lost exactly when no
// way the run could end keeps it, counting the jobs still to close and the jobs already past the
// bound that have not started (finished) yet.
#include <catch2/catch.hpp>

#include "sim/experiment.h"
#include "sim/job.h"
#include "sim/job_tally.h"
#include "sim/verdict_watch.h"
#include "tests/scenario/scenario_support.h"

using namespace topsim;

namespace {

Workload jobs(size_t n, size_t shares = 0) {
  Workload w;
  for (size_t i = 0; i < n; ++i) {
    JobSpec job;
    job.id = static_cast<uint32_t>(i);
    if (i < shares) job.kind = JobKind::Share;
    w.jobs.push_back(job);
  }
  return w;
}

constexpr int64_t kSecond = 1000;

// A run as the engine tells the watch and the tally about it (times in ms).
struct Run {
  VerdictWatch watch;
  JobTally tally;
  std::vector<int64_t> submit, start;
  std::vector<bool> share;
  Run(const std::vector<StopBound>& bounds, const Workload& w)
      : watch(bounds, w), submit(w.size(), -1), start(w.size(), -1), share(w.size(), false) {
    for (size_t i = 0; i < w.size(); ++i) share[i] = w.jobs[i].is_share();
  }
  void submitted(uint32_t job, int64_t at) {
    submit[job] = at;
    watch.submitted(job, at, share[job]);
  }
  void started(uint32_t job, int64_t at) {
    start[job] = at;
    watch.started(job, submit[job], at, share[job]);
  }
  void finished(uint32_t job, int64_t at) {
    watch.finished(job, submit[job], at);
    ++tally.jobs;
    ++tally.finished;
    tally.waits.push_back(static_cast<double>(start[job] - submit[job]) / 1000.0);
    tally.jcts.push_back(static_cast<double>(at - submit[job]) / 1000.0);
    if (!share[job]) return;
    ++tally.shares;
    tally.share_waits.push_back(tally.waits.back());
  }
  const StopBound* lost(int64_t now) { return watch.lost(tally, now); }
};

}  // namespace

TEST_CASE("sim::VerdictWatch a percentile is lost once the late jobs outnumber any sample's tail", "[sim]") {
  const Workload w = jobs(100);
  Run run({{"wait_s.p95", 600}}, w);
  for (uint32_t j = 0; j < 99; ++j) run.submitted(j, 0);
  run.submitted(99, 100 * kSecond);
  SECTION("100 jobs: p95 is the 95th smallest, so 6 late jobs lose it; the watch waits for 7 (one of slack)") {
    for (uint32_t j = 0; j < 92; ++j) run.started(j, 10 * kSecond);
    run.started(99, 110 * kSecond);
    CHECK_FALSE(run.lost(600 * kSecond));  // 7 jobs have waited 600 s: not above the bound yet
    REQUIRE(run.lost(600 * kSecond + 1));  // they wait longer whenever they start: decided before any finishes
    CHECK(run.lost(600 * kSecond + 1)->metric == "wait_s.p95");
  }
  SECTION("6 late jobs are not enough, whether they start late or wait on") {
    for (uint32_t j = 0; j < 94; ++j) run.started(j, 10 * kSecond);
    run.started(99, 110 * kSecond);
    run.started(94, 700 * kSecond);
    CHECK_FALSE(run.lost(800 * kSecond));
  }
  SECTION("jobs rejected shrink the largest sample: 10 rejected leave 90, whose tail is 4 (5 with slack)") {
    run.tally.jobs = run.tally.rejected = 10;  // closed: the sample holds at most 90
    for (uint32_t j = 0; j < 94; ++j) run.started(j, 10 * kSecond);
    CHECK_FALSE(run.lost(601 * kSecond));  // jobs 94-98 late: 5
    CHECK(run.lost(701 * kSecond));        // and job 99, submitted 100 s later: 6
  }
  SECTION("a job that starts exactly at the bound waited the bound, not more") {
    for (uint32_t j = 0; j < 100; ++j) run.started(j, 600 * kSecond);
    CHECK_FALSE(run.lost(10000 * kSecond));
  }
}

TEST_CASE("sim::VerdictWatch max, mean, counts and share waits", "[sim]") {
  SECTION("max: one JCT above the bound, finished or still running") {
    Run run({{"jct_s.max", 100}}, jobs(10));
    run.submitted(0, 0);
    run.submitted(1, 0);
    run.started(0, 0);
    run.started(1, 0);
    run.finished(0, 100 * kSecond);
    CHECK_FALSE(run.lost(100 * kSecond));
    CHECK(run.lost(100 * kSecond + 1));  // job 1 is still running: its JCT will be above 100 s
  }
  SECTION("mean: the waits so far, a job waiting counted at its wait so far, over all 10 jobs") {
    Run run({{"wait_s.mean", 10}}, jobs(10));
    run.submitted(0, 0);
    run.submitted(1, 50 * kSecond);
    run.started(0, 40 * kSecond);          // waited 40 s
    CHECK_FALSE(run.lost(110 * kSecond));  // 40 + 60 = 100 over 10 jobs: 10, not above
    CHECK(run.lost(110 * kSecond + 1));
  }
  SECTION("rejected: a count above its bound") {
    Run run({{"rejected", 0}}, jobs(10));
    CHECK_FALSE(run.lost(0));
    run.tally.jobs = run.tally.rejected = 1;
    CHECK(run.lost(0));
  }
  SECTION("share waits count only the share jobs: 3 of 4 late lose the p50, the watch waits for 4") {
    Run run({{"share_wait_s.p50", 60}}, jobs(10, 4));
    for (uint32_t j = 0; j < 10; ++j) run.submitted(j, 0);  // jobs 4-9 (not shares) never start
    run.started(0, 61 * kSecond);
    run.started(1, 61 * kSecond);
    run.started(2, 61 * kSecond);
    run.started(3, 10 * kSecond);
    CHECK_FALSE(run.lost(1000 * kSecond));
    Run late({{"share_wait_s.p50", 60}}, jobs(10, 4));
    for (uint32_t j = 0; j < 10; ++j) late.submitted(j, 0);
    CHECK(late.lost(60 * kSecond + 1));  // all 4 shares are past the bound
  }
  SECTION("bounds it cannot decide early are left out") {
    CHECK_FALSE(decidable_early("gpu_utilisation"));
    CHECK_FALSE(decidable_early("never_placed"));
    CHECK_FALSE(decidable_early("images_per_sec.mean"));
    CHECK(decidable_early("wait_s.p99"));
    VerdictWatch watch({{"makespan_s", 1}}, jobs(10));
    CHECK(watch.empty());
  }
}

TEST_CASE("sim::VerdictWatch a run stopped early has no figures, one that keeps its bounds has them all", "[sim]") {
  // One 8-GPU node, three jobs of 8 GPUs submitted together: the second and third wait 100 and
  // 200 s, so a p95 wait bound of 50 s is lost once the third has waited 50 s (decided before
  // anything finishes), while a bound of 300 s holds to the end.
  const Scenario s = test::scenario_from(test::scenario_json(
      R"([{"model": "dgx1-v100", "count": 1}])",
      R"([{"name": "a", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 100},
          {"name": "b", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 100},
          {"name": "c", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 100}])",
      R"(, "schedulers": ["topology-aware"])"));
  ExperimentOptions options;
  options.stop_when = {{"wait_s.p95", 50}};
  auto stopped = run_experiment(s, options);
  REQUIRE(stopped.ok());
  const RunResult& lost = stopped->schedulers.front().runs.front();
  REQUIRE(lost.decided);
  CHECK(lost.decided->bound.metric == "wait_s.p95");
  CHECK(lost.metrics.all().empty());  // a partial run's figures would read as the configuration's
  CHECK(lost.by_model.empty());
  CHECK(lost.by_node_type.empty());
  options.stop_when = {{"wait_s.p95", 300}};
  auto kept = run_experiment(s, options);
  REQUIRE(kept.ok());
  const RunResult& whole = kept->schedulers.front().runs.front();
  CHECK_FALSE(whole.decided);
  CHECK(whole.metrics.get("finished") == 3.0);
  CHECK_FALSE(whole.by_model.empty());
}
