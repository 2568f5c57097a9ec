// A quota plan's step (plan/quota_moves.h), worked by hand on three teams: who receives, who
// gives, the order among donors, floors, splits already tried, and the sentence when no move is
// left.
#include <cmath>

#include <catch2/catch.hpp>

#include "plan/quota_moves.h"

using namespace topsim;

namespace {

QuotaSearch three_teams() {
  QuotaSearch q;
  q.tenants = {"a", "b", "c"};
  q.start = {16, 16, 16};
  q.floor = {4, 4, 8};
  q.step_gpus = 4;
  return q;
}

PlanEvaluation evaluation(std::map<std::string, double> metrics) {
  PlanEvaluation e;
  e.metrics = std::move(metrics);
  e.unmet = {"wait_s.p95@b <= 600 (got 1,200)"};
  return e;
}

}  // namespace

TEST_CASE("quota moves: distress is each team's worst SLO ratio, 0 for a team without SLOs", "[plan][quota]") {
  const QuotaSearch q = three_teams();
  const std::vector<Slo> slos = {
      {"wait_s.p95@a", std::nullopt, 600.0}, {"jct_s.p50@a", std::nullopt, 1000.0}, {"finished@b", 10.0, std::nullopt}};
  std::vector<double> distress;
  std::vector<bool> missing;
  tenant_distress(q, slos, evaluation({{"wait_s.p95@a", 300}, {"jct_s.p50@a", 1500}, {"finished@b", 40}}), distress, missing);
  CHECK(distress == std::vector<double>{1.5, 0.25, 0});  // a: max(300/600, 1500/1000); b: 10/40
  CHECK(missing == std::vector<bool>{true, false, false});
}

TEST_CASE("quota moves: the most distressed missing team receives from the team with the most slack", "[plan][quota]") {
  const QuotaSearch q = three_teams();
  const std::vector<Slo> slos = {
      {"wait_s.p95@a", std::nullopt, 600.0}, {"wait_s.p95@b", std::nullopt, 600.0}, {"wait_s.p95@c", std::nullopt, 600.0}};
  std::vector<int64_t> split = q.start;
  std::string why;
  // b misses worst (2.0), a misses too (1.2): b receives; c meets (0.5) and gives before a.
  const PlanEvaluation e = evaluation({{"wait_s.p95@a", 720}, {"wait_s.p95@b", 1200}, {"wait_s.p95@c", 300}});
  REQUIRE(next_quota_split(q, slos, e, split, {q.start}, why));
  CHECK(split == std::vector<int64_t>{16, 20, 12});
  // That split tried already: the next donor is a (missing, but the only other one left).
  split = q.start;
  REQUIRE(next_quota_split(q, slos, e, split, {q.start, {16, 20, 12}}, why));
  CHECK(split == std::vector<int64_t>{12, 20, 16});
}

TEST_CASE("quota moves: donors keep their floor, and between meeting teams the larger quota gives", "[plan][quota]") {
  const QuotaSearch q = three_teams();
  const std::vector<Slo> slos = {{"wait_s.p95@a", std::nullopt, 600.0}};
  std::string why;
  // Only a has an SLO and misses it; b and c both have no distress: the larger quota (c) gives.
  std::vector<int64_t> split = {16, 8, 12};
  REQUIRE(next_quota_split(q, slos, evaluation({{"wait_s.p95@a", 900}}), split, {}, why));
  CHECK(split == std::vector<int64_t>{20, 8, 8});
  // c is at its floor (8) now, b gives down to 4, then nobody can.
  REQUIRE(next_quota_split(q, slos, evaluation({{"wait_s.p95@a", 900}}), split, {}, why));
  CHECK(split == std::vector<int64_t>{24, 4, 8});
  const std::vector<int64_t> last = split;
  CHECK_FALSE(next_quota_split(q, slos, evaluation({{"wait_s.p95@a", 900}}), split, {}, why));
  CHECK(split == last);
  CHECK(why ==
        "a misses its SLOs and no team can give it 4 GPUs more without going below its largest job or repeating a split "
        "already tried");
}

TEST_CASE("quota moves: a miss that is no team's SLO moves nothing, and says so", "[plan][quota]") {
  const QuotaSearch q = three_teams();
  const std::vector<Slo> slos = {{"wait_s.p95", std::nullopt, 600.0}, {"wait_s.p95@a", std::nullopt, 600.0}};
  PlanEvaluation e = evaluation({{"wait_s.p95", 900}, {"wait_s.p95@a", 100}});
  e.unmet = {"wait_s.p95 <= 600 (got 900)"};
  std::vector<int64_t> split = q.start;
  std::string why;
  CHECK_FALSE(next_quota_split(q, slos, e, split, {}, why));
  CHECK(split == q.start);
  CHECK(why == "it misses no team's SLO (wait_s.p95 <= 600 (got 900)): moving quota between teams does not serve it");
}

TEST_CASE("quota moves: a team none of whose jobs finished misses most, and does not give", "[plan][quota]") {
  const QuotaSearch q = three_teams();
  const std::vector<Slo> slos = {
      {"wait_s.p95@a", std::nullopt, 600.0}, {"wait_s.p95@b", std::nullopt, 600.0}, {"wait_s.p95@c", std::nullopt, 600.0}};
  // a misses (1.2); b submitted 3 jobs and finished none (its wait is not measured); c has no job.
  const PlanEvaluation e = evaluation({{"wait_s.p95@a", 720}, {"jobs@a", 5}, {"jobs@b", 3}, {"jobs@c", 0}});
  std::vector<double> distress;
  std::vector<bool> missing;
  tenant_distress(q, slos, e, distress, missing);
  // Expected: b misses without bound (before: 0 and not missing, the first donor); c's SLO does
  // not apply.
  CHECK(distress == std::vector<double>{1.2, HUGE_VAL, 0});
  CHECK(missing == std::vector<bool>{true, true, false});
  std::vector<int64_t> split = q.start;
  std::string why;
  REQUIRE(next_quota_split(q, slos, e, split, {q.start}, why));
  CHECK(split == std::vector<int64_t>{16, 20, 12});  // b receives, from c
}
