#include "reports/report_model.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "reports/report_charts.h"
#include "sim/schedulers/registry.h"
#include "util/text.h"

namespace topsim {
namespace {

// Okabe-Ito's colour-blind-safe palette, then two more; by registry order.
constexpr std::array<const char*, 10> kPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                                  "#56B4E9", "#F0E442", "#000000", "#999999", "#882255"};

struct CardMetric {
  const char* metric;
  const char* title;
};
// A run lacks the throughput card of a kind of job its workload does not have (run_summary.cpp).
constexpr std::array<CardMetric, 5> kReplayCards = {{{"images_per_sec.mean", "images/sec per job, mean"},
                                                     {"llm_mfu.mean", "LLM MFU per job, mean"},
                                                     {"wait_s.p95", "wait, p95"},
                                                     {"jct_s.mean", "job completion time, mean"},
                                                     {"fragmentation_gpus.mean", "fragmented GPUs, time-weighted mean"}}};
constexpr std::array<CardMetric, 5> kFillCards = {{{"gpu_alloc_ratio.final", "GPU allocation ratio at the end"},
                                                   {"gpu_alloc_ratio.at_100", "GPU allocation ratio at 100% arrived load"},
                                                   {"gpu_alloc_ratio.at_130", "GPU allocation ratio at 130% arrived load"},
                                                   {"fragmentation_gpus.final", "fragmented GPUs at the end"},
                                                   {"failed", "pods no node could take"}}};

constexpr std::array<const char*, 15> kReplayDeltaMetrics = {"finished",
                                                             "rejected",
                                                             "stuck",
                                                             "wait_s.mean",
                                                             "wait_s.p95",
                                                             "jct_s.mean",
                                                             "jct_s.p95",
                                                             "images_per_sec.mean",
                                                             "llm_mfu.mean",
                                                             "ring_gbps.mean",
                                                             "gpu_utilisation",
                                                             "gpu_alloc_ratio.mean",
                                                             "fragmentation_gpus.mean",
                                                             "pending_jobs.max",
                                                             "makespan_s"};
constexpr std::array<const char*, 8> kFillDeltaMetrics = {"gpu_alloc_ratio.final",
                                                          "gpu_alloc_ratio.at_100",
                                                          "gpu_alloc_ratio.at_130",
                                                          "fragmentation_rate.final",
                                                          "fragmentation_gpus.final",
                                                          "unusable_gpus.final",
                                                          "failed",
                                                          "failed_no_gpu_room"};

double mean_of(const SchedulerResult& s, const std::string& metric, bool& found) {
  const MetricSummary* m = s.metric(metric);
  found = m != nullptr;
  return m ? m->over_seeds.mean : 0;
}

double change_percent(double base, double other) { return base != 0 ? (other - base) / std::abs(base) * 100 : 0; }

bool is_worse(Better better, double base, double other) {
  if (better == Better::Higher) return other < base;
  if (better == Better::Lower) return other > base;
  return false;
}

std::vector<Series> make_series(const std::vector<LabelledResults>& inputs) {
  std::vector<Series> series;
  for (size_t l = 0; l < inputs.size(); ++l)
    for (const SchedulerResult& s : inputs[l].results->schedulers) {
      const std::string name = inputs.size() > 1 ? inputs[l].label + ": " + s.name : s.name;
      series.push_back({name, inputs[l].label, s.name, scheduler_colour(s.name), l, &s});
    }
  return series;
}

// In a fill experiment, the series other than `except` with the highest final allocation ratio.
const Series* best_other(const ReportModel& m, const Series& except) {
  const Series* best = nullptr;
  double best_ratio = -1;
  for (const Series& s : m.series) {
    bool found = false;
    const double ratio = mean_of(*s.result, "gpu_alloc_ratio.final", found);
    if (&s != &except && s.label_index == except.label_index && found && ratio > best_ratio) best = &s, best_ratio = ratio;
  }
  return best;
}

// The pair a headline compares: (base, other), or other alone when there is nothing to compare.
std::pair<const Series*, const Series*> headline_pair(const ReportModel& m) {
  const auto find = [&](const std::string& scheduler, size_t label) -> const Series* {
    for (const Series& s : m.series)
      if (s.scheduler == scheduler && s.label_index == label) return &s;
    return nullptr;
  };
  if (m.series.empty()) return {nullptr, nullptr};
  if (m.labels.size() > 1) {
    for (const Series& s : m.series)
      if (const Series* later = s.label_index == 0 ? find(s.scheduler, m.labels.size() - 1) : nullptr) return {&s, later};
  }
  if (const Series* topo = find("topology-aware", 0), *plain = find("default", 0); topo && plain) return {plain, topo};
  if (const Series* fgd = find("fgd", 0); fgd && m.fill && m.series.size() > 1) return {best_other(m, *fgd), fgd};
  if (m.series.size() > 1) return {&m.series[1], &m.series[0]};
  return {nullptr, &m.series[0]};
}

JobCounts job_counts_of(const Series& s) {
  bool found = false;
  const auto get = [&](const char* metric) { return mean_of(*s.result, metric, found); };
  return {s.name, get("jobs"), get("placed"), get("finished"), get("rejected"), get("stuck"), get("never_placed"), get("failed")};
}

// Why `h`'s change against its base cannot be stated, or "" when it can.
std::string no_change_reason(const Headline& h, bool base_has_metric, const JobCounts& base, const JobCounts& other) {
  const auto placed_none = [](const JobCounts& c) {
    return fmt::format("{} placed 0 of {} jobs", c.name, format_number(c.jobs));
  };
  if (base.jobs > 0 && base.placed == 0) return placed_none(base);
  if (other.jobs > 0 && other.placed == 0) return placed_none(other);
  if (!base_has_metric) return "it has no value";
  if (h.base == 0) return "its value is 0";
  return "";
}

// One card: `other` against `base` (none: `other` alone); nullopt when `other` lacks the metric.
std::optional<Headline> headline(const CardMetric& card, const Series* base, const Series& other) {
  bool in_other = false, in_base = false;
  Headline h;
  h.title = card.title;
  h.metric = card.metric;
  const MetricInfo* info = find_metric(card.metric);
  h.unit = info ? std::string(info->unit) : "";
  h.better = info ? info->better : Better::Neither;
  h.other_name = other.name;
  h.other = mean_of(*other.result, card.metric, in_other);
  if (!in_other) return std::nullopt;
  if (!base) return h;
  h.base_name = base->name;
  h.base = mean_of(*base->result, card.metric, in_base);
  h.no_change = no_change_reason(h, in_base, job_counts_of(*base), job_counts_of(other));
  if (h.no_change.empty()) {
    h.change_percent = change_percent(h.base, h.other);
    h.worse = is_worse(h.better, h.base, h.other);
  }
  return h;
}

// A comparison of runs: per card, the scheduler whose value moved most between the first run
// and the last (a change that can be stated beats one that cannot; ties: series order).
std::optional<Headline> largest_change(const ReportModel& m, const CardMetric& card) {
  std::optional<Headline> best;
  for (const Series& first : m.series) {
    if (first.label_index != 0) continue;
    for (const Series& last : m.series) {
      if (last.label_index != m.labels.size() - 1 || last.scheduler != first.scheduler) continue;
      auto h = headline(card, &first, last);
      if (!h) continue;
      const bool stated = h->no_change.empty(), best_stated = best && best->no_change.empty();
      if (!best || (stated && !best_stated) ||
          (stated == best_stated && std::abs(h->change_percent) > std::abs(best->change_percent)))
        best = std::move(h);
    }
  }
  return best;
}

template <size_t N>
std::vector<Headline> make_headlines(const ReportModel& m, const std::array<CardMetric, N>& cards) {
  std::vector<Headline> out;
  if (m.labels.size() > 1) {
    for (const CardMetric& card : cards)
      if (auto h = largest_change(m, card)) out.push_back(std::move(*h));
    return out;
  }
  const auto [base, other] = headline_pair(m);
  for (const CardMetric& card : cards)
    if (other)
      if (auto h = headline(card, base, *other)) out.push_back(std::move(*h));
  return out;
}

template <size_t N>
std::vector<DeltaRow> make_deltas(const std::vector<LabelledResults>& inputs, const std::array<const char*, N>& metrics) {
  std::vector<DeltaRow> rows;
  if (inputs.size() < 2) return rows;
  for (const SchedulerResult& first : inputs.front().results->schedulers) {
    for (const char* metric : metrics) {
      DeltaRow row{first.name, metric, "", {}, {}, {}};
      const MetricInfo* info = find_metric(metric);
      row.unit = info ? std::string(info->unit) : "";
      for (const LabelledResults& in : inputs) {
        const SchedulerResult* s = in.results->scheduler(first.name);
        bool found = false;
        const double value = s ? mean_of(*s, metric, found) : 0;
        if (!found) break;
        row.values.push_back(value);
        // A change against 0 cannot be stated: NaN, which the renderers show as "n/a".
        row.change_percent.push_back(row.values.front() != 0 ? change_percent(row.values.front(), value)
                                                             : std::numeric_limits<double>::quiet_NaN());
        row.worse.push_back(is_worse(info ? info->better : Better::Neither, row.values.front(), value));
      }
      if (row.values.size() == inputs.size()) rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

bool any_change_against_zero(const std::vector<DeltaRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const DeltaRow& row) {
    return std::any_of(row.change_percent.begin(), row.change_percent.end(), [](double c) { return std::isnan(c); });
  });
}

namespace {

// "0.9512 ± 0.0012": a metric's mean and sample sd over seeds; "n/a" when the series lacks it.
std::string mean_sd(const SchedulerResult& s, const char* metric, int decimals) {
  const MetricSummary* m = s.metric(metric);
  if (!m) return "n/a";
  return fmt::format("{:.{}f} ± {:.{}f}", m->over_seeds.mean, decimals, m->over_seeds.sd, decimals);
}

// The fill experiment's per-policy table, best final allocation ratio first (ties: series order).
ChartTable policy_table(const ReportModel& m) {
  ChartTable t;
  t.header = {"rank", "scheduler", "GPU alloc ratio", "frag rate", "frag GPUs", "failed pods", "of which no GPU room"};
  std::vector<const Series*> ranked;
  for (const Series& s : m.series) ranked.push_back(&s);
  const auto ratio = [](const Series* s) {
    bool found = false;
    const double value = mean_of(*s->result, "gpu_alloc_ratio.final", found);
    return found ? value : -1;
  };
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Series* a, const Series* b) { return ratio(a) > ratio(b); });
  for (size_t i = 0; i < ranked.size(); ++i) {
    const SchedulerResult& s = *ranked[i]->result;
    t.rows.push_back({std::to_string(i + 1), ranked[i]->name, mean_sd(s, "gpu_alloc_ratio.final", 4),
                      mean_sd(s, "fragmentation_rate.final", 4), mean_sd(s, "fragmentation_gpus.final", 1),
                      mean_sd(s, "failed", 1), mean_sd(s, "failed_no_gpu_room", 1)});
  }
  t.note =
      "final values after the last arrival, mean ± sample sd over seeds, ranked by the GPU allocation ratio; failed pods "
      "of which no GPU room: no node serving the pod had room on its GPUs (the others found GPU room only on nodes short of "
      "CPU or host memory)";
  return t;
}

// A series' figure (its mean over seeds) times `scale` as a cell: `decimals` after the point,
// "n/a" when the series lacks it.
std::string figure_cell(const SchedulerResult& s, const std::string& metric, int decimals, double scale = 1) {
  bool found = false;
  const double value = mean_of(s, metric, found);
  return found ? format_fixed(value * scale, decimals) : std::string("n/a");
}

// A count's mean over seeds ("82,247"; "12.5" where the seeds differ), "n/a" where not measured.
std::string count_cell(const SchedulerResult& s, const std::string& metric) {
  bool found = false;
  const double value = mean_of(s, metric, found);
  return found ? format_number(value) : std::string("n/a");
}

// Replays with failures: one row per series, means over seeds.
ChartTable failure_table(const ReportModel& m) {
  ChartTable t;
  const auto any = [&](const char* metric) {
    return std::any_of(m.series.begin(), m.series.end(), [&](const Series& s) { return s.result->metric(metric) != nullptr; });
  };
  if (!any("node_failures")) return t;
  const bool spares = any("spare_swaps"), elastic = any("elastic_resizes"), daly = any("checkpoint_optimum_s");
  t.header = {"scheduler",        "node failures",       "jobs interrupted",         "GPU-h lost to failures",
              "GPU-h restarting", "GPU-h checkpointing", "GPU-h waiting to restart", "goodput",
              "mean ETTR"};
  if (daly) t.header.insert(t.header.end(), {"largest interrupted job: MTBF (min)", "its Daly interval (min)"});
  if (spares) t.header.insert(t.header.end(), {"spare GPUs", "failures a spare took"});
  if (elastic) t.header.push_back("elastic resizes");
  for (const Series& series : m.series) {
    const SchedulerResult& s = *series.result;
    const auto cell = [&](const char* metric, double scale, int decimals) { return figure_cell(s, metric, decimals, scale); };
    const auto percent = [&](const char* metric) {  // absent when no training job finished
      return s.metric(metric) ? figure_cell(s, metric, 1, 100) + "%" : std::string("n/a");
    };
    std::vector<std::string> row = {series.name,
                                    cell("node_failures", 1, 0),
                                    cell("interruptions", 1, 0),
                                    cell("failure_lost_gpu_hours", 1, 1),
                                    cell("restart_gpu_hours", 1, 1),
                                    cell("checkpoint_gpu_hours", 1, 1),
                                    cell("requeue_gpu_hours", 1, 1),
                                    percent("goodput"),
                                    percent("ettr.mean")};
    if (daly) row.insert(row.end(), {cell("interrupted_job_mtbf_s", 1.0 / 60, 1), cell("checkpoint_optimum_s", 1.0 / 60, 1)});
    if (spares) row.insert(row.end(), {cell("spare_gpus", 1, 0), cell("spare_swaps", 1, 0)});
    if (elastic) row.push_back(cell("elastic_resizes", 1, 0));
    t.rows.push_back(std::move(row));
  }
  t.note =
      "means over seeds; goodput: GPU time of training that counted over GPU time from first start to finish of the "
      "finished training jobs; ETTR: the same per job; Daly's interval: the checkpoint interval that loses least for "
      "that job's MTBF and the write time (docs/failures.md)";
  return t;
}

bool any_series_has(const std::vector<Series>& series, const std::string& metric) {
  return std::any_of(series.begin(), series.end(), [&](const Series& s) { return s.result->metric(metric) != nullptr; });
}

std::vector<std::string> series_tenants(const std::vector<Series>& series) {
  std::vector<std::string> tenants;
  for (const Series& s : series)
    for (const std::string& t : tenant_names(s.result->runs.front()))
      if (std::find(tenants.begin(), tenants.end(), t) == tenants.end()) tenants.push_back(t);
  return tenants;
}

// Replays with tenants: one row per series, means over seeds.
ChartTable tenancy_table(const ReportModel& m) {
  ChartTable t;
  const size_t tenants = series_tenants(m.series).size();
  if (tenants == 0) return t;
  const bool quota = any_series_has(m.series, "evictions");
  t.header = {"scheduler", "tenants", "fairness (Jain's index of stretch)"};
  if (quota) t.header.insert(t.header.end(), {"evictions", "GPU-h lost to preemption", "GPU-h borrowed above nominal"});
  for (const Series& series : m.series) {
    const SchedulerResult& s = *series.result;
    std::vector<std::string> row = {series.name, std::to_string(tenant_names(s.runs.front()).size()),
                                    figure_cell(s, "tenant_fairness", 3)};
    if (quota)
      row.insert(row.end(),
                 {count_cell(s, "evictions"), figure_cell(s, "preempted_gpu_hours", 1), figure_cell(s, "borrowed_gpu_hours", 1)});
    t.rows.push_back(std::move(row));
  }
  t.note =
      "means over seeds; stretch: a tenant's summed JCT over the summed run time of its finished jobs; Jain's index over "
      "tenants: 1 when every tenant is slowed alike (docs/tenancy.md)";
  return t;
}

}  // namespace

