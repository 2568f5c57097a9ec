// Early stop (plan/plan.h PlanRunOptions::early_stop): a replay that stops once its verdict is
// decided, and seeds that stop at the first that misses, change no answer of any plan.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "plan/plan_answer.h"
#include "tests/plan/plan_fixture.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

PlanSpec parsed(const std::string& text) {
  auto plan = parse_plan(text, "plan.json", "");
  INFO((plan.ok() ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  return std::move(plan).value();
}

// The small plan with a mean JCT and a max wait SLO added, over three seeds.
PlanSpec small_plan_three_seeds() {
  nlohmann::ordered_json plan = nlohmann::ordered_json::parse(test::kSmallPlan);
  plan["seeds"] = 3;
  plan["slo"]["jct_s.mean"] = 7200;
  plan["slo"]["wait_s.max"] = 3600;
  return parsed(plan.dump());
}

PlanResult run(const PlanSpec& plan, bool early_stop) {
  PlanRunOptions options;
  options.threads = 2;
  options.early_stop = early_stop;
  auto result = run_plan(plan, options);
  INFO((result.ok() ? std::string() : result.error().message));
  REQUIRE(result.ok());
  return std::move(result).value();
}

// Same sizes searched with the same verdicts, the same answers with the same metrics, the same
// cheapest configuration per scheduler and growth step. Returns the replays that stopped early.
size_t require_same_answers(const PlanResult& stopped, const PlanResult& full) {
  size_t decided = 0;
  REQUIRE(stopped.chains.size() == full.chains.size());
  for (size_t i = 0; i < full.chains.size(); ++i) {
    const PlanChain &a = stopped.chains[i], &b = full.chains[i];
    INFO(b.scheduler << " / " << b.candidate << " / x" << b.growth);
    CHECK(a.answer == b.answer);
    REQUIRE(a.evaluations.size() == b.evaluations.size());
    for (size_t e = 0; e < a.evaluations.size(); ++e) {
      const PlanEvaluation &x = a.evaluations[e], &y = b.evaluations[e];
      CHECK(x.units == y.units);
      CHECK(x.feasible == y.feasible);
      CHECK(x.failed_seed == y.failed_seed);
      CHECK_FALSE(y.decided);
      if (x.feasible) CHECK(x.metrics == y.metrics);  // a size that meets the SLOs runs to the end
      if (!x.decided) continue;
      ++decided;
      // What the stopped replay claims, the full one shows: that seed misses that SLO.
      CHECK(x.seeds_run <= y.seeds_run);
      const std::string slo = x.decided->slo;
      CHECK(std::any_of(y.unmet.begin(), y.unmet.end(), [&](const std::string& u) { return u.rfind(slo, 0) == 0; }));
    }
  }
  for (size_t g = 0; g < full.info.growth.size(); ++g) {
    const auto a = cheapest_per_scheduler(stopped, g), b = cheapest_per_scheduler(full, g);
    REQUIRE(a.size() == b.size());
    for (size_t s = 0; s < a.size(); ++s) CHECK((a[s] ? a[s]->index : SIZE_MAX) == (b[s] ? b[s]->index : SIZE_MAX));
  }
  return decided;
}

}  // namespace

TEST_CASE("plan: early stop changes no answer (small plan, three seeds)", "[sim][plan]") {
  const PlanSpec plan = small_plan_three_seeds();
  const PlanResult stopped = run(plan, true), full = run(plan, false);
  // Some replays of sizes that miss must stop early, or the comparison proves nothing.
  CHECK(require_same_answers(stopped, full) > 0);
  size_t fewer_seeds = 0;
  for (const PlanChain& c : stopped.chains)
    for (const PlanEvaluation& e : c.evaluations) fewer_seeds += e.seeds_run < 3 ? 1 : 0;
  CHECK(fewer_seeds > 0);  // a size that misses on its first seed is not replayed on the others
}

// The shipped plan takes ~45 s in the plain build and ~8 minutes under ASan + UBSan: the sanitizer
// build (bootstrap.sh test) leaves it to the plain one.
#ifdef TOPSIM_SANITIZED
#define TOPSIM_SHIPPED_PLAN_TAGS "[.][sim][plan][shared]"
#else
#define TOPSIM_SHIPPED_PLAN_TAGS "[sim][plan][shared]"
#endif
TEST_CASE("plan: early stop changes no answer (shipped Alibaba shares plan)", TOPSIM_SHIPPED_PLAN_TAGS) {
  if (test::shared_file("traces").empty()) return;
  auto plan = load_plan(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/plan-alibaba-shares.json");
  REQUIRE(plan.ok());
  plan->base.seeds = 1;  // the answers' equality, not the seeds, is under test; keeps ctest quick
  CHECK(require_same_answers(run(*plan, true), run(*plan, false)) > 0);
}

// The Philly plan the same way: ~40 s of replays on 2 cores, so not in ctest (tag [.]); run it
// with `build/tests/topsim_tests "[philly-plan]"` after a change to the search or the watch.
TEST_CASE("plan: early stop changes no answer (shipped Philly plan)", "[.][philly-plan]") {
  if (test::shared_file("traces").empty()) return;
  auto plan = load_plan(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/plan-philly.json");
  REQUIRE(plan.ok());
  const size_t decided = require_same_answers(run(*plan, true), run(*plan, false));
  WARN(decided << " replays stopped early");
  CHECK(decided > 0);
}

// The search finds the first seed's boundary on the first seed alone, then replays every seed
// where it settles: the answer and the size above it on every seed, the sizes above the answer it
// needed only on their first seed (first_seed_only), none below the answer.
TEST_CASE("plan: sizes above the answer are replayed on their first seed only", "[sim][plan]") {
  const PlanSpec plan = small_plan_three_seeds();
  const PlanResult result = run(plan, true);
  size_t first_seed_only = 0, answers = 0;
  for (const PlanChain& c : result.chains) {
    INFO(c.scheduler << " / " << c.candidate << " / x" << c.growth);
    if (!c.best()) continue;  // none within the bounds
    ++answers;
    const int answer = c.best()->units;
    CHECK(c.best()->seeds_run == 3);
    CHECK_FALSE(c.best()->first_seed_only);
    for (const PlanEvaluation& e : c.evaluations) {
      INFO(e.units << " units");
      if (e.units == answer + 1) CHECK(e.seeds_run == 3);
      if (e.units < answer) CHECK_FALSE(e.feasible);
      if (!e.first_seed_only) continue;
      ++first_seed_only;
      CHECK(e.feasible);
      CHECK(e.seeds_run == 1);
      CHECK(e.units > answer + 1);
    }
    const PlanEvaluation* below = c.margin();
    if (answer > 1) REQUIRE(below);
    if (below) CHECK(below->units == answer - 1);
  }
  CHECK(answers > 0);
  CHECK(first_seed_only > 0);  // else the first-seed phase saved nothing here
}
