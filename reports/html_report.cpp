// report.html: one self-contained page. Chart.js is inlined; the data of every chart is one
// JSON document in a <script type="application/json"> element (escaped so nothing in it can
// end the script); a short page script turns each chart's data into a Chart.js configuration
// (title, axis titles with units, legend, one colour per scheduler). Under each chart, a table
// of the same numbers, so the page reads without JavaScript. After drawing, the page marks
// each canvas `data-rendered="yes"` and the body `data-charts-drawn="<n>"`; script errors are
// listed in <pre id="errors"> (the browser test reads both).
#include <fmt/format.h>
#include <cmath>
#include <nlohmann/json.hpp>

#include "reports/escape.h"
#include "reports/fabric_report.h"
#include "reports/report_files.h"
#include "util/number_format.h"

namespace topsim {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
.facts { color: #555; }
.cards { display: flex; flex-wrap: wrap; gap: 1em; margin: 1em 0; }
.card { border: 1px solid #ccc; border-radius: 6px; padding: 0.8em 1em; min-width: 14em; }
.card .value { font-size: 1.4em; font-weight: 600; }
.better { color: #1a7f37; } .worse { color: #cf222e; font-weight: 600; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
caption { text-align: left; color: #666; padding-bottom: 0.25em; white-space: nowrap; }
th:first-child, td:first-child, th.name, td.name { text-align: left; }
td.name { white-space: nowrap; }
.chart { position: relative; height: 380px; }
.note { color: #666; font-size: 0.85em; }
#errors:empty { display: none; }
#errors { color: #cf222e; }
)";

// The page script: Chart.js configurations from the data. No plotting of its own.
constexpr const char* kPageScript = R"(
(function () {
  const errors = document.getElementById('errors');
  window.addEventListener('error', e => { errors.textContent += (e.message || 'error') + '\n'; });
  const report = JSON.parse(document.getElementById('topsim-data').textContent);
  let drawn = 0;
  for (const spec of report.charts) {
    try {
      const canvas = document.getElementById(spec.id);
      const line = spec.kind === 'line';
      const datasets = spec.datasets.map((d, i) => ({
        label: d.name, data: d.points.map(p => ({x: line ? p[0] : spec.categories[p[0]], y: p[1]})),
        borderColor: d.colour, borderWidth: d.band ? 0 : 2, borderDash: d.dashed ? [6, 4] : [],
        backgroundColor: d.band ? d.colour + '33' : d.colour + Math.round(d.alpha * 255).toString(16).padStart(2, '0'),
        fill: spec.stacked ? (i === 0 ? 'origin' : '-1') : d.band === -1 ? '-1' : false,
        pointRadius: d.markers ? 4 : 0, topsimBand: d.band
      }));
      const chart = new Chart(canvas, {
        type: spec.kind,
        data: line ? {datasets} : {labels: spec.categories, datasets},
        options: {
          animation: false, responsive: true, maintainAspectRatio: false, parsing: line ? false : true,
          plugins: {
            title: {display: true, text: spec.title},
            legend: {display: true, labels: {filter: (item, data) => !data.datasets[item.datasetIndex].topsimBand}}
          },
          scales: {
            x: {type: line ? (spec.x_log ? 'logarithmic' : 'linear') : 'category', title: {display: true, text: spec.x_label}},
            y: {type: spec.y_log ? 'logarithmic' : 'linear', beginAtZero: !spec.y_log, stacked: spec.stacked,
                title: {display: true, text: spec.y_label}}
          }
        }
      });
      if (chart.width > 0 && chart.height > 0) { canvas.dataset.rendered = 'yes'; drawn++; }
    } catch (e) { errors.textContent += spec.id + ': ' + e.message + '\n'; }
  }
  document.body.dataset.chartsDrawn = String(drawn);
})();
)";

std::string table_html(const ChartTable& t) {
  std::string out = "<table>";
  if (!t.values.empty()) out += "<caption>figures: " + html_escape(t.values) + "</caption>";
  out += "<thead><tr>";
  // Columns of names after the first are aligned left as the first is (report_model.h names_column).
  std::vector<bool> names(t.header.size());
  for (size_t i = 1; i < t.header.size(); ++i) names[i] = names_column(t.header[i]);
  const auto open = [&](const char* tag, size_t i) {
    return fmt::format("<{}{}>", tag, i < names.size() && names[i] ? " class=\"name\"" : "");
  };
  for (size_t i = 0; i < t.header.size(); ++i) out += open("th", i) + html_escape(t.header[i]) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) out += open("td", i) + html_escape(row[i]) + "</td>";
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
  return t.note.empty() ? out : out + "<p class=\"note\">" + html_escape(t.note) + "</p>\n";
}

// `text`, a change of `percent`, marked better or worse when the metric has a direction.
std::string change_html(const std::string& text, double percent, bool worse, Better better) {
  if (better == Better::Neither || percent == 0 || std::isnan(percent)) return text;
  return fmt::format("<span class=\"{}\">{}</span>", worse ? "worse" : "better", text);
}

std::string cards_html(const ReportModel& m) {
  if (m.headlines.empty()) return "";
  std::string out = "<section class=\"cards\">\n";
  for (const Headline& h : m.headlines) {
    out += "<div class=\"card\"><div>" + html_escape(h.title) + "</div>";
    out += "<div class=\"value\">" + html_escape(headline_value_text(h.other, h.unit)) + "</div><div>" +
           html_escape(h.other_name) + "</div>";
    if (!h.base_name.empty() && !h.no_change.empty())
      out += "<div>n/a against " + html_escape(h.base_name) + " (" + html_escape(h.no_change) + ")</div>";
    else if (!h.base_name.empty())
      out += "<div>" + change_html(headline_change_text(h), h.change_percent, h.worse, h.better) + " against " +
             html_escape(h.base_name) + " (" + html_escape(headline_value_text(h.base, h.unit)) + ")</div>";
    out += "</div>\n";
  }
  out += "<div class=\"card\"><div>jobs</div>";
  for (const JobCounts& c : m.job_counts)
    out += "<div>" + html_escape(c.name) + ": " + html_escape(job_counts_text(c)) + "</div>";
  return out + "</div>\n</section>\n";
}

std::string deltas_html(const ReportModel& m) {
  if (m.deltas.empty()) return "";
  std::string out = "<h2>Comparison of runs</h2>\n<table><thead><tr><th>scheduler</th><th>metric</th><th>unit</th>";
  for (const std::string& label : m.labels) out += "<th>" + html_escape(label) + "</th>";
  for (size_t l = 1; l < m.labels.size(); ++l)
    out += "<th>" + html_escape(m.labels[l]) + " vs " + html_escape(m.labels[0]) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const DeltaRow& row : m.deltas) {
    const MetricInfo* info = find_metric(row.metric);
    out += "<tr><td>" + html_escape(row.scheduler) + "</td><td>" + html_escape(row.metric) + "</td><td>" + html_escape(row.unit) +
           "</td>";
    for (double v : row.values) out += "<td>" + format_number(v) + "</td>";
    for (size_t l = 1; l < row.values.size(); ++l)
      out += "<td>" +
             change_html(format_change_percent(row.change_percent[l]), row.change_percent[l], row.worse[l],
                         info ? info->better : Better::Neither) +
             "</td>";
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
  if (any_change_against_zero(m.deltas)) out += "<p class=\"note\">" + html_escape(kChangeAgainstZeroNote) + "</p>\n";
  return out;
}

// Nodes read from a trace's node list (no network modelled).
bool trace_nodes(const ScenarioInfo& s) { return !s.node_groups.empty() && s.node_groups.front().label == "milli"; }

std::string facts_html(const ReportModel& m) {
  std::string out;
  for (const LabelledResults* run : m.runs) {
    const ScenarioInfo& s = run->results->scenario;
    out += "<p class=\"facts\">" + (m.runs.size() > 1 ? "<b>" + html_escape(run->label) + "</b>: " : std::string()) +
           html_escape(fmt::format("{} ({}): {} ({}){}, {}", s.name, s.mode, size_text(s), s.workload,
                                   trace_nodes(s) ? ", the trace's nodes" : ", " + s.network + " network", seeds_text(s))) +
           (s.description.empty() ? "" : "<br>" + html_escape(s.description)) +
           (s.model_mix.empty() ? "" : "<br>Model mix: " + html_escape(s.model_mix)) + "</p>\n";
  }
  return out;
}

Json chart_json(const Chart& c) {
  Json datasets = Json::array();
  for (const ChartDataset& d : c.datasets) {
    Json points = Json::array();
    for (const Point& p : d.points) points.push_back({rounded_micro(p.x), rounded_micro(p.y)});
    Json dataset = {{"name", d.name},   {"colour", d.colour}, {"dashed", d.dashed},
                    {"alpha", d.alpha}, {"band", d.band},     {"points", points}};
    if (d.markers) dataset["markers"] = true;
    datasets.push_back(std::move(dataset));
  }
  return {{"id", c.id},           {"title", c.title},    {"kind", c.kind},   {"x_label", c.x_label},
          {"y_label", c.y_label}, {"x_log", c.x_log},    {"y_log", c.y_log}, {"categories", c.categories},
          {"datasets", datasets}, {"stacked", c.stacked}};
}

std::string charts_html(const std::vector<Chart>& charts) {
  std::string out;
  for (const Chart& c : charts)
    if (!c.empty_note.empty())
      out +=
          "<section><h2>" + html_escape(c.title) + "</h2>\n<p class=\"empty\">" + html_escape(c.empty_note) + "</p></section>\n";
    else
      out += "<section><h2>" + html_escape(c.title) + "</h2>\n<div class=\"chart\"><canvas id=\"" + c.id +
             "\" role=\"img\" aria-label=\"" + html_escape(c.title) + "\"></canvas></div>\n" + table_html(c.table) +
             "</section>\n";
  return out;
}

}  // namespace

std::string render_html_page(const std::string& title, const std::string& body_html, const std::vector<Chart>& charts) {
  Json data = {{"charts", Json::array()}};
  for (const Chart& c : charts)
    if (c.empty_note.empty()) data["charts"].push_back(chart_json(c));
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" + html_escape(title) + "</title>\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<style>" + std::string(kStyle) + "</style>\n";
  out += "<script>\n" + std::string(chartjs_source()) + "\n</script>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(title) + "</h1>\n" + body_html + charts_html(charts);
  out += "<pre id=\"errors\"></pre>\n<script type=\"application/json\" id=\"topsim-data\">" +
         script_safe_json(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) + "</script>\n";
  out += "<script>" + std::string(kPageScript) + "</script>\n</body></html>\n";
  return out;
}

std::string render_report_html(const ReportModel& m) {
  std::string title = "topsim report";
  for (size_t i = 0; i < m.runs.size(); ++i) title += (i ? " vs " : ": ") + m.runs[i]->label;
  const std::string policies = m.policy_table.rows.empty() ? "" : "<h2>Policies, ranked</h2>\n" + table_html(m.policy_table);
  const std::string failures =
      m.failure_table.rows.empty() ? "" : "<h2>Failures and goodput</h2>\n" + table_html(m.failure_table);
  const std::string tenants =
      m.tenancy_table.rows.empty()
          ? ""
          : "<h2>Tenants</h2>\n" + table_html(m.tenancy_table) + "<h2>Per tenant</h2>\n" + table_html(m.tenant_table) +
                (m.preemption_table.rows.empty() ? ""
                                                 : "<h2>Preemptions between tenants</h2>\n" + table_html(m.preemption_table));
  const std::string node_types = m.node_type_table.rows.empty() ? "" : "<h2>Per node type</h2>\n" + table_html(m.node_type_table);
  std::string warnings;
  for (const std::string& warning : m.warnings) warnings += "<p class=\"warning\">Warning: " + html_escape(warning) + "</p>\n";
  const ScenarioInfo& scenario = m.runs.front()->results->scenario;
  const std::string fabric = render_fabric_html(scenario.fabric_view, scenario.node_names);
  return render_html_page(
      title, facts_html(m) + warnings + cards_html(m) + deltas_html(m) + policies + node_types + failures + tenants + fabric,
      m.charts);
}

}  // namespace topsim
