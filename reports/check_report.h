// Renderings of a quality check (gate/quality_gate.h): the console lines (one per metric:
// baseline, now, delta, verdict), the Markdown table for a pull request, JUnit XML (one
// testcase per scenario x metric) for GitLab and Jenkins. The baseline file is gate's
// (render_baseline, beside its reader).
#pragma once

#include <map>
#include <string>

#include "gate/quality_gate.h"

namespace topsim {

std::string verdict_name(Verdict verdict);  // "ok", "improved", "within noise", "REGRESSED"

std::string render_check_text(const CheckResult& result);
std::string render_check_markdown(const CheckResult& result);
std::string render_check_junit(const CheckResult& result);

}  // namespace topsim
