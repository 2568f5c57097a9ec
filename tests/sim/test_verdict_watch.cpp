// The early verdict of a run (sim/verdict_watch.h): a bound is reported lost exactly when no
// way the run could end keeps it, counting the jobs still to close.
#include <catch2/catch.hpp>

#include "sim/job.h"
#include "sim/job_tally.h"
#include "sim/verdict_watch.h"

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

// Closes one finished job with the given wait and JCT (seconds) in the tally.
void finished(JobTally& t, double wait_s, double jct_s = 0, bool share = false) {
  ++t.jobs;
  ++t.finished;
  t.waits.push_back(wait_s);
  t.jcts.push_back(jct_s);
  if (!share) return;
  ++t.shares;
  t.share_waits.push_back(wait_s);
}

}  // namespace

TEST_CASE("sim::VerdictWatch a percentile is lost once the late jobs outnumber any sample's tail", "[sim]") {
  const Workload w = jobs(100);
  VerdictWatch watch({{"wait_s.p95", 600}}, w);
  JobTally t;
  SECTION("100 jobs: p95 is the 95th smallest, so 6 late jobs lose it; the watch waits for 7 (one of slack)") {
    for (int i = 0; i < 6; ++i) finished(t, 601);
    CHECK_FALSE(watch.lost(t));
    finished(t, 601);
    REQUIRE(watch.lost(t));
    CHECK(watch.lost(t)->metric == "wait_s.p95");
  }
  SECTION("jobs rejected shrink the largest sample: 10 rejected leave 90, whose tail is 4 (5 with slack)") {
    t.jobs = t.rejected = 10;
    for (int i = 0; i < 5; ++i) finished(t, 700);
    CHECK_FALSE(watch.lost(t));
    finished(t, 700);
    CHECK(watch.lost(t));
  }
  SECTION("waits at the bound are not above it") {
    for (int i = 0; i < 50; ++i) finished(t, 600);
    CHECK_FALSE(watch.lost(t));
  }
}

TEST_CASE("sim::VerdictWatch max, mean, counts and share waits", "[sim]") {
  JobTally t;
  SECTION("max: one value above the bound") {
    VerdictWatch watch({{"jct_s.max", 100}}, jobs(10));
    finished(t, 0, 100);
    CHECK_FALSE(watch.lost(t));
    finished(t, 0, 101);
    CHECK(watch.lost(t));
  }
  SECTION("mean: lost when the sum so far over all 10 jobs is above the bound") {
    VerdictWatch watch({{"wait_s.mean", 10}}, jobs(10));
    finished(t, 100);  // 100 / 10 = 10: not above
    CHECK_FALSE(watch.lost(t));
    finished(t, 1);
    CHECK(watch.lost(t));
  }
  SECTION("rejected: a count above its bound") {
    VerdictWatch watch({{"rejected", 0}}, jobs(10));
    CHECK_FALSE(watch.lost(t));
    t.jobs = t.rejected = 1;
    CHECK(watch.lost(t));
  }
  SECTION("share waits count only the share jobs: 3 of 4 late lose the p50, the watch waits for 4") {
    VerdictWatch watch({{"share_wait_s.p50", 60}}, jobs(10, 4));
    for (int i = 0; i < 5; ++i) finished(t, 1000);  // not shares
    for (int i = 0; i < 3; ++i) finished(t, 61, 0, true);
    CHECK_FALSE(watch.lost(t));
    finished(t, 61, 0, true);
    CHECK(watch.lost(t));
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
