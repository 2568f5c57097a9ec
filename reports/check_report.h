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
// JUnit XML for a check that could not run (bad input, exit 2): one testcase with the error, so
// a CI system that expects the file finds it and shows why.
std::string render_check_junit_error(const std::string& suite, const std::string& message);
// A watched metric as the check ran it: "binpack as topology-aware/wait_s.p95" when a candidate
// ran in the scheduler's place, else the name as the suite wrote it.
std::string checked_name(const CheckResult& result, const std::string& watched_name);

}  // namespace topsim
