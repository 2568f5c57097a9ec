// Renderings of a capacity plan (plan/plan.h, docs/planning.md): the console summary (a table
// per growth step and a headline sentence), plan.json (schema topsim.plan/1: every evaluated
// configuration with its metrics), plan.csv, summary.md, report.html (with the cost vs p95
// wait frontier per scheduler), and a shard's part (schema topsim.plan-part/1, exact numbers,
// which `topsim merge` reads back). Deterministic: the same result gives the same bytes.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "reports/reporter.h"
#include "util/expected.h"

namespace topsim {

// The cheapest configuration meeting the SLOs for each scheduler at one growth step (nullptr
// when none within the bounds), in the plan's scheduler order.
std::vector<const PlanChain*> cheapest_per_scheduler(const PlanResult& result, size_t growth);
// Whether every growth step has a configuration that meets the SLOs.
bool plan_feasible(const PlanResult& result);
// One sentence per growth step, e.g. "topology-aware meets the SLOs with 14 dgx-a100
// ($334,754/month); default needs 17 dgx-a100: 3 nodes, $71,733/month more."
std::vector<std::string> plan_headlines(const PlanResult& result);

// A point of a scheduler's cost vs p95 wait frontier: no other evaluated configuration (where
// every admitted job finished) is both cheaper and quicker.
struct FrontierPoint {
  double cost_per_month = 0, wait_p95_s = 0;
  std::string candidate;
  int nodes = 0;
  bool feasible = false;
};
std::vector<FrontierPoint> plan_frontier(const PlanResult& result, size_t growth, const std::string& scheduler);

std::string render_plan_text(const PlanResult& result);
std::string render_plan_json(const PlanResult& result);
std::string render_plan_part(const PlanResult& result, size_t shard, size_t shards);
std::string render_plan_markdown(const PlanResult& result);
std::string render_plan_html(const PlanResult& result);
void write_plan_csv(const PlanResult& result, std::ostream& out);

// plan.json, summary.txt, plan.csv, and with `report` summary.md and report.html.
std::vector<std::string> plan_file_names(bool report);
[[nodiscard]] Status write_plan_reports(const PlanResult& result, OutputSink& sink, bool report);

}  // namespace topsim
