#include "reports/plan_report.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/escape.h"
#include "reports/report_files.h"
#include "reports/report_model.h"
#include "util/number_format.h"
#include "util/text.h"

namespace topsim {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kPlanSchema = "topsim.plan/1";
constexpr const char* kPartSchema = "topsim.plan-part/1";
constexpr const char* kAllFinish = "every admitted job finishes";

// "$1,234,567": whole dollars with thousands separators.
std::string dollars(double value) {
  const auto whole = static_cast<long long>(std::llround(std::abs(value)));
  std::string digits = std::to_string(whole), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (value < 0 ? "-$" : "$") + out;
}

double per_month(double per_hour) { return per_hour * kHoursPerMonth; }

std::string growth_name(double g) { return "x" + format_number(g); }

// "14 dgx-a100", "10 dgx-a100 + 5 hgx-h100".
std::string composition(const PlanInfo& info, const PlanChain& chain, const PlanEvaluation& e) {
  const PlanInfo::Candidate& c = info.candidates[chain.key.candidate];
  std::string out;
  for (const auto& [type, count] : c.parts) out += (out.empty() ? "" : " + ") + std::to_string(count * e.units) + " " + type;
  return out;
}

bool all_finish(const PlanEvaluation& e) {
  return std::none_of(e.unmet.begin(), e.unmet.end(), [](const std::string& u) { return u.rfind(kAllFinish, 0) == 0; });
}

// What keeps a chain without an answer from meeting the SLOs: the misses at its largest size.
std::string binding(const PlanChain& chain) {
  const PlanEvaluation* largest = chain.largest();
  if (!largest) return chain.notes.empty() ? "nothing evaluated" : chain.notes.front();
  return join(largest->unmet, "; ") + " at " + std::to_string(largest->nodes) + " nodes";
}

std::vector<const PlanChain*> chains_at(const PlanResult& r, size_t growth, size_t scheduler) {
  std::vector<const PlanChain*> out;
  for (const PlanChain& c : r.chains)
    if (c.key.growth == growth && c.key.scheduler == scheduler) out.push_back(&c);
  return out;
}

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

std::vector<std::string> row_cells(const PlanInfo& info, const Row& row, const std::vector<std::string>& metrics) {
  std::vector<std::string> cells = {row.chain->scheduler, row.chain->candidate};
  const PlanEvaluation* e = row.shown;
  cells.push_back(e ? std::to_string(e->nodes) : "-");
  cells.push_back(e ? std::to_string(e->gpus) : "-");
  cells.push_back(e ? dollars(per_month(e->cost_per_hour)) : "-");
  if (any_watts(info)) cells.push_back(e && e->watts > 0 ? format_number(e->watts / 1000) : "-");
  for (const std::string& m : metrics) cells.push_back(e ? metric_cell(*e, m) : "-");
  cells.push_back(row.chain->best() ? "meets the SLOs" : "none within the bounds: " + binding(*row.chain));
  return cells;
}

std::vector<std::string> header_cells(const PlanInfo& info, const std::vector<std::string>& metrics) {
  std::vector<std::string> h = {"scheduler", "candidate", "nodes", "GPUs", "$/month"};
  if (any_watts(info)) h.emplace_back("kW");
  h.insert(h.end(), metrics.begin(), metrics.end());
  h.emplace_back("verdict");
  return h;
}

std::string slo_list(const PlanInfo& info) {
  std::vector<std::string> parts;
  for (const Slo& slo : info.slos) parts.push_back(slo.describe());
  parts.emplace_back(kAllFinish);
  return join(parts, ", ");
}

std::string bounds_text(const PlanInfo& info) {
  std::string out = "at most " + std::to_string(info.max_nodes) + " nodes";
  if (info.max_cost_per_hour) out += " and " + dollars(per_month(*info.max_cost_per_hour)) + "/month";
  return out;
}

std::string facts_line(const PlanInfo& info) {
  return fmt::format("{} ({} jobs at x1), {} scheduler(s) x {} candidate(s) x {} growth step(s), {} seed(s) from {}",
                     info.workload, info.jobs, info.schedulers.size(), info.candidates.size(), info.growth.size(), info.seeds,
                     info.seed);
}

size_t evaluated(const PlanResult& r) {
  size_t n = 0;
  for (const PlanChain& c : r.chains) n += c.evaluations.size();
  return n;
}

std::vector<std::string> all_notes(const PlanResult& r) {
  std::vector<std::string> notes;
  for (const PlanChain& c : r.chains)
    for (const std::string& note : c.notes)
      notes.push_back(c.scheduler + " / " + c.candidate + " / " + growth_name(c.growth) + ": " + note);
  return notes;
}

Json evaluation_json(const PlanEvaluation& e, bool exact) {
  auto num = [exact](double v) { return exact ? v : rounded_micro(v); };
  Json metrics = Json::object();
  for (const auto& [name, value] : e.metrics) metrics[name] = num(value);
  return {{"units", e.units},      {"nodes", e.nodes},       {"gpus", e.gpus},   {"cost_per_hour", num(e.cost_per_hour)},
          {"watts", num(e.watts)}, {"feasible", e.feasible}, {"unmet", e.unmet}, {"metrics", metrics}};
}

Json chain_json(const PlanChain& c, bool exact) {
  Json evaluations = Json::array();
  for (const PlanEvaluation& e : c.evaluations) evaluations.push_back(evaluation_json(e, exact));
  return {{"index", c.index},         {"key", {c.key.scheduler, c.key.candidate, c.key.growth}},
          {"scheduler", c.scheduler}, {"candidate", c.candidate},
          {"growth", c.growth},       {"answer", c.answer ? Json(*c.answer) : Json(nullptr)},
          {"notes", c.notes},         {"evaluations", evaluations}};
}

Json info_json(const PlanInfo& info, bool exact) {
  auto num = [exact](double v) { return exact ? v : rounded_micro(v); };
  Json candidates = Json::array();
  for (const PlanInfo::Candidate& c : info.candidates) {
    Json parts = Json::array();
    for (const auto& [type, count] : c.parts) parts.push_back({{"type", type}, {"nodes", count}});
    candidates.push_back({{"name", c.name},
                          {"nodes_per_unit", c.nodes_per_unit},
                          {"gpus_per_unit", c.gpus_per_unit},
                          {"cost_per_unit_hour", num(c.cost_per_unit_hour)},
                          {"watts_per_unit", num(c.watts_per_unit)},
                          {"parts", parts}});
  }
  Json slos = Json::array();
  for (const Slo& slo : info.slos) {
    Json j = {{"metric", slo.metric}};
    if (slo.min) j["min"] = *slo.min;
    if (slo.max) j["max"] = *slo.max;
    slos.push_back(j);
  }
  Json growth = Json::array();
  for (double g : info.growth) growth.push_back(g);
  Json out = {{"name", info.name},
              {"description", info.description},
              {"source", info.source},
              {"fingerprint", fmt::format("{:016x}", info.fingerprint)},
              {"workload", info.workload},
              {"jobs", info.jobs},
              {"seed", info.seed},
              {"seeds", info.seeds},
              {"schedulers", info.schedulers},
              {"growth", growth},
              {"candidates", candidates},
              {"slo", slos},
              {"max_nodes", info.max_nodes},
              {"chains", info.chains}};
  if (info.max_cost_per_hour) out["max_cost_per_hour"] = *info.max_cost_per_hour;
  return out;
}

Json plan_document(const PlanResult& r, bool exact) {
  Json chains = Json::array();
  for (const PlanChain& c : r.chains) chains.push_back(chain_json(c, exact));
  return {{"plan", info_json(r.info, exact)}, {"chains", chains}};
}

// Text table with columns padded to their widest cell; the first two left-aligned.
std::string text_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows)
    for (size_t i = 0; i + 1 < row.size(); ++i) {
      if (width.size() <= i) width.resize(i + 1, 0);
      width[i] = std::max(width[i], row[i].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 == row.size()) {
        line += "  " + row[i];
      } else if (i < 2) {
        line += fmt::format("{:<{}}  ", row[i], width[i]);
      } else {
        line += fmt::format("{:>{}}  ", row[i], width[i]);
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::vector<const PlanChain*> cheapest_per_scheduler(const PlanResult& r, size_t growth) {
  std::vector<const PlanChain*> out;
  for (size_t s = 0; s < r.info.schedulers.size(); ++s) {
    const PlanChain* best = nullptr;
    for (const PlanChain* c : chains_at(r, growth, s)) {
      if (!c->best()) continue;
      if (!best || c->best()->cost_per_hour < best->best()->cost_per_hour ||
          (c->best()->cost_per_hour == best->best()->cost_per_hour && c->best()->nodes < best->best()->nodes))
        best = c;
    }
    out.push_back(best);
  }
  return out;
}

bool plan_feasible(const PlanResult& r) {
  for (size_t g = 0; g < r.info.growth.size(); ++g) {
    const auto best = cheapest_per_scheduler(r, g);
    if (std::none_of(best.begin(), best.end(), [](const PlanChain* c) { return c != nullptr; })) return false;
  }
  return true;
}

std::vector<std::string> plan_headlines(const PlanResult& r) {
  std::vector<std::string> lines;
  for (size_t g = 0; g < r.info.growth.size(); ++g) {
    const auto best = cheapest_per_scheduler(r, g);
    std::string line = r.info.growth.size() > 1 || r.info.growth[g] != 1 ? "At " + growth_name(r.info.growth[g]) + " load, " : "";
    const PlanChain* base = best.front();
    // "default cannot meet the SLOs within the bounds (wait_s.p95 <= 600 (got 1234) at 16 nodes)".
    auto infeasible = [&](size_t s) {
      auto chains = chains_at(r, g, s);  // the nearest miss first: fewest SLOs missed at its largest size
      std::stable_sort(chains.begin(), chains.end(), [](const PlanChain* a, const PlanChain* b) {
        const size_t ma = a->largest() ? a->largest()->unmet.size() : SIZE_MAX;
        const size_t mb = b->largest() ? b->largest()->unmet.size() : SIZE_MAX;
        return ma < mb;
      });
      const bool either = s > 0 && !base;
      return r.info.schedulers[s] +
             (either   ? " cannot either"
              : s == 0 ? " cannot meet the SLOs within the bounds"
                       : " cannot meet them within the bounds") +
             " (" + (chains.empty() ? std::string("not run") : binding(*chains.front())) + ")";
    };
    if (base) {
      const PlanEvaluation& b = *base->best();
      line += fmt::format("{} meets the SLOs with {} ({}/month)", base->scheduler, composition(r.info, *base, b),
                          dollars(per_month(b.cost_per_hour)));
    } else {
      line += infeasible(0);
    }
    for (size_t s = 1; s < best.size(); ++s) {
      line += "; ";
      if (!best[s]) {
        line += infeasible(s);
        continue;
      }
      const PlanEvaluation& o = *best[s]->best();
      line += fmt::format("{} needs {}", best[s]->scheduler, composition(r.info, *best[s], o));
      if (!base) {
        line += fmt::format(" ({}/month)", dollars(per_month(o.cost_per_hour)));
        continue;
      }
      const PlanEvaluation& b = *base->best();
      const double more = per_month(o.cost_per_hour - b.cost_per_hour);
      const std::string money = dollars(std::abs(more)) + "/month " + (more >= 0 ? "more" : "less");
      if (best[s]->key.candidate == base->key.candidate) {
        const int nodes = o.nodes - b.nodes;
        line += fmt::format(": {} node{} {}, {}", std::abs(nodes), std::abs(nodes) == 1 ? "" : "s", nodes >= 0 ? "more" : "fewer",
                            money);
      } else {
        line += fmt::format(" ({}/month): {}", dollars(per_month(o.cost_per_hour)), money);
      }
    }
    lines.push_back(line + ".");
  }
  return lines;
}

std::vector<FrontierPoint> plan_frontier(const PlanResult& r, size_t growth, const std::string& scheduler) {
  std::vector<FrontierPoint> points;
  for (const PlanChain& c : r.chains) {
    if (c.key.growth != growth || c.scheduler != scheduler) continue;
    for (const PlanEvaluation& e : c.evaluations) {
      const auto wait = e.metrics.find("wait_s.p95");
      if (wait == e.metrics.end() || !all_finish(e)) continue;
      points.push_back({per_month(e.cost_per_hour), wait->second, c.candidate, e.nodes, e.feasible});
    }
  }
  std::sort(points.begin(), points.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
    if (a.cost_per_month != b.cost_per_month) return a.cost_per_month < b.cost_per_month;
    if (a.wait_p95_s != b.wait_p95_s) return a.wait_p95_s < b.wait_p95_s;
    return a.candidate < b.candidate;
  });
  std::vector<FrontierPoint> frontier;
  for (const FrontierPoint& p : points)
    if (frontier.empty() || p.wait_p95_s < frontier.back().wait_p95_s) frontier.push_back(p);
  return frontier;
}

std::string render_plan_text(const PlanResult& r) {
  const PlanInfo& info = r.info;
  std::string out = "plan " + info.name + ": " + facts_line(info) + "\n";
  out += "SLOs: " + slo_list(info) + "; bounds: " + bounds_text(info) + "\n";
  const std::vector<std::string> metrics = table_metrics(info);
  const auto headlines = plan_headlines(r);
  for (size_t g = 0; g < info.growth.size(); ++g) {
    out += "\ngrowth " + growth_name(info.growth[g]) + ":\n";
    std::vector<std::vector<std::string>> rows = {header_cells(info, metrics)};
    for (const Row& row : step_rows(r, g)) rows.push_back(row_cells(info, row, metrics));
    out += text_table(rows);
    out += "  " + headlines[g] + "\n";
  }
  const auto notes = all_notes(r);
  if (!notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& note : notes) out += "  " + note + "\n";
  }
  out += fmt::format("\n{} configurations evaluated (plan.json has each with its metrics); costs are {} hours a month\n",
                     evaluated(r), format_number(kHoursPerMonth));
  return out;
}

