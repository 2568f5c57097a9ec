#include "reports/check_report.h"

#include <fmt/format.h>
#include <cmath>
#include <nlohmann/json.hpp>

#include "reports/escape.h"
#include "reports/report_model.h"
#include "reports/text_table.h"
#include "sim/metrics.h"
#include "util/number_format.h"

namespace topsim {
namespace {

std::string value_text(const MeasuredValue& v) {
  if (!v.measured) return "not measured";
  return v.runs > 1 ? format_number(v.mean) + " ± " + format_number(v.sd) : format_number(v.mean);
}

// "+12 (+3.4%)"; against a baseline of 0 the change has no percentage: "+1000 (n/a: baseline 0)",
// and no change is "+0".
std::string delta_text(const MetricCheck& c) {
  if (!c.now.measured) return "n/a";
  if (!c.delta_percent && c.delta == 0) return "+0";
  const std::string percent = c.delta_percent ? format_change_percent(*c.delta_percent) : "n/a: baseline 0";
  return fmt::format("{}{} ({})", c.delta >= 0 ? "+" : "", format_number(c.delta), percent);
}

std::string limits_text(const MetricCheck& c) {
  if (!c.now.measured) {
    const MetricInfo* info = find_metric(c.watched.metric);
    return "no run measured it: " + std::string(info ? info->description : "");
  }
  std::string text = "tolerance " + c.watched.tolerance.text;
  if (c.noise > 0) text += ", seed noise " + format_number(c.noise);
  return text + ", " + (c.watched.better == Better::Higher ? "higher" : "lower") + " is better";
}

// "; candidate binpack judged against topology-aware's baseline" for each --candidate.
std::string candidates_text(const CheckResult& r) {
  std::string out;
  for (const Substitution& s : r.candidates)
    out += "; candidate " + s.candidate + " judged against " + s.scheduler + "'s baseline";
  return out;
}

std::string summary_line(const CheckResult& r) {
  if (r.regressions > 0)
    return fmt::format("{} of {} metrics regressed beyond tolerance{}", r.regressions, r.checks.size(), candidates_text(r));
  std::string line = fmt::format("no regression in {} metrics{}", r.checks.size(), candidates_text(r));
  if (r.improvements > 0 && r.candidates.empty())
    line += fmt::format("; {} improved beyond tolerance: run topsim check --update to raise the baseline", r.improvements);
  else if (r.improvements > 0)
    line += fmt::format("; {} improved beyond tolerance", r.improvements);
  return line;
}

std::string markdown_row(const CheckResult& r, const MetricCheck& c) {
  const std::string verdict =
      c.verdict == Verdict::Regressed ? "**regressed** (" + limits_text(c) + ")" : verdict_name(c.verdict);
  return "| " + markdown_cell(c.scenario) + " | " + markdown_cell(checked_name(r, c.watched.name)) + " | " + value_text(c.base) +
         " | " + value_text(c.now) + " | " + delta_text(c) + " | " + verdict + " |\n";
}

constexpr const char* kMarkdownHeader =
    "| scenario | metric | baseline | now | delta | verdict |\n| --- | --- | ---: | ---: | ---: | --- |\n";

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

std::string checked_name(const CheckResult& r, const std::string& watched_name) {
  const size_t slash = watched_name.find('/');
  for (const Substitution& s : r.candidates)
    if (slash != std::string::npos && watched_name.compare(0, slash, s.scheduler) == 0 && slash == s.scheduler.size())
      return s.candidate + " as " + watched_name;
  return watched_name;
}

std::string render_check_text(const CheckResult& r) {
  std::vector<TextRow> rows{{"scenario", "metric", "baseline", "now", "delta", "verdict"}};
  for (const MetricCheck& c : r.checks)
    rows.push_back({c.scenario, checked_name(r, c.watched.name), value_text(c.base), value_text(c.now), delta_text(c),
                    verdict_name(c.verdict) + (c.verdict == Verdict::Ok ? "" : " (" + limits_text(c) + ")")});
  return text_table(rows, {"", 2}) + summary_line(r) + "\n";
}

std::string render_check_markdown(const CheckResult& r) {
  std::string out = "## topsim check: " + markdown_cell(r.suite) + "\n\n" + (r.regressions ? "**" : "") + summary_line(r) +
                    (r.regressions ? "**" : "") + "\n\n";
  // Regressions first, then the other verdicts worth a look; the ok rows folded away.
  std::string flagged, ok;
  size_t ok_count = 0;
  for (const Verdict shown : {Verdict::Regressed, Verdict::Improved, Verdict::WithinNoise})
    for (const MetricCheck& c : r.checks)
      if (c.verdict == shown) flagged += markdown_row(r, c);
  for (const MetricCheck& c : r.checks)
    if (c.verdict == Verdict::Ok) ok += markdown_row(r, c), ++ok_count;
  if (!flagged.empty()) out += kMarkdownHeader + flagged + "\n";
  if (ok_count > 0)
    out += fmt::format("<details><summary>{} metric{} ok</summary>\n\n", ok_count, ok_count == 1 ? "" : "s") + kMarkdownHeader +
           ok + "\n</details>\n";
  return out;
}

std::string render_check_junit(const CheckResult& r) {
  std::string cases;
  for (const MetricCheck& c : r.checks) {
    const std::string name = checked_name(r, c.watched.name);
    cases += "    <testcase classname=\"" + xml(c.scenario) + "\" name=\"" + xml(name) + "\" time=\"0\">";
    if (c.verdict == Verdict::Regressed)
      cases += "\n      <failure message=\"" + xml(name + " regressed") + "\" type=\"regression\">" +
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

std::string render_check_junit_error(const std::string& suite, const std::string& message) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"topsim check\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
      "  <testsuite name=\"{0}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
      "    <testcase classname=\"{0}\" name=\"topsim check\" time=\"0\">\n"
      "      <error message=\"{1}\" type=\"bad input\">{1}</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n",
      xml(suite), xml(message));
}

}  // namespace topsim
