#include "reports/plan_report.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>

#include <fmt/format.h>

#include "plan/plan_parts.h"
#include "reports/escape.h"
#include "reports/report_files.h"
#include "reports/report_model.h"
#include "reports/text_table.h"
#include "util/digest.h"
#include "util/number_format.h"
#include "util/text.h"

namespace topsim {
namespace {

// The metric columns of the tables: the SLOs' metrics, then p95 wait and mean JCT when absent.
std::vector<std::string> table_metrics(const PlanInfo& info) {
  std::vector<std::string> names;
  for (const Slo& slo : info.slos) names.push_back(slo.metric);
  for (const char* extra : {"wait_s.p95", "jct_s.mean"})
    if (std::find(names.begin(), names.end(), extra) == names.end()) names.emplace_back(extra);
  return names;
}

std::string metric_cell(const PlanEvaluation& e, const std::string& metric) {
  const auto it = e.metrics.find(metric);
  return it == e.metrics.end() ? "n/a" : format_number(it->second);
}

bool any_watts(const PlanInfo& info) {
  return std::any_of(info.candidates.begin(), info.candidates.end(), [](const auto& c) { return c.watts_per_unit > 0; });
}

// One row per (scheduler, candidate) of a growth step: the answer, or the largest size tried.
struct Row {
  const PlanChain* chain;
  const PlanEvaluation* shown;  // the answer, or the largest size evaluated (may be null)
};

std::vector<Row> step_rows(const PlanResult& r, size_t growth) {
  std::vector<Row> rows;
  for (size_t s = 0; s < r.info.schedulers.size(); ++s)
    for (const PlanChain* c : chains_at(r, growth, s)) rows.push_back({c, c->best() ? c->best() : c->largest()});
  return rows;
}

// Finished jobs per $1,000 and per MWh spent over the replay (makespan x the cluster's price or
// maximum power): what a configuration delivers for its money and its energy; "-" when a figure
// is missing (no price, no power, nothing finished).
std::string per_spend(const PlanEvaluation* e, double spend_per_hour, double scale) {
  if (!e) return "-";
  const auto finished = e->metrics.find("finished"), makespan = e->metrics.find("makespan_s");
  if (finished == e->metrics.end() || makespan == e->metrics.end() || !(spend_per_hour > 0) || !(makespan->second > 0) ||
      !(finished->second > 0))
    return "-";
  return format_number(finished->second / (spend_per_hour * makespan->second / 3600) * scale);
}

// A row's verdict. A chain not searched (no node type of it runs some job) points to its note,
// which names the job and why: the table keeps one line a row.
std::string verdict(const PlanChain& chain) {
  if (chain.best()) return "meets the SLOs";
  if (chain.evaluations.empty() && !chain.notes.empty())
    return chain.notes.front().rfind("not searched:", 0) == 0 ? "not searched: a job cannot run on it (notes)"
                                                              : chain.notes.front();
  return "none within the bounds: " + binding(chain);
}

std::vector<std::string> row_cells(const PlanInfo& info, const Row& row, const std::vector<std::string>& metrics) {
  std::vector<std::string> cells = {row.chain->scheduler, row.chain->candidate};
  const PlanEvaluation* e = row.shown;
  cells.push_back(e ? std::to_string(e->nodes) : "-");
  cells.push_back(e ? std::to_string(e->gpus) : "-");
  if (!info.quota) {  // a quota plan's one cluster has no price to compare
    cells.push_back(e ? dollars(per_month(e->cost_per_hour)) : "-");
    if (any_watts(info)) cells.push_back(e && e->watts > 0 ? format_number(e->watts / 1000) : "-");
    cells.push_back(per_spend(e, e ? e->cost_per_hour : 0, 1000));
    if (any_watts(info)) cells.push_back(per_spend(e, e ? e->watts / 1e6 : 0, 1));
  }
  for (const std::string& m : metrics) cells.push_back(e ? metric_cell(*e, m) : "-");
  if (info.quota) cells.push_back(e ? quota_split(info, *e) : "-");
  cells.push_back(verdict(*row.chain));
  return cells;
}

std::vector<std::string> header_cells(const PlanInfo& info, const std::vector<std::string>& metrics) {
  std::vector<std::string> h = {"scheduler", "candidate", "nodes", "GPUs"};
  if (!info.quota) {
    h.emplace_back("$/month");
    if (any_watts(info)) h.emplace_back("kW");
    h.emplace_back("jobs/$1k");
    if (any_watts(info)) h.emplace_back("jobs/MWh");
  }
  h.insert(h.end(), metrics.begin(), metrics.end());
  if (info.quota) h.emplace_back("GPU quotas");
  h.emplace_back("verdict");
  return h;
}

// A quota plan's search, split by split, for each scheduler of a growth step.
std::vector<std::string> quota_trail(const PlanResult& r, size_t growth) {
  std::vector<std::string> lines;
  if (!r.info.quota) return lines;
  for (size_t s = 0; s < r.info.schedulers.size(); ++s)
    for (const PlanChain* c : chains_at(r, growth, s))
      for (size_t i = 0; i < c->evaluations.size(); ++i) {
        const PlanEvaluation& e = c->evaluations[i];
        lines.push_back(fmt::format("{}, split {}: {}: {}", c->scheduler, i + 1, quota_split(r.info, e),
                                    e.feasible ? "meets every SLO" : "misses " + join(e.unmet, "; ")));
      }
  return lines;
}

std::string slo_list(const PlanInfo& info) {
  std::vector<std::string> parts;
  for (const Slo& slo : info.slos) parts.push_back(slo.describe());
  parts.emplace_back(kAllFinish);
  return join(parts, ", ");
}

std::string bounds_text(const PlanInfo& info) {
  if (info.quota)
    return fmt::format("quota moved {} GPUs at a time, at most {} splits per search", info.quota->step_gpus,
                       info.quota->max_evaluations);
  std::string out = "at most " + counted(info.max_nodes, "node");
  if (info.max_cost_per_hour) out += " and " + dollars(per_month(*info.max_cost_per_hour)) + "/month";
  return out;
}

std::string facts_line(const PlanInfo& info) {
  const auto n = [](size_t count, const char* noun) { return counted(static_cast<long long>(count), noun); };
  return fmt::format("{} ({} at x1), {} x {} x {}, {} from {}", info.workload, n(info.jobs, "job"),
                     n(info.schedulers.size(), "scheduler"), n(info.candidates.size(), "candidate"),
                     n(info.growth.size(), "growth step"), n(static_cast<size_t>(info.seeds), "seed"), info.seed);
}

size_t evaluated(const PlanResult& r) {
  size_t n = 0;
  for (const PlanChain& c : r.chains) n += c.evaluations.size();
  return n;
}

// "scheduler / candidate / growth: note" per note of each chain. A note several chains of one
// candidate share word for word (a candidate not searched: the same job cannot run on it under
// every scheduler and load) is written once, naming its schedulers and growths ("every scheduler",
// "x1, x1.5") when it holds for each of their pairs; otherwise each chain's line is written.
std::vector<std::string> all_notes(const PlanResult& r) {
  struct Shared {
    const std::string* candidate;
    const std::string* note;
    std::vector<const PlanChain*> chains;
  };
  std::vector<Shared> groups;  // in order of first mention
  for (const PlanChain& c : r.chains)
    for (const std::string& note : c.notes) {
      auto same = std::find_if(groups.begin(), groups.end(),
                               [&](const Shared& g) { return *g.candidate == c.candidate && *g.note == note; });
      if (same == groups.end()) same = groups.insert(groups.end(), Shared{&c.candidate, &note, {}});
      same->chains.push_back(&c);
    }
  std::vector<std::string> notes;
  for (const Shared& g : groups) {
    std::vector<std::string> schedulers;
    std::vector<double> growths;
    for (const PlanChain* c : g.chains) {
      if (std::find(schedulers.begin(), schedulers.end(), c->scheduler) == schedulers.end()) schedulers.push_back(c->scheduler);
      if (std::find(growths.begin(), growths.end(), c->growth) == growths.end()) growths.push_back(c->growth);
    }
    if (g.chains.size() == 1 || g.chains.size() != schedulers.size() * growths.size()) {
      for (const PlanChain* c : g.chains)
        notes.push_back(c->scheduler + " / " + c->candidate + " / " + growth_name(c->growth) + ": " + *g.note);
      continue;
    }
    const bool every = schedulers.size() > 1 && schedulers.size() == r.info.schedulers.size();
    notes.push_back((every ? "every scheduler" : join(schedulers, ", ")) + " / " + *g.candidate + " / " +
                    join(growths, ", ", [](double growth) { return growth_name(growth); }) + ": " + *g.note);
  }
  return notes;
}

// A p95 wait spanning decades (0.5 s next to 9 x 10^7 s) flattens every useful point on a
// linear axis: the axis goes logarithmic, waits of 0 are drawn at the floor (half the smallest
// positive wait, at most 1 s) and the label says so; the chart's table keeps the true values.
void log_wait_axis(Chart& chart) {
  double low = 0, high = 0;
  for (const ChartDataset& d : chart.datasets)
    for (const auto& p : d.points) {
      if (p.y > 0 && (low == 0 || p.y < low)) low = p.y;
      high = std::max(high, p.y);
    }
  if (!(low > 0) || high / low < 100) return;
  const double floor = std::min(1.0, low / 2);
  bool zeros = false;
  for (ChartDataset& d : chart.datasets)
    for (auto& p : d.points)
      if (p.y <= 0) p.y = floor, zeros = true;
  chart.y_log = true;
  chart.y_label += ", log scale" + (zeros ? "; 0 drawn at " + format_number(floor) + " s" : std::string());
}

}  // namespace

std::string render_plan_text(const PlanResult& r) {
  const PlanInfo& info = r.info;
  std::string out = "plan " + info.name + ": " + facts_line(info) + "\n";
  out += "SLOs: " + slo_list(info) + "; bounds: " + bounds_text(info) + "\n";
  if (!info.model_mix.empty()) out += "model mix: " + info.model_mix + "\n";
  const std::vector<std::string> metrics = table_metrics(info);
  const auto headlines = plan_headlines(r);
  for (size_t g = 0; g < info.growth.size(); ++g) {
    out += "\ngrowth " + growth_name(info.growth[g]) + ":\n";
    std::vector<std::vector<std::string>> rows = {header_cells(info, metrics)};
    for (const Row& row : step_rows(r, g)) rows.push_back(row_cells(info, row, metrics));
    out += text_table(rows, {"", 2, 4});
    out += "  " + headlines[g] + "\n";
    for (const std::string& line : quota_trail(r, g)) out += "  " + line + "\n";
  }
  const auto notes = all_notes(r);
  if (!notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& note : notes) out += "  " + note + "\n";
  }
  out += fmt::format("\n{} configurations evaluated (plan.json has each with its metrics){}\n", evaluated(r),
                     info.quota ? "" : "; costs are " + format_number(kHoursPerMonth) + " hours a month");
  return out;
}

