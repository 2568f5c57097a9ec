#include <string>

#include <catch2/catch.hpp>

#include "plan/plan.h"
#include "reports/plan_report.h"

using namespace topsim;

namespace {

PlanEvaluation evaluation(int nodes, double cost_per_hour, double wait_p95_s) {
  PlanEvaluation e;
  e.units = e.nodes = nodes;
  e.gpus = 8 * nodes;
  e.cost_per_hour = cost_per_hour;
  e.feasible = wait_p95_s <= 600;
  e.metrics = {{"wait_s.p95", wait_p95_s}};
  return e;
}

// One scheduler, one candidate, whose sizes give the p95 waits `waits` at rising cost.
PlanResult plan_with_waits(const std::vector<double>& waits) {
  PlanResult r;
  r.info.name = "p";
  r.info.schedulers = {"topology-aware"};
  r.info.growth = {1};
  r.info.candidates = {{"dgx-a100", 1, 8, 32.77, 6500, {{"dgx-a100", 1}}}};
  PlanChain chain;
  chain.scheduler = "topology-aware";
  chain.candidate = "dgx-a100";
  for (size_t i = 0; i < waits.size(); ++i)
    chain.evaluations.push_back(evaluation(static_cast<int>(i) + 1, 32.77 * (i + 1), waits[i]));
  r.chains.push_back(chain);
  return r;
}

}  // namespace

TEST_CASE("reports::plan html: the cost vs p95 wait frontier goes logarithmic when waits span decades", "[reports][plan]") {
  // Expectation: waits from 9 x 10^7 s down to 0 s: a log axis, the 0 drawn at the floor (half of
  // 0.5 s) and said in the label; waits within two decades keep a linear axis.
  const std::string wide = render_plan_html(plan_with_waits({9e7, 4e4, 0.5, 0}));
  CHECK_THAT(wide, Catch::Contains("\"y_log\":true") || Catch::Contains("\"y_log\": true"));
  CHECK_THAT(wide, Catch::Contains("p95 wait (s), log scale; 0 drawn at 0.25 s"));
  const std::string narrow = render_plan_html(plan_with_waits({900, 500, 100}));
  CHECK_THAT(narrow, Catch::Contains("\"y_log\":false") || Catch::Contains("\"y_log\": false"));
}

TEST_CASE("reports::plan html: the p95 wait SLO is a line and the chosen configuration a point", "[reports][plan]") {
  // Expectation: with an SLO of 600 s on wait_s.p95 and sizes at 900, 500, 100 s, the chart has
  // the SLO as a dataset and the answer (2 nodes, the cheapest meeting it) as one of its own.
  PlanResult r = plan_with_waits({900, 500, 100});
  r.info.slos = {{"wait_s.p95", std::nullopt, 600}};
  r.chains.front().answer = 1;
  const std::string html = render_plan_html(r);
  CHECK_THAT(html, Catch::Contains("SLO: wait_s.p95 \\u003c= 600"));
  CHECK_THAT(html, Catch::Contains("chosen: topology-aware, 2 dgx-a100"));
  r.chains.front().answer.reset();  // no answer: nothing to highlight
  CHECK_THAT(render_plan_html(r), !Catch::Contains("chosen: "));
}

TEST_CASE("reports::plan html: the frontier's table says how many seeds each p95 wait is over", "[reports][plan]") {
  PlanResult r = plan_with_waits({900, 500, 100});
  for (PlanEvaluation& e : r.chains.front().evaluations) e.seeds_run = 3;
  PlanEvaluation& above = r.chains.front().evaluations.back();  // a size above the answer, first seed only
  above.seeds_run = 1;
  above.first_seed_only = true;
  const std::string html = render_plan_html(r);
  CHECK_THAT(html, Catch::Contains("p95 wait (s)</th><th>seeds</th>"));
  CHECK_THAT(html, Catch::Contains("yes, on its first seed"));
}