std::vector<std::string> comparison_warnings(const std::vector<LabelledResults>& inputs) {
  std::vector<std::string> out;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const ScenarioInfo &first = inputs.front().results->scenario, &other = inputs[i].results->scenario;
    if (other.name != first.name || other.mode != first.mode || other.jobs != first.jobs)
      out.push_back(fmt::format("{} ran scenario {} ({}, {}), {} ran {} ({}, {}): the changes are not those of one scenario",
                                inputs[i].label, other.name, other.mode, counted(static_cast<long long>(other.jobs), "job"),
                                inputs.front().label, first.name, first.mode,
                                counted(static_cast<long long>(first.jobs), "job")));
  }
  return out;
}

std::string seeds_text(const ScenarioInfo& s) {
  if (s.seeds <= 1) return fmt::format("1 seed ({})", s.seed);
  return fmt::format("{} seeds ({}..{})", s.seeds, s.seed, s.seed + static_cast<uint64_t>(s.seeds) - 1);
}

std::string size_text(const ScenarioInfo& s) {
  return counted(s.nodes, "node") + ", " + counted(s.gpus, "GPU") + ", " + counted(static_cast<long long>(s.jobs), "job");
}

std::string headline_value_text(double value, const std::string& unit) {
  if (unit == "ratio") return format_number(value * 100) + "%";
  std::string text = format_number(value) + (unit.empty() ? "" : " " + unit);
  if (unit == "s" && std::abs(value) >= 86400) return text + " = " + format_number(value / 86400) + " d";
  if (unit == "s" && std::abs(value) >= 3600) return text + " = " + format_number(value / 3600) + " h";
  return text;
}