std::string render_plan_markdown(const PlanResult& r) {
  const PlanInfo& info = r.info;
  std::string out = "## Capacity plan: " + markdown_cell(info.name) + "\n\n";
  out +=
      markdown_cell(facts_line(info)) + ". SLOs: " + markdown_cell(slo_list(info)) + "; bounds: " + bounds_text(info) + ".\n\n";
  if (!info.model_mix.empty()) out += "Model mix: " + markdown_cell(info.model_mix) + "\n\n";
  const std::vector<std::string> metrics = table_metrics(info);
  const auto headlines = plan_headlines(r);
  for (size_t g = 0; g < info.growth.size(); ++g) {
    out += "### Growth " + growth_name(info.growth[g]) + "\n\n**" + markdown_cell(headlines[g]) + "**\n\n";
    const auto header = header_cells(info, metrics);
    out += "| " + join(header, " | ") + " |\n|";
    for (size_t i = 0; i < header.size(); ++i) out += i < 2 || i + 1 == header.size() ? "---|" : "---:|";
    out += "\n";
    for (const Row& row : step_rows(r, g)) {
      std::vector<std::string> cells;
      for (const std::string& c : row_cells(info, row, metrics)) cells.push_back(markdown_cell(c));
      out += "| " + join(cells, " | ") + " |\n";
    }
    out += "\n";
    const auto trail = quota_trail(r, g);
    for (const std::string& line : trail) out += "- " + markdown_cell(line) + "\n";
    if (!trail.empty()) out += "\n";
  }
  const auto notes = all_notes(r);
  if (!notes.empty()) {
    out += "Notes:\n\n";
    for (const std::string& note : notes) out += "- " + markdown_cell(note) + "\n";
    out += "\n";
  }
  return out;
}

