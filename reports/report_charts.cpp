#include "reports/report_charts.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "core/model_catalog.h"
#include "util/text.h"

namespace topsim {
namespace {

constexpr size_t kMaxTableRows = 25;                                             // rows of a table under a line chart
constexpr std::array<double, 6> kCdfShares = {0.25, 0.5, 0.9, 0.95, 0.99, 1.0};  // CDF table rows
constexpr double kMsPerHour = 3.6e6;

Chart make_chart(std::string title, std::string kind, std::string x_label, std::string y_label) {
  Chart c;
  c.title = std::move(title);
  c.kind = std::move(kind);
  c.x_label = std::move(x_label);
  c.y_label = std::move(y_label);
  return c;
}

ChartDataset dataset(const Series& s, std::vector<Point> points) {
  const double alpha = s.label_index == 0 ? 1.0 : std::max(0.35, 1.0 - 0.3 * static_cast<double>(s.label_index));
  return ChartDataset{s.name, s.colour, s.label_index > 0, alpha, 0, std::move(points)};
}

const RunResult& first_run(const Series& s) { return s.result->runs.front(); }

// What the per-job charts read of the first run of a series, gathered in one pass over its jobs
// by id: the values of the CDFs, and the sums of the grouped means (added in id order).
using GroupedSums = std::map<std::string, std::pair<double, int>>;  // (sum, count) per category
struct JobColumns {
  std::vector<double> waits, jcts;                    // finished jobs, seconds
  GroupedSums ring_by_transport, wait_by_share_size;  // GB/s of started training jobs; waits of finished shares
};

std::vector<std::string> series_header(const std::string& first, const ReportModel& m) {
  std::vector<std::string> header{first};
  for (const Series& s : m.series) header.push_back(s.name);
  return header;
}

// A table of a bar chart: one row per category, one column per dataset.
ChartTable bar_table(const Chart& chart, const std::string& first_column) {
  ChartTable t;
  t.values = chart.y_label;
  t.header.push_back(first_column);
  for (const ChartDataset& d : chart.datasets) t.header.push_back(d.name);
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    std::vector<std::string> row{chart.categories[c]};
    for (const ChartDataset& d : chart.datasets) {
      const auto it =
          std::find_if(d.points.begin(), d.points.end(), [&](const Point& p) { return p.x == static_cast<double>(c); });
      row.push_back(it == d.points.end() ? "n/a" : format_number(it->y));  // none of its jobs is in the category
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

// A table of a line chart over time: up to kMaxTableRows rows spread over the samples of the
// dataset that lasts longest; `every_point` says where all of them are (the figures
// timeseries.csv has, or results.json's per-level and per-tenant samples). `samples` holds each
// dataset's points before the chart thinned them: runs of different lengths are thinned at
// different strides, so a row reads every dataset at the row's own time (its sample then, or the
// last before it when its grid is coarser) and says "ended" past the end of a shorter run.
ChartTable line_table(const Chart& chart, const std::vector<std::vector<Point>>& samples, const std::string& first_column,
                      const std::string& every_point = "timeseries.csv") {
  ChartTable t;
  t.values = chart.y_label;
  t.header.push_back(first_column);
  for (const ChartDataset& d : chart.datasets) t.header.push_back(d.name);
  const auto last_x = [](const std::vector<Point>& v) { return v.empty() ? -INFINITY : v.back().x; };
  size_t longest = 0;
  for (size_t d = 1; d < samples.size(); ++d)
    if (last_x(samples[d]) > last_x(samples[longest])) longest = d;
  const size_t n = samples.empty() ? 0 : samples[longest].size();
  const size_t rows = std::min(n, kMaxTableRows);
  for (size_t r = 0; r < rows; ++r) {
    const double x = samples[longest][rows == 1 ? 0 : r * (n - 1) / (rows - 1)].x;
    std::vector<std::string> row{format_number(x)};
    for (const std::vector<Point>& v : samples) {
      const auto after = std::upper_bound(v.begin(), v.end(), x, [](double at, const Point& p) { return at < p.x; });
      row.push_back(after == v.begin() ? "n/a" : x > v.back().x ? "ended" : format_number(std::prev(after)->y));
    }
    t.rows.push_back(std::move(row));
  }
  if (n > rows) t.note = fmt::format("{} of {} points, evenly spread; every point is in {}", rows, n, every_point);
  return t;
}

std::optional<Chart> throughput_chart(const ReportModel& m) {
  Chart c = make_chart("Training throughput per model", "bar", "model / framework",
                       "samples/s per job (images/s for image models, tokens/s for LLMs)");
  auto category = [](const ModelThroughput& t) { return t.model + " / " + t.framework; };
  for (const Series& s : m.series)
    for (const ModelThroughput& t : first_run(s).by_model)
      if (std::find(c.categories.begin(), c.categories.end(), category(t)) == c.categories.end())
        c.categories.push_back(category(t));
  if (c.categories.empty()) return std::nullopt;
  for (const Series& s : m.series) {
    std::vector<Point> points;
    for (const ModelThroughput& t : first_run(s).by_model)
      points.push_back(
          {static_cast<double>(std::find(c.categories.begin(), c.categories.end(), category(t)) - c.categories.begin()),
           t.mean_samples_per_sec});
    c.datasets.push_back(dataset(s, std::move(points)));
  }
  c.table = bar_table(c, "model / framework");
  return c;
}

// Where an LLM job's step goes, per scheduler: each part's mean seconds over its LLM jobs (all
// LLMs of the first run pooled, weighted by their jobs).
std::optional<Chart> llm_step_chart(const ReportModel& m) {
  Chart c = make_chart("LLM jobs: where the step goes", "bar", "part of the step", "seconds per step (mean over LLM jobs)");
  for (const Series& s : m.series) {
    const auto& steps = first_run(s).llm_steps;
    if (steps.empty()) continue;
    std::vector<double> seconds;
    double jobs = 0;
    for (const LlmModelStep& step : steps) {
      const auto parts = step.parts();
      if (c.categories.empty())
        for (const auto& [part, value] : parts) c.categories.push_back(part);
      seconds.resize(parts.size(), 0);
      for (size_t i = 0; i < parts.size(); ++i) seconds[i] += parts[i].second * static_cast<double>(step.jobs);
      jobs += static_cast<double>(step.jobs);
    }
    std::vector<Point> points;
    for (size_t i = 0; i < seconds.size(); ++i) points.push_back({static_cast<double>(i), seconds[i] / jobs});
    c.datasets.push_back(dataset(s, std::move(points)));
  }
  if (c.datasets.empty()) return std::nullopt;
  c.table = bar_table(c, "part of the step");
  return c;
}

std::optional<Chart> cdf_chart(const ReportModel& m, const std::string& title, const std::string& axis,
                               const std::vector<JobColumns>& columns, std::vector<double> JobColumns::*finished) {
  Chart c = make_chart(title, "line", axis, "share of finished jobs");
  c.table.values = axis;
  c.table.header = series_header("share of finished jobs", m);
  std::vector<std::vector<double>> sorted;
  for (size_t i = 0; i < m.series.size(); ++i) {
    std::vector<double> values = columns[i].*finished;
    std::sort(values.begin(), values.end());
    c.datasets.push_back(dataset(m.series[i], cdf_points(values, kMaxCdfPoints)));
    sorted.push_back(std::move(values));
  }
  if (std::all_of(sorted.begin(), sorted.end(), [](const auto& v) { return v.empty(); })) return std::nullopt;
  // Heavy tails (seconds to weeks) read on a log axis; zeros cannot sit on one.
  double low = INFINITY, high = 0;
  for (const auto& v : sorted)
    if (!v.empty()) low = std::min(low, v.front()), high = std::max(high, v.back());
  c.x_log = low > 0 && high / low >= 100;
  if (c.x_log) c.x_label += ", log scale";
  for (double share : kCdfShares) {
    std::vector<std::string> row{format_number(share)};
    for (const auto& v : sorted) row.push_back(v.empty() ? "n/a" : format_number(nearest_rank(v, share)));
    c.table.rows.push_back(std::move(row));
  }
  std::vector<std::string> none;
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i].empty()) none.push_back(m.series[i].name);
  if (!none.empty()) c.table.note = "n/a: " + join(none, ", ") + (none.size() == 1 ? " finished" : " each finished") + " no job";
  return c;
}

std::optional<Chart> over_time_chart(const ReportModel& m, const std::string& title, const std::string& y_label,
                                     double (*value)(const ClusterSample&)) {
  Chart c = make_chart(title, "line", "time (h)", y_label);
  std::vector<std::vector<Point>> samples;
  for (const Series& s : m.series) {
    std::vector<Point>& points = samples.emplace_back();
    for (const ClusterSample& x : first_run(s).samples) points.push_back({static_cast<double>(x.time_ms) / kMsPerHour, value(x)});
    c.datasets.push_back(dataset(s, downsample(points, kMaxSeriesPoints)));
  }
  if (std::all_of(c.datasets.begin(), c.datasets.end(), [](const ChartDataset& d) { return d.points.empty(); }))
    return std::nullopt;
  c.table = line_table(c, samples, "time (h)");
  return c;
}

// Per fabric level, the share of its uplinks' capacity the jobs' traffic used over time; none
// without a fabric or when no job crossed an uplink.
std::vector<std::optional<Chart>> uplink_charts(const ReportModel& m) {
  std::vector<std::optional<Chart>> charts;
  if (m.runs.empty()) return charts;
  const std::vector<std::string>& levels = m.runs.front()->results->scenario.fabric_levels;
  for (size_t level = 0; level < levels.size(); ++level) {
    Chart c = make_chart("Uplink utilisation over time: " + levels[level], "line", "time (h)",
                         "carried / capacity of the " + levels[level] + " uplinks");
    bool used = false;
    std::vector<std::vector<Point>> samples;
    for (const Series& s : m.series) {
      std::vector<Point>& points = samples.emplace_back();
      for (const ClusterSample& x : first_run(s).samples) {
        const double u = level < x.link_utilisation.size() ? x.link_utilisation[level] : 0;
        used = used || u > 0;
        points.push_back({static_cast<double>(x.time_ms) / kMsPerHour, u});
      }
      c.datasets.push_back(dataset(s, downsample(points, kMaxSeriesPoints)));
    }
    if (!used) continue;
    c.table = line_table(c, samples, "time (h)", "uplink_timeseries.csv");
    charts.push_back(std::move(c));
  }
  return charts;
}

// Per scheduler, the GPUs each tenant's running jobs held over time, stacked; with KAI queues,
// then the fair share KAI's division gave each and, with time-aware fairness, the usage it read
// (docs/tenancy.md); none without tenants.
std::vector<std::optional<Chart>> tenant_charts(const ReportModel& m) {
  // Tableau 10 (a categorical palette for up to ten series; later tenants reuse it).
  static constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                             "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  struct Figure {
    std::vector<double> ClusterSample::*values;
    const char* column;  // in tenant_timeseries.csv
    const char* title;
    const char* y_label;
    double scale;
    bool stacked;
  };
  static constexpr Figure kFigures[] = {
      {&ClusterSample::tenant_gpus, "gpus", "GPUs held per tenant over time", "GPUs held by running jobs", 1, true},
      {&ClusterSample::tenant_fair_share_gpus, "fair_share_gpus", "KAI fair share per queue over time", "fair share (GPUs)", 1,
       false},
      {&ClusterSample::tenant_usage_share, "usage_share", "KAI usage per queue over time (time-aware fairness)",
       "usage over the window (% of the cluster's GPU time)", 100, false}};
  std::vector<std::optional<Chart>> charts;
  for (const Series& s : m.series) {
    const RunResult& run = first_run(s);
    const std::vector<std::string> tenants = tenant_names(run);
    if (tenants.empty() || run.samples.empty()) continue;
    for (const Figure& figure : kFigures) {
      if ((run.samples.front().*figure.values).size() != tenants.size()) continue;
      Chart c = make_chart(std::string(figure.title) + ": " + s.name, "line", "time (h)", figure.y_label);
      c.stacked = figure.stacked;
      std::vector<std::vector<Point>> samples;
      for (size_t t = 0; t < tenants.size(); ++t) {
        std::vector<Point>& points = samples.emplace_back();
        for (const ClusterSample& x : run.samples) {
          const std::vector<double>& values = x.*figure.values;
          points.push_back({static_cast<double>(x.time_ms) / kMsPerHour, t < values.size() ? figure.scale * values[t] : 0});
        }
        c.datasets.push_back(
            ChartDataset{tenants[t], kPalette[t % std::size(kPalette)], false, 0.6, 0, downsample(points, kMaxSeriesPoints)});
      }
      c.table = line_table(c, samples, "time (h)", std::string("tenant_timeseries.csv (") + figure.column + ")");
      charts.push_back(std::move(c));
    }
  }
  return charts;
}

// A bar chart of the means over the first run's jobs, by category (`by`: sum and count per category).
std::optional<Chart> grouped_mean_chart(const ReportModel& m, Chart c, const std::vector<JobColumns>& columns,
                                        GroupedSums JobColumns::*by) {
  std::vector<GroupedSums> sums;
  for (const JobColumns& column : columns) {
    for (const auto& [key, sum] : column.*by)
      if (std::find(c.categories.begin(), c.categories.end(), key) == c.categories.end()) c.categories.push_back(key);
    sums.push_back(column.*by);
  }
  if (c.categories.empty()) return std::nullopt;
  std::sort(c.categories.begin(), c.categories.end());
  for (size_t i = 0; i < m.series.size(); ++i) {
    std::vector<Point> points;
    for (const auto& [key, sum] : sums[i])
      points.push_back({static_cast<double>(std::find(c.categories.begin(), c.categories.end(), key) - c.categories.begin()),
                        sum.first / sum.second});
    c.datasets.push_back(dataset(m.series[i], std::move(points)));
  }
  c.table = bar_table(c, c.x_label);
  return c;
}

std::optional<Chart> transport_chart(const ReportModel& m, const std::vector<JobColumns>& columns) {
  Chart c = make_chart("Ring bandwidth by transport", "bar", "transport (slowest hop of the job's ring)",
                       "mean all-reduce bus bandwidth (GB/s)");
  return grouped_mean_chart(m, c, columns, &JobColumns::ring_by_transport);
}

// Shares by their GiB (and compute percent), trace pods by the GPU share they ask.
std::optional<std::string> share_size(const JobSpec& job, const JobRecord& r) {
  if (r.state != JobState::Finished) return std::nullopt;
  if (job.is_share())
    return job.gpu_core_percent > 0 ? fmt::format("{:>3} GiB + {}%", job.gpu_mem_gib, job.gpu_core_percent)
                                    : fmt::format("{:>3} GiB", job.gpu_mem_gib);
  if (job.kind != JobKind::TracePod) return std::nullopt;
  if (job.gpus_per_worker == 0) return "CPU only";
  if (job.gpus_per_worker > 1) return fmt::format("{} GPUs", job.gpus_per_worker);
  if (job.gpu_milli >= 1000) return "1 GPU";
  return job.gpu_milli <= 250 ? "<= 0.25 GPU" : job.gpu_milli <= 500 ? "0.26-0.5 GPU" : "0.51-0.99 GPU";
}

std::optional<Chart> share_wait_chart(const ReportModel& m, const std::vector<JobColumns>& columns) {
  Chart c = make_chart("Queueing delay by share size", "bar", "share size", "mean wait (s)");
  return grouped_mean_chart(m, c, columns, &JobColumns::wait_by_share_size);
}

// The per-job chart data of the first run of `s`. Error: its records could not be read back.
Expected<JobColumns> job_columns(const Series& s) {
  JobColumns c;
  const RunResult& run = first_run(s);
  const Status read = for_each_job(run, [&](const JobSpec& job, const JobRecord& r) {
    const double wait_s = static_cast<double>(r.start_ms - r.submit_ms) / 1000.0;
    if (r.state == JobState::Finished) {
      c.waits.push_back(wait_s);
      c.jcts.push_back(static_cast<double>(r.finish_ms - r.submit_ms) / 1000.0);
    }
    if (job.is_training() && r.start_ms >= 0 && r.comm.transport != CommTransport::None) {
      auto& [sum, count] = c.ring_by_transport[std::string(enum_name(r.comm.transport))];
      sum += r.comm.bus_bandwidth_gbps;
      ++count;
    }
    if (auto size = share_size(job, r)) {
      auto& [sum, count] = c.wait_by_share_size[*size];
      sum += wait_s;
      ++count;
    }
  });
  if (!read) return read.error();
  return c;
}

// Mean and sample sd over seeds of one quantity of the load curves, per load point.
std::vector<std::pair<Point, double>> curve_stats(const SchedulerResult& s, double (*value)(const LoadPoint&)) {
  std::vector<std::pair<Point, double>> out;
  for (size_t p = 0; !s.runs.empty() && p < s.runs.front().load_curve.size(); ++p) {
    std::vector<double> values;
    for (const RunResult& run : s.runs)
      if (p < run.load_curve.size()) values.push_back(value(run.load_curve[p]));
    const SeedStats stats = seed_stats(values);
    out.push_back({{static_cast<double>(s.runs.front().load_curve[p].load_percent), stats.mean}, stats.sd});
  }
  return out;
}

std::optional<Chart> load_chart(const ReportModel& m, const std::string& title, const std::string& y_label,
                                double (*value)(const LoadPoint&)) {
  Chart c = make_chart(title, "line", "arrived load (% of GPU capacity)", y_label);
  c.table.values = y_label;
  c.table.header = series_header("arrived load (%)", m);
  std::vector<std::vector<std::pair<Point, double>>> stats;
  for (const Series& s : m.series) {
    stats.push_back(curve_stats(*s.result, value));
    std::vector<Point> mean, upper, lower;
    for (const auto& [p, sd] : stats.back())
      mean.push_back(p), upper.push_back({p.x, p.y + sd}), lower.push_back({p.x, p.y - sd});
    ChartDataset band_top = dataset(s, std::move(upper)), band_bottom = dataset(s, std::move(lower));
    band_top.band = 1, band_bottom.band = -1;
    band_top.name = band_bottom.name = s.name + " ± sd";
    c.datasets.push_back(dataset(s, std::move(mean)));
    c.datasets.push_back(std::move(band_top));
    c.datasets.push_back(std::move(band_bottom));
  }
  if (stats.empty() || stats.front().empty()) return std::nullopt;
  for (size_t p = 0; p < stats.front().size(); p += 10) {
    std::vector<std::string> row{format_number(stats.front()[p].first.x)};
    for (const auto& st : stats)
      row.push_back(p < st.size() ? format_number(st[p].first.y) + " ± " + format_number(st[p].second) : "");
    c.table.rows.push_back(std::move(row));
  }
  c.table.note = "mean ± sample sd over seeds, every 10% of arrived load; every point is in fill_curves.csv";
  return c;
}

// A chart whose values are all 0 (a CDF's: its x values) is replaced by `note`.
void mark_empty(std::optional<Chart>& c, const std::string& note, bool by_x = false) {
  if (!c) return;
  bool empty = true;
  for (const ChartDataset& d : c->datasets)
    for (const Point& p : d.points) empty = empty && (by_x ? p.x : p.y) == 0;
  if (empty) c->empty_note = note;
}

// Bars of positive values spanning more than two decades read on a log axis.
void log_axis_if_wide(std::optional<Chart>& c) {
  if (!c) return;
  double low = INFINITY, high = 0;
  for (const ChartDataset& d : c->datasets)
    for (const Point& p : d.points)
      if (p.y > 0) low = std::min(low, p.y), high = std::max(high, p.y);
  c->y_log = high > 0 && high / low > 100;
  if (c->y_log) c->y_label += ", log scale";
}

std::vector<Chart> numbered(std::vector<std::optional<Chart>> charts) {
  std::vector<Chart> out;
  for (auto& c : charts)
    if (c) {
      if (c->kind == "bar" && c->empty_note.empty()) mark_empty(c, "Every value is 0.");
      c->id = "chart-" + std::to_string(out.size() + 1);
      out.push_back(std::move(*c));
    }
  return out;
}

// With failures: the GPUs of failed nodes over time (per scheduler: the failures are the same, the
// runs' lengths differ), and the GPU-hours they cost by cause; none without failures.
std::vector<std::optional<Chart>> failure_charts(const ReportModel& m) {
  std::vector<std::optional<Chart>> charts;
  if (m.series.empty() || !first_run(m.series.front()).metrics.get("node_failures")) return charts;
  charts.push_back(over_time_chart(m, "GPUs down over time (failed nodes)", "GPUs of nodes out of service",
                                   [](const ClusterSample& x) { return static_cast<double>(x.gpus_down); }));
  mark_empty(charts.back(), "No node was down at any sample.");
  Chart c = make_chart("GPU-hours lost to failures, by cause", "bar", "cause",
                       "GPU-hours (training since the last checkpoint, and the restart)");
  for (const auto& entry : EnumNames<FailureCause>::table) c.categories.emplace_back(entry.name);
  for (const Series& s : m.series) {
    std::vector<Point> points;
    for (size_t i = 0; i < c.categories.size(); ++i)
      points.push_back(
          {static_cast<double>(i), first_run(s).metrics.get("failure_lost_gpu_hours." + c.categories[i]).value_or(0)});
    c.datasets.push_back(dataset(s, std::move(points)));
  }
  c.table = bar_table(c, "cause");
  charts.push_back(std::move(c));
  mark_empty(charts.back(), "No failure interrupted a running job.");
  return charts;
}

}  // namespace