std::string headline_change_text(const Headline& h) {
  if (h.unit != "ratio") return format_change_percent(h.change_percent);
  std::string points = format_change_percent((h.other - h.base) * 100);  // its digits: "+0.2%", "-0.019%"
  points.pop_back();
  return points + " pp";
}

std::string job_counts_text(const JobCounts& c) {
  std::string out = format_number(c.placed) + " of " + format_number(c.jobs) + " placed";
  std::vector<std::string> unplaced;
  const auto add = [&](double n, const char* what) {
    if (n > 0) unplaced.push_back(format_number(n) + " " + what);
  };
  add(c.never_placed, "never placed");
  add(c.stuck, "stuck");
  add(c.rejected, "rejected");
  add(c.failed, "failed");
  if (unplaced.empty()) return out;
  out += " (";
  for (size_t i = 0; i < unplaced.size(); ++i) out += (i ? ", " : "") + unplaced[i];
  return out + ")";
}

std::string scheduler_colour(const std::string& scheduler) {
  const std::vector<std::string> names = scheduler_names();
  const auto it = std::find(names.begin(), names.end(), scheduler);
  return kPalette[static_cast<size_t>(it - names.begin()) % kPalette.size()];
}

std::vector<Point> downsample(const std::vector<Point>& points, size_t max_points) {
  if (points.size() <= max_points || max_points < 2) return points;
  std::vector<Point> out;
  for (size_t i = 0; i < max_points; ++i) out.push_back(points[i * (points.size() - 1) / (max_points - 1)]);
  return out;
}

