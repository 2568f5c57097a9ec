// Writing a report folder: the model once, then every file through the sink.
#include "reports/report_files.h"

#include <ostream>

namespace topsim {
namespace {

class ReportReporter final : public Reporter {
 public:
  std::string_view name() const override { return "report"; }
  std::vector<std::string> files() const override { return report_file_names(); }
  Status write(const ResultSet& results, OutputSink& sink) const override {
    return write_report({LabelledResults{results.scenario.name, &results}}, sink);
  }
};

}  // namespace

std::vector<std::string> report_file_names() {
  return {"report.html",           "summary.md",      "summary.csv", "jobs.csv", "timeseries.csv", "tenant_timeseries.csv",
          "uplink_timeseries.csv", "fill_curves.csv", "metrics.prom"};
}

Status write_report(const std::vector<LabelledResults>& inputs, OutputSink& sink) {
  const ReportModel model = build_report_model(inputs);
  if (!model.status) return model.status;
  Status jobs_read = Status::success();
  const std::vector<std::pair<std::string, std::function<void(std::ostream&)>>> files = {
      {"report.html", [&](std::ostream& out) { out << render_report_html(model); }},
      {"summary.md", [&](std::ostream& out) { out << render_report_markdown(model); }},
      {"summary.csv", [&](std::ostream& out) { write_summary_csv(model, out); }},
      {"jobs.csv", [&](std::ostream& out) { jobs_read = write_jobs_csv(model, out); }},
      {"timeseries.csv", [&](std::ostream& out) { write_timeseries_csv(model, out); }},
      {"tenant_timeseries.csv", [&](std::ostream& out) { write_tenant_timeseries_csv(model, out); }},
      {"uplink_timeseries.csv", [&](std::ostream& out) { write_uplink_timeseries_csv(model, out); }},
      {"fill_curves.csv", [&](std::ostream& out) { write_fill_curves_csv(model, out); }},
      {"metrics.prom", [&](std::ostream& out) { out << render_prometheus(model); }},
  };
  for (const auto& [name, fill] : files) {
    const Status s = sink.write(name, fill);
    if (!jobs_read) return jobs_read;
    if (!s) return s;
  }
  return Status::success();
}

std::unique_ptr<Reporter> make_report_reporter() { return std::make_unique<ReportReporter>(); }

}  // namespace topsim
