// summary.md: GitHub-flavoured Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY.
// The headline comparisons first, then the comparison of runs (worse cells in bold with
// "worse"), then one table row per scheduler. Names from inputs are escaped per cell.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>

#include "reports/escape.h"
#include "reports/report_files.h"
#include "util/number_format.h"

namespace topsim {
namespace {

struct Column {
  const char* metric;
  const char* title;
};
constexpr Column kReplayColumns[] = {{"jobs", "jobs"},
                                     {"finished", "finished"},
                                     {"rejected", "rejected"},
                                     {"stuck", "stuck"},
                                     {"never_placed", "never placed"},
                                     {"wait_s.mean", "mean wait of finished (s)"},
                                     {"wait_s.p95", "p95 wait of finished (s)"},
                                     {"jct_s.mean", "mean JCT (s)"},
                                     {"images_per_sec.mean", "images/s per started job"},
                                     {"llm_mfu.mean", "LLM MFU per started job"},
                                     {"gpu_utilisation", "GPU utilisation"},
                                     {"fragmentation_gpus.mean", "fragmented GPUs"}};
constexpr Column kFillColumns[] = {{"jobs", "pods"},
                                   {"placed", "placed"},
                                   {"gpu_alloc_ratio.final", "GPU alloc ratio"},
                                   {"fragmentation_rate.final", "frag rate"},
                                   {"fragmentation_gpus.final", "frag GPUs"},
                                   {"failed", "failed pods"},
                                   {"failed_no_gpu_room", "failed with no GPU room on any node"}};

// `text`, a change of `percent`, marked better or worse when the metric has a direction.
std::string change_text(const std::string& text, double percent, bool worse, bool directed) {
  if (!directed || percent == 0 || std::isnan(percent)) return text;
  return worse ? "**" + text + " worse**" : text + " better";
}

std::string headline_lines(const ReportModel& m) {
  std::string out;
  for (const Headline& h : m.headlines) {
    out += "- " + markdown_cell(h.title) + ": **" + markdown_cell(headline_value_text(h.other, h.unit)) + "** " +
           markdown_cell(h.other_name);
    if (!h.base_name.empty() && !h.no_change.empty())
      out += " against " + markdown_cell(h.base_name) + ": n/a (" + markdown_cell(h.no_change) + ")";
    else if (!h.base_name.empty())
      out += " against " + markdown_cell(headline_value_text(h.base, h.unit)) + " " + markdown_cell(h.base_name) + " (" +
             change_text(headline_change_text(h), h.change_percent, h.worse, h.better != Better::Neither) + ")";
    out += "\n";
  }
  if (out.empty()) return out;
  out += "- jobs:";
  for (size_t i = 0; i < m.job_counts.size(); ++i)
    out += (i ? "; " : " ") + markdown_cell(m.job_counts[i].name) + " " + markdown_cell(job_counts_text(m.job_counts[i]));
  return out + "\n\n";
}

std::string delta_table(const ReportModel& m) {
  if (m.deltas.empty()) return "";
  std::string out = "### Comparison of runs\n\n| scheduler | metric | unit |";
  std::string rule = "| --- | --- | --- |";
  for (const std::string& label : m.labels) out += " " + markdown_cell(label) + " |", rule += " ---: |";
  for (size_t l = 1; l < m.labels.size(); ++l)
    out += " " + markdown_cell(m.labels[l]) + " vs " + markdown_cell(m.labels[0]) + " |", rule += " ---: |";
  out += "\n" + rule + "\n";
  for (const DeltaRow& row : m.deltas) {
    const MetricInfo* info = find_metric(row.metric);
    out += "| " + markdown_cell(row.scheduler) + " | " + markdown_cell(row.metric) + " | " + markdown_cell(row.unit) + " |";
    for (double v : row.values) out += " " + format_number(v) + " |";
    for (size_t l = 1; l < row.values.size(); ++l)
      out += " " +
             change_text(format_change_percent(row.change_percent[l]), row.change_percent[l], row.worse[l],
                         info && info->better != Better::Neither) +
             " |";
    out += "\n";
  }
  if (any_change_against_zero(m.deltas)) out += "\n" + markdown_cell(kChangeAgainstZeroNote) + "\n";
  return out + "\n";
}

// The columns of `columns` some series has (a run of LLMs only has no image rate, one without
// LLMs no MFU).
template <size_t N>
std::string scheduler_table(const ReportModel& m, const Column (&columns)[N]) {
  std::vector<Column> shown;
  for (const Column& c : columns)
    if (std::any_of(m.series.begin(), m.series.end(), [&](const Series& s) { return s.result->metric(c.metric) != nullptr; }))
      shown.push_back(c);
  std::string out = "### Schedulers\n\n| run | scheduler |", rule = "| --- | --- |";
  for (const Column& c : shown) out += " " + std::string(c.title) + " |", rule += " ---: |";
  out += "\n" + rule + "\n";
  for (const Series& s : m.series) {
    out += "| " + markdown_cell(s.label) + " | " + markdown_cell(s.scheduler) + " |";
    for (const Column& c : shown) {
      const MetricSummary* metric = s.result->metric(c.metric);
      out += " " + (metric ? format_number(metric->over_seeds.mean) : std::string("n/a")) + " |";  // absent: nothing measured
    }
    out += "\n";
  }
  return out;
}

// A table of the model under a heading: scheduler names left, figures right.
std::string table_markdown(const std::string& heading, const ChartTable& table) {
  if (table.rows.empty()) return "";
  std::string out = "### " + heading + "\n\n|", rule = "|";
  for (const std::string& h : table.header) out += " " + markdown_cell(h) + " |", rule += names_column(h) ? " --- |" : " ---: |";
  out += "\n" + rule + "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (const std::string& cell : row) out += " " + markdown_cell(cell) + " |";
    out += "\n";
  }
  return out + "\n" + markdown_cell(table.note) + "\n\n";
}

}  // namespace