std::vector<Point> cdf_points(std::vector<double> values, size_t max_points) {
  std::sort(values.begin(), values.end());
  std::vector<Point> points;
  const auto n = static_cast<double>(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    if (i + 1 == values.size() || values[i + 1] != values[i]) points.push_back({values[i], static_cast<double>(i + 1) / n});
  if (!points.empty()) points.insert(points.begin(), {points.front().x, 0});
  return downsample(points, max_points);
}

ChartTable per_tenant_table(const std::vector<Series>& series) {
  ChartTable t;
  const std::vector<std::string> tenants = series_tenants(series);
  if (tenants.empty()) return t;
  const bool nominal = std::any_of(tenants.begin(), tenants.end(),
                                   [&](const std::string& name) { return any_series_has(series, "nominal_gpus@" + name); });
  const bool quota = any_series_has(series, "evictions");
  t.header = {"tenant",       "scheduler",    "jobs",      "finished",      "mean wait (s)",
              "p95 wait (s)", "mean JCT (s)", "GPU-h run", "share of GPU-h"};
  if (nominal) t.header.insert(t.header.begin() + 1, "nominal GPUs");
  if (quota) t.header.insert(t.header.end(), {"GPU-h borrowed", "evictions", "GPU-h lost to preemption"});
  // Each series' GPU-hours over all its tenants: the whole of which a tenant's share is taken.
  std::vector<double> ran(series.size(), 0);
  for (size_t i = 0; i < series.size(); ++i)
    for (const std::string& name : tenants) {
      bool found = false;
      ran[i] += mean_of(*series[i].result, "gpu_hours@" + name, found);
    }
  for (const std::string& name : tenants) {
    const std::string at = "@" + name;
    for (size_t i = 0; i < series.size(); ++i) {
      const SchedulerResult& s = *series[i].result;
      if (!s.metric("jobs" + at)) continue;
      bool found = false;
      const double hours = mean_of(s, "gpu_hours" + at, found);
      // Waits and JCTs are absent for a tenant that finished no job: n/a.
      std::vector<std::string> row = {name,
                                      series[i].name,
                                      count_cell(s, "jobs" + at),
                                      count_cell(s, "finished" + at),
                                      figure_cell(s, "wait_s.mean" + at, 1),
                                      figure_cell(s, "wait_s.p95" + at, 1),
                                      figure_cell(s, "jct_s.mean" + at, 1),
                                      figure_cell(s, "gpu_hours" + at, 1),
                                      found && ran[i] > 0 ? fmt::format("{:.1f}%", 100 * hours / ran[i]) : "n/a"};
      if (nominal) row.insert(row.begin() + 1, s.metric("nominal_gpus" + at) ? figure_cell(s, "nominal_gpus" + at, 0) : "none");
      if (quota)
        row.insert(row.end(), {figure_cell(s, "borrowed_gpu_hours" + at, 1), count_cell(s, "evictions" + at),
                               figure_cell(s, "preempted_gpu_hours" + at, 1)});
      t.rows.push_back(std::move(row));
    }
  }
  t.note = std::string(
               "means over seeds; waits and JCT of the tenant's finished jobs; share: of the GPU-hours all tenants' "
               "jobs ran under that scheduler") +
           (nominal ? "; nominal GPUs: the tenant's GPU quota (none: a queue without one)" : "") +
           (quota ? "; GPU-h borrowed: quota held above nominal, reserved from admission, so also while an admitted job "
                    "waits for GPUs (it may exceed GPU-h run)"
                  : "");
  return t;
}

bool names_column(const std::string& heading) {
  static const std::array<std::string_view, 7> names = {"scheduler",    "tenant",       "node type", "candidate",
                                                        "evicted from", "for a job of", "reason"};
  return std::find(names.begin(), names.end(), heading) != names.end();
}

ChartTable preemption_table(const std::vector<Series>& series) {
  constexpr size_t kPairsShown = 10;
  ChartTable t;
  t.header = {"scheduler", "evicted from", "for a job of", "reason", "evictions", "share of its evictions", "GPU-h lost"};
  for (const Series& s : series) {
    const std::vector<RunResult>& runs = s.result->runs;
    // (tenant, by tenant, reason) -> evictions over the runs; tenants by name ("none" without one).
    std::map<std::tuple<std::string, std::string, std::string>, EvictionSum> pairs;
    EvictionSum total;
    for (const RunResult& run : runs) {
      const std::vector<std::string> tenants = tenant_names(run);
      const auto name = [&](int16_t t) {
        return t >= 0 && static_cast<size_t>(t) < tenants.size() ? tenants[static_cast<size_t>(t)] : std::string("none");
      };
      for (const Preemption& p : run.preemptions) {
        pairs[{name(p.tenant), name(p.by_tenant), std::string(enum_name(p.reason))}].add(p);
        total.add(p);
      }
    }
    if (total.evictions == 0) continue;
    std::vector<std::pair<EvictionSum, std::tuple<std::string, std::string, std::string>>> ranked;
    for (const auto& [key, sum] : pairs) ranked.emplace_back(sum, key);
    // Those that cost the most GPU time first (by evictions when some cost is not known).
    const bool by_cost = total.known;
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
      return by_cost && a.first.lost_gpu_ms != b.first.lost_gpu_ms ? a.first.lost_gpu_ms > b.first.lost_gpu_ms
                                                                   : a.first.evictions > b.first.evictions;
    });
    const double seeds = static_cast<double>(runs.size());
    const auto cells = [&](const EvictionSum& sum) {
      const double n = static_cast<double>(sum.evictions);
      return std::array<std::string, 3>{
          format_fixed(n / seeds, 1), fmt::format("{:.1f}%", 100 * n / static_cast<double>(total.evictions)),
          sum.known ? format_fixed(static_cast<double>(sum.lost_gpu_ms) / 3.6e6 / seeds, 1) : "n/a"};
    };
    EvictionSum rest;
    for (size_t i = 0; i < ranked.size(); ++i) {
      const auto& [sum, key] = ranked[i];
      if (i >= kPairsShown) {
        rest.add(sum);
        continue;
      }
      const auto& [from, by, reason] = key;
      const auto [n, share, lost] = cells(sum);
      t.rows.push_back({s.name, from, by, reason, n, share, lost});
    }
    if (rest.evictions > 0) {
      const auto [n, share, lost] = cells(rest);
      t.rows.push_back({s.name, fmt::format("{} other pairs", ranked.size() - kPairsShown), "", "", n, share, lost});
    }
  }
  t.note =
      "means over seeds; a row per tenant evicted from, tenant of the job it was evicted for, and the queue system's reason "
      "(Kueue's InClusterQueue, InCohortReclamation, InCohortReclaimWhileBorrowing, InCohortFairSharing; KAI's reclaim, "
      "preempt; docs/tenancy.md); per scheduler the 10 that cost the most GPU-hours (the most evictions where a cost is "
      "not known); GPU-h lost: the training the evicted jobs redo and the restart time their runs had spent (a tenant's "
      "rows add up to its GPU-hours lost to preemption); topsim explain names the jobs";
  return t;
}