// The p95 wait SLO as a dashed line across the chart, and the chosen configuration (the first
// scheduler's cheapest answer) as a point of its own, so the answer reads off the frontier.
void add_answer_marks(const PlanResult& r, size_t growth, Chart& chart) {
  double low = 0, high = 0;
  for (const ChartDataset& d : chart.datasets)
    for (const auto& p : d.points) {
      low = low == 0 ? p.x : std::min(low, p.x);
      high = std::max(high, p.x);
    }
  for (const Slo& slo : r.info.slos)
    if (slo.metric == "wait_s.p95" && slo.max && high > 0)
      chart.datasets.push_back({"SLO: " + slo.describe(), "#888888", true, 1, 0, {{low, *slo.max}, {high, *slo.max}}, false});
  const PlanChain* chosen = cheapest_per_scheduler(r, growth).front();
  if (!chosen) return;
  const PlanEvaluation& e = *chosen->best();
  const auto wait = e.metrics.find("wait_s.p95");
  if (wait == e.metrics.end()) return;
  chart.datasets.push_back({"chosen: " + chosen->scheduler + ", " + composition(r.info, *chosen, e),
                            "#d62728",
                            false,
                            1,
                            0,
                            {{per_month(e.cost_per_hour), wait->second}},
                            true});
}