std::string render_plan_json(const PlanResult& r) {
  Json doc = {{"schema", kPlanSchema}};
  Json body = plan_document(r, false);
  doc["plan"] = body["plan"];
  doc["feasible"] = plan_feasible(r);
  doc["headlines"] = plan_headlines(r);
  doc["chains"] = body["chains"];
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_plan_part(const PlanResult& r, size_t shard, size_t shards) {
  Json doc = {{"schema", kPartSchema}, {"shard", shard}, {"shards", shards}};
  Json body = plan_document(r, true);
  doc["plan"] = body["plan"];
  doc["chains"] = body["chains"];
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_plan_markdown(const PlanResult& r) {
  const PlanInfo& info = r.info;
  std::string out = "## Capacity plan: " + markdown_cell(info.name) + "\n\n";
  out +=
      markdown_cell(facts_line(info)) + ". SLOs: " + markdown_cell(slo_list(info)) + "; bounds: " + bounds_text(info) + ".\n\n";
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
  }
  const auto notes = all_notes(r);
  if (!notes.empty()) {
    out += "Notes:\n\n";
    for (const std::string& note : notes) out += "- " + markdown_cell(note) + "\n";
    out += "\n";
  }
  return out;
}

std::string render_plan_html(const PlanResult& r) {
  const PlanInfo& info = r.info;
  std::string body = "<p class=\"facts\">" + html_escape(facts_line(info)) + "<br>SLOs: " + html_escape(slo_list(info)) +
                     "; bounds: " + html_escape(bounds_text(info)) + "</p>\n";
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
    Chart chart;
    chart.id = "chart-" + std::to_string(g + 1);
    chart.title = "Cost vs p95 wait, growth " + growth_name(info.growth[g]) + " (each scheduler's frontier)";
    chart.kind = "line";
    chart.x_label = "cost ($/month)";
    chart.y_label = "p95 wait (s)";
    chart.table.header = {"scheduler", "candidate", "nodes", "$/month", "p95 wait (s)", "meets the SLOs"};
    for (const std::string& scheduler : info.schedulers) {
      ChartDataset d;
      d.name = scheduler;
      d.colour = scheduler_colour(scheduler);
      d.markers = true;
      for (const FrontierPoint& p : plan_frontier(r, g, scheduler)) {
        d.points.push_back({p.cost_per_month, p.wait_p95_s});
        chart.table.rows.push_back({scheduler, p.candidate, std::to_string(p.nodes), dollars(p.cost_per_month),
                                    format_number(p.wait_p95_s), p.feasible ? "yes" : "no"});
      }
      chart.datasets.push_back(std::move(d));
    }
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
  out << "scheduler,candidate,growth,units,nodes,gpus,cost_per_month,kw,feasible,unmet";
  for (const std::string& m : metrics) out << "," << csv_field(m);
  out << "\r\n";
  for (const PlanChain& c : r.chains)
    for (const PlanEvaluation& e : c.evaluations) {
      out << csv_field(c.scheduler) << "," << csv_field(c.candidate) << "," << format_data(c.growth) << "," << e.units << ","
          << e.nodes << "," << e.gpus << "," << format_data(per_month(e.cost_per_hour)) << "," << format_data(e.watts / 1000)
          << "," << (e.feasible ? "true" : "false") << "," << csv_field(join(e.unmet, "; "));
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
  const std::vector<std::pair<std::string, std::function<void(std::ostream&)>>> files = {
      {"plan.json", [&](std::ostream& out) { out << render_plan_json(r); }},
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
