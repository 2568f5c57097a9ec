// Renderings of a capacity plan (plan/plan.h, docs/planning.md): the console summary (a table
// per growth step and a headline sentence), plan.csv, summary.md and report.html (with the cost
// vs p95 wait frontier per scheduler); write_plan_reports also writes plan.json
// (plan/plan_parts.h). Deterministic: the same result gives the same bytes.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "plan/plan_answer.h"
#include "reports/reporter.h"
#include "util/expected.h"

namespace topsim {

std::string render_plan_text(const PlanResult& result);
std::string render_plan_markdown(const PlanResult& result);
std::string render_plan_html(const PlanResult& result);
void write_plan_csv(const PlanResult& result, std::ostream& out);

// plan.json, summary.txt, plan.csv, and with `report` summary.md and report.html.
std::vector<std::string> plan_file_names(bool report);
[[nodiscard]] Status write_plan_reports(const PlanResult& result, OutputSink& sink, bool report);

}  // namespace topsim