std::string render_plan_html(const PlanResult& r) {
  const PlanInfo& info = r.info;
  std::string body = "<p class=\"facts\">" + html_escape(facts_line(info)) + "<br>SLOs: " + html_escape(slo_list(info)) +
                     "; bounds: " + html_escape(bounds_text(info)) +
                     (info.model_mix.empty() ? "" : "<br>Model mix: " + html_escape(info.model_mix)) + "</p>\n";
  const auto headlines = plan_headlines(r);
  const std::vector<std::string> metrics = table_metrics(info);
  std::vector<Chart> charts;
  for (size_t g = 0; g < info.growth.size(); ++g) {
    body += "<h2>Growth " + html_escape(growth_name(info.growth[g])) + "</h2>\n<p><strong>" + html_escape(headlines[g]) +
            "</strong></p>\n<table><tr>";
    for (const std::string& h : header_cells(info, metrics)) body += "<th>" + html_escape(h) + "</th>";
    body += "</tr>\n";
    for (const Row& row : step_rows(r, g)) {
      body += "<tr>";
      for (const std::string& c : row_cells(info, row, metrics)) body += "<td>" + html_escape(c) + "</td>";
      body += "</tr>\n";
    }
    body += "</table>\n";
    if (info.quota) {  // one cluster: no cost frontier, the splits tried instead
      body += "<ol>\n";
      for (const std::string& line : quota_trail(r, g)) body += "<li>" + html_escape(line) + "</li>\n";
      body += "</ol>\n";
      continue;
    }
    Chart chart;
    chart.id = "chart-" + std::to_string(g + 1);
    chart.title = "Cost vs p95 wait, growth " + growth_name(info.growth[g]) + " (each scheduler's frontier)";
    chart.kind = "line";
    chart.x_label = "cost ($/month)";
    chart.y_label = "p95 wait (s)";
    chart.table.header = {"scheduler", "candidate", "nodes", "$/month", "p95 wait (s)", "seeds", "meets the SLOs"};
    for (const std::string& scheduler : info.schedulers) {
      ChartDataset d;
      d.name = scheduler;
      d.colour = scheduler_colour(scheduler);
      d.markers = true;
      for (const FrontierPoint& p : plan_frontier(r, g, scheduler)) {
        d.points.push_back({p.cost_per_month, p.wait_p95_s});
        chart.table.rows.push_back({scheduler, p.candidate, std::to_string(p.nodes), dollars(p.cost_per_month),
                                    format_number(p.wait_p95_s), std::to_string(p.seeds),
                                    p.first_seed_only ? "yes, on its first seed"
                                    : p.feasible      ? "yes"
                                                      : "no"});
      }
      chart.datasets.push_back(std::move(d));
    }
    add_answer_marks(r, g, chart);
    log_wait_axis(chart);
    chart.table.note = "configurations where every admitted job finished and no other was both cheaper and quicker";
    charts.push_back(std::move(chart));
  }
  const auto notes = all_notes(r);
  if (!notes.empty()) {
    body += "<h2>Notes</h2>\n<ul>\n";
    for (const std::string& note : notes) body += "<li>" + html_escape(note) + "</li>\n";
    body += "</ul>\n";
  }
  return render_html_page("topsim plan: " + info.name, body, charts);
}