ChartTable node_type_table(const std::vector<Series>& series) {
  ChartTable t;
  bool llm = false;  // LLM jobs' tokens/s get their own columns
  for (const Series& s : series)
    for (const NodeTypeUsage& u : s.result->runs.front().by_node_type) llm = llm || u.llm_jobs > 0;
  t.header = {"scheduler", "node type", "jobs", "GPU-hours", "mean samples/s"};
  if (llm) t.header.insert(t.header.end(), {"LLM jobs", "mean tokens/s"});
  for (const Series& s : series) {
    const auto& usage = s.result->runs.front().by_node_type;
    // One type, or no training job (GPU shares and trace pods only): nothing to compare.
    if (usage.size() < 2 || std::all_of(usage.begin(), usage.end(), [](const NodeTypeUsage& u) { return u.jobs == 0; })) continue;
    for (const NodeTypeUsage& u : usage) {
      std::vector<std::string> row = {s.name, u.node_type, format_count(u.jobs), format_fixed(u.gpu_hours, 1),
                                      u.jobs > u.llm_jobs ? format_fixed(u.mean_samples_per_sec, 1) : "-"};
      if (llm) row.insert(row.end(), {format_count(u.llm_jobs), u.llm_jobs > 0 ? format_fixed(u.mean_tokens_per_sec, 1) : "-"});
      t.rows.push_back(std::move(row));
    }
  }
  t.note =
      "first seed; jobs: the training jobs a type paced (a job on several types counts on the one it runs slowest on), "
      "GPU-hours: those finished jobs spent on the type's nodes";
  return t;
}

ReportModel build_report_model(const std::vector<LabelledResults>& inputs) {
  ReportModel m;
  for (const LabelledResults& in : inputs) {
    m.labels.push_back(in.label);
    m.runs.push_back(&in);
  }
  m.fill = !inputs.empty() && inputs.front().results->scenario.mode == "fill";
  m.warnings = comparison_warnings(inputs);
  m.series = make_series(inputs);
  m.headlines = m.fill ? make_headlines(m, kFillCards) : make_headlines(m, kReplayCards);
  for (const Series& s : m.series) m.job_counts.push_back(job_counts_of(s));
  m.deltas = m.fill ? make_deltas(inputs, kFillDeltaMetrics) : make_deltas(inputs, kReplayDeltaMetrics);
  m.charts = m.fill ? fill_charts(m) : replay_charts(m, m.status);
  if (m.fill) m.policy_table = policy_table(m);
  if (!m.fill) m.failure_table = failure_table(m);
  if (!m.fill) m.tenancy_table = tenancy_table(m);
  if (!m.fill) m.tenant_table = per_tenant_table(m.series);
  if (!m.fill) m.preemption_table = preemption_table(m.series);
  m.node_type_table = node_type_table(m.series);
  return m;
}

}  // namespace topsim