std::vector<Chart> replay_charts(const ReportModel& m, Status& status) {
  std::vector<JobColumns> columns;
  for (const Series& s : m.series) {
    auto column = job_columns(s);
    if (!column) status = column.error();
    columns.push_back(column ? std::move(*column) : JobColumns{});
  }
  std::optional<Chart> waits = cdf_chart(m, "Queueing delay (CDF)", "wait (s)", columns, &JobColumns::waits);
  mark_empty(waits, "No job waited: every finished job started when it was submitted.", true);
  std::optional<Chart> fragmentation = over_time_chart(m, "Fragmentation over time (FGD)", "fragmented GPUs",
                                                       [](const ClusterSample& x) { return x.fragmentation_gpus; });
  mark_empty(fragmentation, "No GPU was fragmented at any sample.");
  std::optional<Chart> pending = over_time_chart(m, "Pending jobs over time", "jobs waiting",
                                                 [](const ClusterSample& x) { return static_cast<double>(x.pending); });
  mark_empty(pending, "No job was pending at any sample.");
  std::optional<Chart> throughput = throughput_chart(m), transports = transport_chart(m, columns),
                       share_waits = share_wait_chart(m, columns), llm_steps = llm_step_chart(m);
  for (std::optional<Chart>* bars : {&throughput, &transports, &share_waits, &llm_steps}) log_axis_if_wide(*bars);
  std::vector<std::optional<Chart>> charts = {
      throughput,
      waits,
      cdf_chart(m, "Job completion time (CDF)", "JCT (s)", columns, &JobColumns::jcts),
      over_time_chart(m, "Allocated GPUs over time", "GPUs allocated", [](const ClusterSample& x) { return x.allocated_gpus; }),
      fragmentation,
      pending,
      transports,
      share_waits,
      llm_steps};
  for (std::optional<Chart>& uplinks : uplink_charts(m)) charts.push_back(std::move(uplinks));
  for (std::optional<Chart>& tenants : tenant_charts(m)) charts.push_back(std::move(tenants));
  for (std::optional<Chart>& failures : failure_charts(m)) charts.push_back(std::move(failures));
  return numbered(std::move(charts));
}

std::vector<Chart> fill_charts(const ReportModel& m) {
  return numbered({load_chart(m, "GPU allocation ratio against arrived load", "GPU allocation ratio (allocated / capacity)",
                              [](const LoadPoint& p) { return p.gpu_alloc_ratio; }),
                   load_chart(m, "Fragmented GPUs against arrived load (FGD)", "fragmented GPUs",
                              [](const LoadPoint& p) { return p.frag_gpus; })});
}

}  // namespace topsim
