#include "reports/check_report.h"

#include <fmt/format.h>
#include <cmath>
#include <nlohmann/json.hpp>

#include "reports/escape.h"
#include "reports/report_model.h"

namespace topsim {
namespace {

std::string value_text(const MeasuredValue& v) {
  return v.runs > 1 ? format_number(v.mean) + " ± " + format_number(v.sd) : format_number(v.mean);
}

std::string delta_text(const MetricCheck& c) {
  return fmt::format("{}{} ({:+.1f}%)", c.delta >= 0 ? "+" : "", format_number(c.delta), c.delta_percent);
}

std::string limits_text(const MetricCheck& c) {
  std::string text = "tolerance " + c.watched.tolerance.text;
  if (c.noise > 0) text += ", seed noise " + format_number(c.noise);
  return text + ", " + (c.watched.better == Better::Higher ? "higher" : "lower") + " is better";
}

std::string summary_line(const CheckResult& r) {
  if (r.regressions > 0) return fmt::format("{} of {} metrics regressed beyond tolerance", r.regressions, r.checks.size());
  std::string line = fmt::format("no regression in {} metrics", r.checks.size());
  if (r.improvements > 0)
    line += fmt::format("; {} improved beyond tolerance: run topsim check --update to raise the baseline", r.improvements);
  return line;
}

std::string xml(std::string_view text) { return html_escape(text); }

}  // namespace

std::string verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Ok: return "ok";
    case Verdict::Improved: return "improved";
    case Verdict::WithinNoise: return "within noise";
    case Verdict::Regressed: return "REGRESSED";
  }
  return "ok";
}

std::string render_check_text(const CheckResult& r) {
  std::string out =
      fmt::format("{:<28} {:<40} {:>16} {:>16} {:>22}  {}\n", "scenario", "metric", "baseline", "now", "delta", "verdict");
  for (const MetricCheck& c : r.checks)
    out +=
        fmt::format("{:<28} {:<40} {:>16} {:>16} {:>22}  {}\n", c.scenario, c.watched.name, value_text(c.base), value_text(c.now),
                    delta_text(c), verdict_name(c.verdict) + (c.verdict == Verdict::Ok ? "" : " (" + limits_text(c) + ")"));
  return out + summary_line(r) + "\n";
}

std::string render_check_markdown(const CheckResult& r) {
  std::string out = "## topsim check: " + markdown_cell(r.suite) + "\n\n" + (r.regressions ? "**" : "") + summary_line(r) +
                    (r.regressions ? "**" : "") +
                    "\n\n| scenario | metric | baseline | now | delta | verdict |\n| --- | --- | ---: | ---: | ---: | --- |\n";
  for (const MetricCheck& c : r.checks) {
    const std::string verdict =
        c.verdict == Verdict::Regressed ? "**regressed** (" + limits_text(c) + ")" : verdict_name(c.verdict);
    out += "| " + markdown_cell(c.scenario) + " | " + markdown_cell(c.watched.name) + " | " + value_text(c.base) + " | " +
           value_text(c.now) + " | " + delta_text(c) + " | " + verdict + " |\n";
  }
  return out;
}

std::string render_check_junit(const CheckResult& r) {
  std::string cases;
  for (const MetricCheck& c : r.checks) {
    cases += "    <testcase classname=\"" + xml(c.scenario) + "\" name=\"" + xml(c.watched.name) + "\" time=\"0\">";
    if (c.verdict == Verdict::Regressed)
      cases += "\n      <failure message=\"" + xml(c.watched.name + " regressed") + "\" type=\"regression\">" +
               xml("baseline " + value_text(c.base) + ", now " + value_text(c.now) + ", delta " + delta_text(c) + " (" +
                   limits_text(c) + ")") +
               "</failure>\n    ";
    cases += "</testcase>\n";
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"topsim check\" tests=\"{0}\" failures=\"{1}\">\n"
      "  <testsuite name=\"{2}\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"0\">\n{3}  </testsuite>\n</testsuites>\n",
      r.checks.size(), r.regressions, xml(r.suite), cases);
}

}  // namespace topsim
