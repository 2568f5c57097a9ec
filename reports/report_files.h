// The report (docs/reports.md): one folder of files rendered from labelled ResultSets —
// report.html (self-contained: Chart.js embedded, no network request), summary.md (GitHub
// Markdown for a PR comment or $GITHUB_STEP_SUMMARY), summary.csv, jobs.csv, timeseries.csv,
// fill_curves.csv (RFC 4180) and metrics.prom (Prometheus text exposition). Every string from
// an input is escaped for its format (reports/escape.h). Deterministic: the same results give
// the same bytes.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "reports/report_model.h"
#include "reports/reporter.h"
#include "util/expected.h"

namespace topsim {

// Chart.js v3 (Debian libjs-chart.js, MIT licence, its header kept), embedded at build time.
std::string_view chartjs_source();

std::string render_report_html(const ReportModel& model);
// A self-contained page: the title, `body_html` (already escaped), then each chart with the
// table of its numbers; Chart.js inlined, the charts' data in one JSON script element.
std::string render_html_page(const std::string& title, const std::string& body_html, const std::vector<Chart>& charts);
std::string render_report_markdown(const ReportModel& model);
std::string render_prometheus(const ReportModel& model);
// CSV files: a header row, then one row per (run, scheduler[, seed, ...]); CRLF line breaks.
void write_summary_csv(const ReportModel& model, std::ostream& out);
// Error (the stream then set bad): a run's per-job records on disk could not be read back.
[[nodiscard]] Status write_jobs_csv(const ReportModel& model, std::ostream& out);
void write_timeseries_csv(const ReportModel& model, std::ostream& out);
// Per sample and tenant: the GPUs its running jobs held and, with KAI queues, its fair share and
// usage (empty where the run has none); the header alone without tenants.
void write_tenant_timeseries_csv(const ReportModel& model, std::ostream& out);
// Per sample and fabric level: the share of its uplinks' capacity the jobs' traffic used; the
// header alone without a fabric.
void write_uplink_timeseries_csv(const ReportModel& model, std::ostream& out);
void write_fill_curves_csv(const ReportModel& model, std::ostream& out);

// The files of a report, in the order they are written.
std::vector<std::string> report_file_names();
// Writes every file of the report of `inputs` through `sink`.
[[nodiscard]] Status write_report(const std::vector<LabelledResults>& inputs, OutputSink& sink);
// The report of one run, as a Reporter (`topsim run`): its label is the scenario's name.
std::unique_ptr<Reporter> make_report_reporter();

}  // namespace topsim