void write_plan_csv(const PlanResult& r, std::ostream& out) {
  std::vector<std::string> metrics;
  for (const PlanChain& c : r.chains)
    for (const PlanEvaluation& e : c.evaluations)
      for (const auto& [name, value] : e.metrics)
        if (std::find(metrics.begin(), metrics.end(), name) == metrics.end()) metrics.push_back(name);
  std::sort(metrics.begin(), metrics.end());
  out << "scheduler,candidate,growth,units,nodes,gpus,cost_per_month,kw,feasible,seeds_run,unmet";
  if (r.info.quota)
    for (const std::string& tenant : r.info.quota->tenants) out << "," << csv_field("quota_gpus@" + tenant);
  for (const std::string& m : metrics) out << "," << csv_field(m);
  out << "\r\n";
  for (const PlanChain& c : r.chains)
    for (const PlanEvaluation& e : c.evaluations) {
      out << csv_field(c.scheduler) << "," << csv_field(c.candidate) << "," << format_data(c.growth) << "," << e.units << ","
          << e.nodes << "," << e.gpus << "," << format_data(per_month(e.cost_per_hour)) << "," << format_data(e.watts / 1000)
          << "," << (e.feasible ? "true" : "false") << "," << e.seeds_run << "," << csv_field(join(e.unmet, "; "));
      for (int64_t gpus : e.quotas) out << "," << gpus;
      for (const std::string& m : metrics) {
        const auto it = e.metrics.find(m);
        out << "," << (it == e.metrics.end() ? "" : format_data(it->second));
      }
      out << "\r\n";
    }
}

std::vector<std::string> plan_file_names(bool report) {
  std::vector<std::string> names = {"plan.json", "summary.txt", "plan.csv"};
  if (report) names.insert(names.end(), {"summary.md", "report.html"});
  return names;
}

Status write_plan_reports(const PlanResult& r, OutputSink& sink, bool report) {
  // The plan's identity is its plan.json's: a merge of its shards' parts gives the same one.
  const std::string plan_json = render_plan_json(r);
  sink.identify_run(hex64(digest64(plan_json)));
  const std::vector<std::pair<std::string, std::function<void(std::ostream&)>>> files = {
      {"plan.json", [&](std::ostream& out) { out << plan_json; }},
      {"summary.txt", [&](std::ostream& out) { out << render_plan_text(r); }},
      {"plan.csv", [&](std::ostream& out) { write_plan_csv(r, out); }},
      {"summary.md", [&](std::ostream& out) { out << render_plan_markdown(r); }},
      {"report.html", [&](std::ostream& out) { out << render_plan_html(r); }},
  };
  const auto names = plan_file_names(report);
  for (const auto& [name, fill] : files)
    if (std::find(names.begin(), names.end(), name) != names.end())
      if (Status s = sink.write(name, fill); !s) return s;
  return Status::success();
}

}  // namespace topsim
