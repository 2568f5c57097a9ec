// What the report files show, computed once from one or more labelled ResultSets and rendered
// by each format (HTML, Markdown, CSV): the series (one per run label x scheduler, one colour
// per scheduler in every chart), the headline comparisons with their % change, the delta table
// of a comparison of runs, and the charts with the numbers under them.
//
// Series are downsampled for display: time series to at most kMaxSeriesPoints, CDFs to at most
// kMaxCdfPoints, both keeping the first and last point exactly.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/metrics.h"
#include "sim/results.h"
#include "util/number_format.h"

namespace topsim {

inline constexpr size_t kMaxSeriesPoints = 2000;
inline constexpr size_t kMaxCdfPoints = 500;

struct LabelledResults {
  std::string label;                   // names the run ("before", "after"); a lone run: the scenario's name
  const ResultSet* results = nullptr;  // REQUIRES: non-null, outliving the report
};

// One scheduler of one labelled run.
struct Series {
  std::string name;   // "topology-aware", or "after: topology-aware" in a comparison
  std::string label;  // the run's label
  std::string scheduler;
  std::string colour;      // "#rrggbb", the scheduler's in every chart
  size_t label_index = 0;  // 0 for the first run (others are drawn dashed / lighter)
  const SchedulerResult* result = nullptr;
};

// Points of a chart series; `x` is a category index for bar charts.
struct Point {
  double x = 0, y = 0;
};

struct ChartDataset {
  std::string name;
  std::string colour;
  bool dashed = false;  // later runs of a comparison
  double alpha = 1;     // bar fill opacity (later runs lighter)
  int band = 0;         // 0: a line or bars; 1 / -1: the upper / lower edge of a ±sd band
  std::vector<Point> points;
  bool markers = false;  // line charts: draw each point (a frontier of a few configurations)
};

struct ChartTable {
  // What the cells after the first column hold, with its unit (a chart table: its value axis,
  // "JCT (s)"), shown above the table; empty: the header says it.
  std::string values;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string note;  // e.g. "every 4th of 87 points"
};

struct Chart {
  std::string id;  // element id: "chart-<n>"
  std::string title;
  std::string kind;                     // "line" or "bar"
  std::string x_label, y_label;         // with units
  bool x_log = false;                   // a logarithmic x axis (line charts of values spanning decades)
  bool y_log = false;                   // a logarithmic y axis (bars spanning more than two decades too)
  bool stacked = false;                 // line charts: the datasets are stacked areas (shares of a whole)
  std::vector<std::string> categories;  // bar charts: the x categories
  std::vector<ChartDataset> datasets;
  ChartTable table;  // the same numbers, readable without JavaScript
  // Non-empty: every value is zero, and the page shows this sentence ("no job waited") in
  // place of the chart and its table.
  std::string empty_note;
};

// A headline card: one metric, one series against another.
struct Headline {
  std::string title;   // "images/sec", "p95 wait", ...
  std::string metric;  // full metric name
  std::string unit;
  Better better = Better::Neither;
  std::string base_name, other_name;  // "default", "topology-aware"
  double base = 0, other = 0;
  double change_percent = 0;  // (other - base) / base x 100; 0 when there is no change to show
  bool worse = false;         // other is worse than base by the metric's direction
  // Non-empty when a change cannot be stated, with the reason: "default placed 0 of 2 jobs",
  // "its value is 0", "it has no value" (the base's). Renderers show "n/a against <base> (<reason>)".
  std::string no_change;
};
// A card's figure as a reader takes it in: a ratio as a percentage ("41.78%"), seconds of an hour
// or more with the span beside them ("1400636 s = 16.21 d", "7200 s = 2 h"), else the number and
// its unit ("20404.1 images/s").
std::string headline_value_text(double value, const std::string& unit);
// A card's change against its base: a ratio's in percentage points, with format_change_percent's
// digits ("+0.2 pp": a relative change of a percentage reads as a wrong difference), else relative
// ("-35.6%").
std::string headline_change_text(const Headline& h);

// What became of a series' jobs (means over seeds), shown beside the headline cards so a
// scheduler that placed nothing cannot pass for one that made no difference.
struct JobCounts {
  std::string name;  // the series' name
  double jobs = 0, placed = 0, finished = 0, rejected = 0, stuck = 0, never_placed = 0, failed = 0;
};
// "1 of 2 placed (1 never placed)", "0 of 2 placed (2 rejected)".
std::string job_counts_text(const JobCounts& c);

// A comparison of labelled runs: for one scheduler and metric, the value in each run.
struct DeltaRow {
  std::string scheduler;
  std::string metric;
  std::string unit;
  std::vector<double> values;          // one per label, in label order (mean over seeds)
  std::vector<double> change_percent;  // vs the first label; NaN (shown "n/a") when the first is 0
  std::vector<bool> worse;
};

// A change in `rows` is "n/a" (against a first run's 0); the tables then carry this note.
bool any_change_against_zero(const std::vector<DeltaRow>& rows);
inline constexpr const char* kChangeAgainstZeroNote = "n/a: no change can be stated against a value of 0 in the first run.";

struct ReportModel {
  std::vector<std::string> labels;
  std::vector<const LabelledResults*> runs;
  std::vector<Series> series;
  std::vector<Headline> headlines;    // a comparison of runs: per metric, the scheduler that moved most
  std::vector<std::string> warnings;  // e.g. runs of different scenarios compared
  std::vector<JobCounts> job_counts;  // one per series, in series order
  std::vector<DeltaRow> deltas;       // empty unless several runs are compared
  std::vector<Chart> charts;
  // Fill experiments: the per-policy table the terminal prints (GPU allocation ratio,
  // fragmentation rate and GPUs, failed pods, each mean ± sd over seeds), ranked by the final
  // allocation ratio, best first; empty otherwise.
  ChartTable policy_table;
  // Replays with failures (docs/failures.md): per series, the failures, what they cost, goodput
  // and effective training time, the largest interrupted job's MTBF against Daly's interval, and
  // spares and elastic resizes when the runs had them; empty otherwise.
  ChartTable failure_table;
  // Replays with tenants (queues, docs/tenancy.md): per series, Jain's index of the tenants'
  // stretch and, with quota, what preemption and borrowing came to (tenancy_table); per tenant, a
  // row per series (per_tenant_table). Both empty otherwise.
  ChartTable tenancy_table, tenant_table;
  // With quota, who preempted whom (preemption_table); empty when no series evicted a job.
  ChartTable preemption_table;
  // Clusters of several node types: where each series' training jobs ran (node_type_table).
  ChartTable node_type_table;
  bool fill = false;  // fill experiments (charts against arrived load)
  Status status;      // error: a run's per-job records on disk could not be read back for the charts
};

// Whether a table's column of this heading holds names (schedulers, tenants, node types, reasons),
// which every reporter aligns left; the others hold figures, aligned right.
bool names_column(const std::string& heading);

// REQUIRES: `inputs` non-empty and outliving the model.
ReportModel build_report_model(const std::vector<LabelledResults>& inputs);

// Per tenant of the series' runs (the first series' tenants first, in its order, then any other's),
// a row per series that has it, means over seeds: its jobs, finished jobs, mean and p95 wait and
// mean JCT of those (n/a without any), GPU-hours its jobs ran and their share of all tenants' (n/a
// when none ran); when some tenant has a nominal quota, that quota ("none": a queue without one);
// with quota (some series evicted or could have), GPU-hours borrowed above nominal, evictions and
// GPU-hours they lost. Empty when no series has tenants. The terminal summary shows some columns.
ChartTable per_tenant_table(const std::vector<Series>& series);

// The evictions of the series' runs between tenants (results.json's preemptions): a row per series,
// tenant evicted from, tenant of the job evicted for, and reason, with the evictions (mean over
// seeds), their share of the series' evictions and the GPU-hours they cost the evicted jobs (n/a
// when a run did not record it); per series the 10 that cost the most GPU-hours (the most
// evictions when a cost is not known), then the rest in one row. Empty when no series evicted a job.
ChartTable preemption_table(const std::vector<Series>& series);

// Per node type of a cluster of several, a row per series whose first run has them: the training
// jobs the type paced, the GPU-hours finished jobs spent on its nodes and their mean samples/s
// ("-" without any); when some series ran LLM jobs, those of the jobs and their mean tokens/s
// (never averaged with samples/s). Empty when no series' cluster has several node types.
ChartTable node_type_table(const std::vector<Series>& series);

// A warning per run of another scenario than the first (name, mode or job count differ): its
// changes mix the scenario's with the policy's.
std::vector<std::string> comparison_warnings(const std::vector<LabelledResults>& inputs);

// The scenario's seeds in words: "1 seed (7)", "3 seeds (1..3)".
std::string seeds_text(const ScenarioInfo& scenario);
// "2 nodes, 16 GPUs, 1 job": the scenario's size.
std::string size_text(const ScenarioInfo& scenario);

// Helpers shared by the renderers and tested on their own.
std::string scheduler_colour(const std::string& scheduler);
// The unit of a started job's throughput: "tokens/s" when it ran as an LLM job (its record's
// step, also when read back from disk), else JobSpec::throughput_unit.
inline std::string throughput_unit(const JobSpec& job, const JobRecord& r) {
  return r.llm ? std::string("tokens/s") : job.throughput_unit();
}
// At most `max_points` of `points`, evenly spaced by index, first and last included.
std::vector<Point> downsample(const std::vector<Point>& points, size_t max_points);
// The empirical CDF of `values`: (value, share of values <= it), at most `max_points` points,
// the smallest and the largest value included.
std::vector<Point> cdf_points(std::vector<double> values, size_t max_points);

}  // namespace topsim