// Per LLM, each scheduler's first run: its jobs' mean step and its parts.
std::string llm_step_markdown(const ReportModel& m) {
  std::string out;
  for (const LabelledResults* run : m.runs)
    for (const SchedulerResult& s : run->results->schedulers)
      for (const LlmModelStep& step : s.runs.front().llm_steps) {
        if (out.empty()) {
          out = "\n| scheduler | LLM | jobs | tokens/s per GPU | MFU | step (s) |";
          std::string rule = " --- | --- | ---: | ---: | ---: | ---: |";
          for (const auto& [part, seconds] : step.parts()) out += " " + std::string(part) + " (s) |", rule += " ---: |";
          out += "\n|" + rule + "\n";
        }
        out += fmt::format("| {} | {} | {} | {} | {}% | {} |", markdown_cell(s.name), markdown_cell(step.model), step.jobs,
                           format_number(step.tokens_per_sec_per_gpu), format_number(100 * step.mfu), format_number(step.step_s));
        for (const auto& [part, seconds] : step.parts()) out += " " + format_number(seconds) + " |";
        out += "\n";
      }
  return out;
}

std::string render_report_markdown(const ReportModel& m) {
  std::string title;
  for (size_t i = 0; i < m.labels.size(); ++i) title += (i ? " vs " : "") + markdown_cell(m.labels[i]);
  std::string out = "## topsim: " + title + "\n\n";
  for (const LabelledResults* run : m.runs) {
    const ScenarioInfo& s = run->results->scenario;
    out += "*" + markdown_cell(run->label) + "*: " + markdown_cell(s.name) + " (" + s.mode + "), " + size_text(s) + ", " +
           seeds_text(s) + (s.seeds > 1 ? " (means)" : "") + "\n\n";
    if (!s.model_mix.empty()) out += "Model mix: " + markdown_cell(s.model_mix) + "\n\n";
  }
  for (const std::string& warning : m.warnings) out += "> **Warning:** " + markdown_cell(warning) + "\n\n";
  out += headline_lines(m) + delta_table(m) + table_markdown("Policies, ranked", m.policy_table);
  out += m.fill ? scheduler_table(m, kFillColumns) : scheduler_table(m, kReplayColumns);
  if (!m.node_type_table.rows.empty()) out += "\n" + table_markdown("Per node type", m.node_type_table);
  out += llm_step_markdown(m);
  if (!m.failure_table.rows.empty()) out += "\n" + table_markdown("Failures and goodput", m.failure_table);
  if (!m.tenancy_table.rows.empty())
    out += "\n" + table_markdown("Tenants", m.tenancy_table) + table_markdown("Per tenant", m.tenant_table);
  if (!m.preemption_table.rows.empty()) out += "\n" + table_markdown("Preemptions between tenants", m.preemption_table);
  return out + "\nCharts and every figure: report.html, summary.csv, metrics.prom (docs/reports.md).\n";
}

}  // namespace topsim
