#include "reports/text_report.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "reports/report_model.h"
#include "reports/text_table.h"
#include "util/number_format.h"
#include "util/one_line.h"
#include "util/text.h"

namespace topsim {
namespace {

constexpr size_t kMaxColumns = 4;  // schedulers side by side; more are listed one per row
// A table of a name and figures: the name left-aligned, every figure right-aligned.
const TextTableLayout kFigures{"", 1, 2, false};

// A share as a percentage with one decimal ("21.9%").
std::string percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

// The mean over seeds of a metric (0 when the scheduler's runs do not have it).
double mean(const SchedulerResult& s, std::string_view name) {
  const MetricSummary* m = s.metric(name);
  return m ? m->over_seeds.mean : 0;
}
bool has(const SchedulerResult& s, std::string_view name) { return s.metric(name) != nullptr; }
// A job count (a mean over seeds: "2", or "1.5").
// A count's mean over seeds: "82,247", or "12.5" where the seeds differ.
std::string count(const SchedulerResult& s, std::string_view name) { return format_number(mean(s, name)); }
// Jobs neither finished, rejected, stuck nor never placed: running when the run ended.
double unaccounted(const SchedulerResult& s) {
  return std::max(0.0, mean(s, "jobs") - mean(s, "finished") - mean(s, "rejected") - mean(s, "stuck") - mean(s, "never_placed"));
}

// "mean / p95" of a distribution over finished jobs, "n/a" when a run finished none (of its kind).
std::string pair(const SchedulerResult& s, std::string_view first, std::string_view second) {
  if (!has(s, first) || !has(s, second)) return "n/a";
  return format_fixed(mean(s, first), 1) + " / " + format_fixed(mean(s, second), 1);
}
// One figure of such a distribution, "n/a" likewise.
std::string seconds(const SchedulerResult& s, std::string_view name) {
  return has(s, name) ? format_fixed(mean(s, name), 1) : std::string("n/a");
}

// Which jobs the distributions cover, said when some jobs never ran.
std::string subset_note(const ResultSet& r) {
  std::string out;
  for (const SchedulerResult& s : r.schedulers)
    if (const double ran = mean(s, "finished"); ran < mean(s, "jobs"))
      out += fmt::format("{}{} {} of {}", out.empty() ? "" : ", ", s.name, format_number(ran), count(s, "jobs"));
  if (out.empty()) return "";
  return "wait and JCT are over finished jobs only (" + out +
         ");\nthroughput, placement efficiency and cross-NUMA over started jobs; n/a: no job to measure\n";
}

std::string pm(const SchedulerResult& s, std::string_view name, int decimals) {
  const MetricSummary* m = s.metric(name);
  if (!m) return "n/a";
  return fmt::format("{:.{}f} ± {:.{}f}", m->over_seeds.mean, decimals, m->over_seeds.sd, decimals);
}

// Schedulers side by side: a label column and one column per scheduler under its name, each as
// wide as its widest cell, so no figure runs into its neighbour; headings between the parts.
class SideBySide {
 public:
  explicit SideBySide(const ResultSet& results) : results_(results) {
    TextRow names{""};
    for (const SchedulerResult& s : results.schedulers) names.push_back(s.name);
    rows_.push_back(std::move(names));
  }
  template <class Cell>
  void row(std::string label, Cell cell) {
    TextRow line{std::move(label)};
    for (const SchedulerResult& s : results_.schedulers) line.push_back(cell(s));
    rows_.push_back(std::move(line));
  }
  void heading(std::string text) { rows_.push_back({std::move(text)}); }
  std::string text() const { return text_table(rows_, {"", 1, 2, false, true}); }

 private:
  const ResultSet& results_;
  std::vector<TextRow> rows_;
};

std::string header(const ResultSet& results) {
  const ScenarioInfo& sc = results.scenario;
  const std::string seeds = seeds_text(sc) + (sc.seeds > 1 ? fmt::format(", means over {} runs", sc.seeds) : "");
  std::string out = fmt::format("scenario {}: {} ({}), {}\n", one_line(sc.name), size_text(sc), one_line(sc.workload), seeds);
  if (!sc.fabric.empty()) out += fmt::format("fabric: {}\n", one_line(sc.fabric));
  if (!sc.failures.empty()) out += fmt::format("failures: {}\n", one_line(sc.failures));
  if (!sc.model_mix.empty()) out += fmt::format("model mix: {}\n", one_line(sc.model_mix));
  for (const SchedulerResult& s : results.schedulers)
    if (!s.share_scheduler.empty())
      return out + fmt::format("GPU shares placed by {} under schedulers that do not place them\n", s.share_scheduler);
  return out;
}

// "1d 02:03" from one day on, else "02:03:04".
std::string clock(int64_t ms) {
  const int64_t total_s = ms / 1000, days = total_s / 86400, h = total_s / 3600 % 24, m = total_s / 60 % 60, sec = total_s % 60;
  if (days > 0) return fmt::format("{}d {:02}:{:02}", days, h, m);
  return fmt::format("{:02}:{:02}:{:02}", h, m, sec);
}

// With quota: what preemption cost and what was borrowed; with tenants, how evenly they were
// slowed (each tenant's figures: tenant_table).
void tenant_rows(const ResultSet& r, SideBySide& table) {
  if (tenant_names(r.schedulers.front().runs.front()).empty()) return;
  if (has(r.schedulers.front(), "evictions")) {
    table.row("preempted: evictions / GPU-h lost", [](const SchedulerResult& s) {
      return fmt::format("{} / {}", format_fixed(mean(s, "evictions"), 0), format_fixed(mean(s, "preempted_gpu_hours"), 2));
    });
    table.row("borrowed above nominal (GPU-h)",
              [](const SchedulerResult& s) { return format_fixed(mean(s, "borrowed_gpu_hours"), 2); });
  }
  table.row("tenant fairness (Jain, 1 = even)", [](const SchedulerResult& s) {
    return has(s, "tenant_fairness") ? fmt::format("{:.3f}", mean(s, "tenant_fairness")) : std::string("n/a");
  });
}

// The schedulers of one result set as report_model.h's series, for its tables.
std::vector<Series> scheduler_series(const ResultSet& r) {
  std::vector<Series> series;
  for (const SchedulerResult& s : r.schedulers) {
    Series& one = series.emplace_back();
    one.name = s.name;
    one.result = &s;
  }
  return series;
}

// Per tenant, a row per scheduler (report_model.h's per_tenant_table, the columns that fit a
// terminal); evictions only when some run evicted a job. The tenant's name on its first row only.
std::string tenant_table(const ResultSet& r) {
  const ChartTable full = per_tenant_table(scheduler_series(r));
  if (full.rows.empty()) return "";
  const bool evicted = std::any_of(r.schedulers.begin(), r.schedulers.end(),
                                   [](const SchedulerResult& s) { return has(s, "evictions") && mean(s, "evictions") > 0; });
  // (column of the full table, its heading here); the tenant's nominal GPUs go beside its name.
  std::vector<std::pair<std::string, std::string>> shown = {
      {"tenant", "tenant"},           {"scheduler", "scheduler"},     {"jobs", "jobs"},           {"finished", "finished"},
      {"p95 wait (s)", "p95 wait s"}, {"mean JCT (s)", "mean JCT s"}, {"GPU-h run", "GPU-h run"}, {"share of GPU-h", "share"}};
  if (evicted) shown.push_back({"evictions", "evictions"});
  const auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(full.header.begin(), full.header.end(), name) - full.header.begin());
  };
  const size_t nominal = column("nominal GPUs");  // full.header.size(): none
  std::vector<TextRow> rows{{}};
  for (const auto& [name, heading] : shown)
    rows[0].push_back(heading + (name == "tenant" && nominal < full.header.size() ? " (nominal GPUs)" : ""));
  for (size_t i = 0; i < full.rows.size(); ++i) {
    const std::vector<std::string>& cells = full.rows[i];
    TextRow& row = rows.emplace_back();
    for (const auto& [name, heading] : shown) row.push_back(cells[column(name)]);
    row[0] = one_line(row[0]) + (nominal < cells.size() && cells[nominal] != "none" ? " (" + cells[nominal] + ")" : "");
    if (i > 0 && cells[0] == full.rows[i - 1][0]) row[0].clear();  // the tenant on its first row only
  }
  return "\nper tenant (means over seeds; waits and JCT of finished jobs; share: of the GPU-hours all tenants ran):\n" +
         text_table(rows, {"  ", 2, 2, false});
}

// When a run evicted jobs: per scheduler the three pairs of tenants (evicted from, evicted for,
// reason) whose evictions cost the most GPU time, from report_model.h's preemption_table
// (summary.md lists ten).
std::string preemption_pairs(const ResultSet& r) {
  constexpr size_t kShown = 3;
  const ChartTable full = preemption_table(scheduler_series(r));
  if (full.rows.empty()) return "";
  std::vector<TextRow> rows{{"scheduler", "evicted from", "for a job of", "reason", "evictions", "share", "GPU-h lost"}};
  size_t of_scheduler = 0;
  for (size_t i = 0; i < full.rows.size(); ++i) {
    const std::vector<std::string>& cells = full.rows[i];
    const bool first = i == 0 || cells[0] != full.rows[i - 1][0];
    of_scheduler = first ? 1 : of_scheduler + 1;
    if (of_scheduler > kShown) continue;
    rows.push_back({first ? one_line(cells[0]) : "", cells[1], cells[2], cells[3], cells[4], cells[5], cells[6]});
  }
  return "\ncostliest preemptions between tenants (means over seeds; summary.md lists ten per scheduler):\n" +
         text_table(rows, {"  ", 4, 2, false});
}

// With failures (sim/failures.h): the nodes that failed, the jobs they interrupted and what that
// cost, where the jobs' GPU time went, and the goodput.
void failure_rows(const ResultSet& r, SideBySide& table) {
  if (!has(r.schedulers.front(), "node_failures")) return;
  table.row("node failures: all (gpu/hbm/network/host/software)", [](const SchedulerResult& s) {
    return fmt::format("{} ({}/{}/{}/{}/{})", format_fixed(mean(s, "node_failures"), 0),
                       format_fixed(mean(s, "node_failures.gpu"), 0), format_fixed(mean(s, "node_failures.hbm"), 0),
                       format_fixed(mean(s, "node_failures.network"), 0), format_fixed(mean(s, "node_failures.host"), 0),
                       format_fixed(mean(s, "node_failures.software"), 0));
  });
  table.row("jobs interrupted / GPU-h lost to them", [](const SchedulerResult& s) {
    return fmt::format("{} / {}", format_fixed(mean(s, "interruptions"), 0), format_fixed(mean(s, "failure_lost_gpu_hours"), 2));
  });
  table.row("GPU-h restarting / checkpointing / waiting", [](const SchedulerResult& s) {
    return fmt::format("{} / {} / {}", format_fixed(mean(s, "restart_gpu_hours"), 2),
                       format_fixed(mean(s, "checkpoint_gpu_hours"), 2), format_fixed(mean(s, "requeue_gpu_hours"), 2));
  });
  table.row("goodput / mean ETTR (finished training)", [](const SchedulerResult& s) {
    if (!has(s, "goodput") || !has(s, "ettr.mean")) return std::string("n/a");  // no training job finished
    return fmt::format("{:.1f}% / {:.1f}%", 100 * mean(s, "goodput"), 100 * mean(s, "ettr.mean"));
  });
  table.row("GPUs down, mean / peak", [](const SchedulerResult& s) {
    return fmt::format("{} / {}", format_fixed(mean(s, "gpus_down.mean"), 1), format_fixed(mean(s, "gpus_down.max"), 0));
  });
  if (has(r.schedulers.front(), "checkpoint_optimum_s"))
    table.row("largest interrupted job: MTBF / Daly interval (min)", [](const SchedulerResult& s) {
      if (!has(s, "checkpoint_optimum_s")) return std::string("n/a");
      return fmt::format("{} / {}", format_fixed(mean(s, "interrupted_job_mtbf_s") / 60, 1),
                         format_fixed(mean(s, "checkpoint_optimum_s") / 60, 1));
    });
  if (has(r.schedulers.front(), "elastic_resizes"))
    table.row("elastic jobs: shrinks and growths",
              [](const SchedulerResult& s) { return format_fixed(mean(s, "elastic_resizes"), 0); });
  if (has(r.schedulers.front(), "spare_swaps"))
    table.row("spare GPUs / failures a spare took", [](const SchedulerResult& s) {
      return fmt::format("{} / {}", format_fixed(mean(s, "spare_gpus"), 0), format_fixed(mean(s, "spare_swaps"), 0));
    });
}

std::string replay_columns(const ResultSet& r) {
  SideBySide table(r);
  table.row("jobs submitted", [](const SchedulerResult& s) { return count(s, "jobs"); });
  table.row("  finished / rejected",
            [](const SchedulerResult& s) { return count(s, "finished") + " / " + count(s, "rejected"); });
  table.row("  stuck / never placed",
            [](const SchedulerResult& s) { return count(s, "stuck") + " / " + count(s, "never_placed"); });
  if (std::any_of(r.schedulers.begin(), r.schedulers.end(), [](const SchedulerResult& s) { return unaccounted(s) > 0; }))
    table.row("  still running at the end", [](const SchedulerResult& s) { return format_number(unaccounted(s)); });
  table.row("wait of finished, mean / p95 (s)", [](const SchedulerResult& s) { return pair(s, "wait_s.mean", "wait_s.p95"); });
  table.row("JCT mean / p50 (s)", [](const SchedulerResult& s) { return pair(s, "jct_s.mean", "jct_s.p50"); });
  table.row("JCT p95 / p99 (s)", [](const SchedulerResult& s) { return pair(s, "jct_s.p95", "jct_s.p99"); });
  table.row("makespan (s)", [](const SchedulerResult& s) { return format_fixed(mean(s, "makespan_s"), 1); });
  table.row("GPU utilisation", [](const SchedulerResult& s) { return fmt::format("{:.1f}%", 100 * mean(s, "gpu_utilisation")); });
  table.row("placement efficiency (started)", [](const SchedulerResult& s) {
    return has(s, "placement_efficiency") ? fmt::format("{:.1f}%", 100 * mean(s, "placement_efficiency")) : std::string("n/a");
  });
  table.row("cross-NUMA ratio", [](const SchedulerResult& s) {
    return has(s, "cross_numa_ratio") ? fmt::format("{:.3f}", mean(s, "cross_numa_ratio")) : std::string("n/a");
  });
  table.row("topology success rate / fallbacks", [](const SchedulerResult& s) {
    if (!has(s, "topology_success_rate")) return std::string("n/a");
    return fmt::format("{} / {}", format_fixed(mean(s, "topology_success_rate"), 3), format_fixed(mean(s, "fallbacks"), 0));
  });
  table.row("GPU-hours held by partial jobs",
            [](const SchedulerResult& s) { return format_fixed(mean(s, "held_idle_gpu_hours"), 2); });
  if (std::any_of(r.schedulers.begin(), r.schedulers.end(), [](const SchedulerResult& s) { return has(s, "contended_jobs"); }))
    table.row("slowed by shared uplinks: jobs / GPU-h", [](const SchedulerResult& s) {
      if (!has(s, "contended_jobs")) return std::string("n/a");
      return fmt::format("{} / {}", format_fixed(mean(s, "contended_jobs"), 0), format_fixed(mean(s, "contended_gpu_hours"), 2));
    });
  if (std::any_of(r.schedulers.begin(), r.schedulers.end(), [](const SchedulerResult& s) { return mean(s, "share_jobs") > 0; }))
    table.row("shared-GPU jobs: wait mean / p95 (s)",
              [](const SchedulerResult& s) { return pair(s, "share_wait_s.mean", "share_wait_s.p95"); });
  tenant_rows(r, table);
  failure_rows(r, table);
  table.heading("time-weighted means:");
  table.row("  GPUs allocated", [&](const SchedulerResult& s) {
    return fmt::format("{} ({})", format_fixed(mean(s, "allocated_gpus.mean"), 2), percent(mean(s, "gpu_alloc_ratio.mean")));
  });
  table.row("  fragmentation F, GPUs (rate)", [](const SchedulerResult& s) {
    return fmt::format("{} ({})", format_fixed(mean(s, "fragmentation_gpus.mean"), 2),
                       percent(mean(s, "fragmentation_rate.mean")));
  });
  table.row("  jobs pending mean / peak", [](const SchedulerResult& s) {
    return fmt::format("{} / {}", format_fixed(mean(s, "pending_jobs.mean"), 2), format_fixed(mean(s, "pending_jobs.max"), 0));
  });
  return table.text() + subset_note(r);
}

// One row per scheduler, for comparisons of many.
std::string replay_rows(const ResultSet& r) {
  std::vector<TextRow> rows{{"scheduler", "fin/rej/stuck/never", "mean wait s", "p95 wait s", "mean JCT s", "peak pend",
                             "mean alloc", "peak alloc", "mean frag"}};
  for (const SchedulerResult& s : r.schedulers)
    rows.push_back(
        {s.name,
         fmt::format("{}/{}/{}/{}", count(s, "finished"), count(s, "rejected"), count(s, "stuck"), count(s, "never_placed")),
         seconds(s, "wait_s.mean"), seconds(s, "wait_s.p95"), seconds(s, "jct_s.mean"),
         format_fixed(mean(s, "pending_jobs.max"), 0), percent(mean(s, "gpu_alloc_ratio.mean")),
         percent(mean(s, "gpu_alloc_ratio.max")), percent(mean(s, "fragmentation_rate.mean"))});
  return text_table(rows, kFigures) + subset_note(r) +
         "(fin/rej/stuck/never: jobs finished, rejected, stuck, never placed; peak pend: most jobs waiting at once; alloc: GPU "
         "share allocated; frag: FGD fragmentation rate; means "
         "time-weighted)\n";
}

// The first run's records of each scheduler, by id. Error: records on disk could not be read back.
using FirstRecords = std::map<const SchedulerResult*, std::vector<JobRecord>>;
Expected<FirstRecords> first_records(const ResultSet& r) {
  FirstRecords records;
  for (const SchedulerResult& s : r.schedulers) {
    std::vector<JobRecord>& kept = records[&s];
    const Status read = for_each_job(s.runs.front(), [&](const JobSpec& job, const JobRecord& record) {
      if (job.id >= kept.size()) kept.resize(job.id + 1);
      kept[job.id] = record;
    });
    if (!read) return read.error();
  }
  return records;
}

std::string job_cell(const JobSpec& job, const JobRecord& r) {
  if (r.start_ms < 0) return std::string(enum_name(r.state));
  if (job.is_share())
    return job.gpu_core_percent > 0 ? fmt::format("share {} GiB + {}%", job.gpu_mem_gib, job.gpu_core_percent)
                                    : fmt::format("share {} GiB", job.gpu_mem_gib);
  if (!job.is_training()) return fmt::format("node {}", r.pods.front().node);
  return fmt::format("{} {}", format_fixed(r.samples_per_sec, 2), throughput_unit(job, r));
}

std::string placement_cell(const JobSpec& job, const JobRecord& r) {
  if (r.start_ms < 0) return "";
  if (!job.is_training())
    return r.pods.front().gpus.empty() ? std::string()
                                       : fmt::format("node {} GPU {}", r.pods.front().node, r.pods.front().gpus.front());
  std::map<int, size_t> per_node;
  for (const PodPlacement& pod : r.pods) per_node[pod.node] += pod.gpus.size();
  // Runs of more than two equal counts are written once with their length: "8x2048", "8x15+4".
  std::vector<size_t> counts;
  for (const auto& [node, gpus] : per_node) counts.push_back(gpus);
  std::string split;
  for (size_t i = 0; i < counts.size();) {
    size_t run = 1;
    while (i + run < counts.size() && counts[i + run] == counts[i]) ++run;
    const std::string one = std::to_string(counts[i]);
    for (size_t k = 0; k < (run > 2 ? 1 : run); ++k)
      split += (split.empty() ? "" : "+") + (run > 2 ? one + "x" + std::to_string(run) : one);
    i += run;
  }
  return fmt::format("{} {}", enum_name(r.comm.transport), split);
}

std::string job_lines(const ResultSet& r, const FirstRecords& records) {
  const Workload& workload = *r.schedulers.front().runs.front().workload;
  std::string out = "\nper job (throughput, transport, GPUs per node; 8x4: 8 on each of 4 nodes):\n";
  using Cell = std::string (*)(const JobSpec&, const JobRecord&);
  const auto cell = [&](Cell render, const SchedulerResult& s, const JobSpec& job) {
    const std::vector<JobRecord>& kept = records.at(&s);
    return job.id < kept.size() ? render(job, kept[job.id]) : std::string();
  };
  SideBySide table(r);
  JobCursor cursor(workload);  // a few jobs: this is only drawn for small workloads
  while (const JobSpec* job = cursor.next()) {
    table.row(one_line(workload.job_name(job->id)), [&](const SchedulerResult& s) { return cell(job_cell, s, *job); });
    table.row("", [&](const SchedulerResult& s) { return cell(placement_cell, s, *job); });
  }
  return out + table.text();
}

// One scheduler's four timeline cells at `time_ms`: its last sample then (blank after its run
// ended).
void timeline_cells(TextRow& row, const SchedulerResult& s, int64_t time_ms, int gpus) {
  const std::vector<ClusterSample>& samples = s.runs.front().samples;
  const auto after =
      std::upper_bound(samples.begin(), samples.end(), time_ms, [](int64_t t, const ClusterSample& x) { return t < x.time_ms; });
  if (after == samples.begin() || time_ms > samples.back().time_ms) {
    row.insert(row.end(), {"", "", "", after == samples.begin() ? "n/a" : "(finished)"});
    return;
  }
  const ClusterSample& x = *std::prev(after);
  const double share = gpus ? 100 * x.allocated_gpus / gpus : 0.0;
  row.insert(row.end(), {std::to_string(x.running), std::to_string(x.pending), fmt::format("{:.1f}%", share),
                         fmt::format("{} ({:.0f}%)", format_fixed(x.fragmentation_gpus, 2), 100 * x.fragmentation_rate)});
}

// The sampled state side by side, at up to `max_rows` times evenly spread over the samples of the
// run that lasts longest (first and last sample included). Each run is read at the row's time:
// runs share the sampling grid (same workload and period) unless an automatic period doubled in
// a run that outlasted the expected span, which then keeps every other sample.
std::string timeline(const ResultSet& r, size_t max_rows) {
  const auto last_ms = [](const SchedulerResult& s) {
    const auto& samples = s.runs.front().samples;
    return samples.empty() ? INT64_MIN : samples.back().time_ms;
  };
  const SchedulerResult* longest = &r.schedulers.front();
  int64_t shortest_period = INT64_MAX, longest_period = 0;
  for (const SchedulerResult& s : r.schedulers) {
    if (last_ms(s) > last_ms(*longest)) longest = &s;
    shortest_period = std::min(shortest_period, s.runs.front().sample_every_ms);
    longest_period = std::max(longest_period, s.runs.front().sample_every_ms);
  }
  const std::vector<ClusterSample>& grid = longest->runs.front().samples;
  if (grid.empty() || max_rows == 0) return "";
  const size_t count = std::min(max_rows, grid.size());
  std::vector<TextRow> rows{{""}, {"time"}};
  for (const SchedulerResult& s : r.schedulers) {
    rows[0].insert(rows[0].end(), {"", "", "", s.name});  // over its last column, right-aligned like the figures
    rows[1].insert(rows[1].end(), {"running", "pending", "alloc", "fragmentation"});
  }
  for (size_t i = 0; i < count; ++i) {
    const int64_t time_ms = grid[count == 1 ? 0 : i * (grid.size() - 1) / (count - 1)].time_ms;
    rows.push_back({clock(time_ms)});
    for (const SchedulerResult& s : r.schedulers) timeline_cells(rows.back(), s, time_ms, r.scenario.gpus);
  }
  const std::string every =
      shortest_period == longest_period ? clock(shortest_period) : clock(shortest_period) + " to " + clock(longest_period);
  return fmt::format("\nover time (every {}; {} of {} samples, all in results.json):\n", every,
                     format_count(static_cast<long long>(count)), format_count(static_cast<long long>(grid.size()))) +
         text_table(rows, {"  ", 0, 2, false});
}

// Per node type of a mixed cluster, each scheduler's first run: where its training jobs ran
// (report_model.h's node_type_table).
std::string node_type_table(const ResultSet& r) {
  std::vector<Series> series;
  for (const SchedulerResult& s : r.schedulers) series.push_back({s.name, "", s.name, "", 0, &s});
  const ChartTable table = topsim::node_type_table(series);
  if (table.rows.empty()) return "";
  std::vector<TextRow> rows{table.header};
  rows.insert(rows.end(), table.rows.begin(), table.rows.end());
  return "\n" + text_table(rows, {"", 2, 2, false});
}

// Per LLM, each scheduler's first run: its jobs' mean step and where the time goes.
std::string llm_step_table(const ResultSet& r) {
  bool any = false;
  for (const SchedulerResult& s : r.schedulers) any = any || !s.runs.front().llm_steps.empty();
  if (!any) return "";
  std::vector<TextRow> rows{{"scheduler", "model", "jobs", "tokens/s/GPU", "MFU", "step s", "where the step goes"}};
  for (const SchedulerResult& s : r.schedulers)
    for (const LlmModelStep& m : s.runs.front().llm_steps) {
      std::string parts;
      for (const auto& [part, seconds] : m.parts())
        if (seconds > 0 && m.step_s > 0)
          parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", part, format_share_percent(100 * seconds / m.step_s));
      // Fixed decimals per column, so the figures of a column line up on their decimal point.
      rows.push_back({s.name, m.model, format_count(m.jobs), format_fixed(m.tokens_per_sec_per_gpu, 1), percent(m.mfu),
                      format_fixed(m.step_s, 2), parts});
    }
  return "\nLLM jobs, mean step (first seed)\n" + text_table(rows, {"  ", 2});
}

std::string render_replay(const ResultSet& r, const TextOptions& options) {
  std::string out = header(r) + "\n";
  if (r.schedulers.size() > kMaxColumns)
    return out + replay_rows(r) + tenant_table(r) + preemption_pairs(r) + node_type_table(r) + llm_step_table(r);
  out += replay_columns(r) + tenant_table(r) + preemption_pairs(r) + node_type_table(r) + llm_step_table(r);
  const RunResult& first = r.schedulers.front().runs.front();
  if (has_job_records(first) && first.workload->size() <= options.max_job_lines) {
    auto records = first_records(r);
    if (records) return out + job_lines(r, *records);
    out += "\nper-job records: " + records.error().message + "\n";
  }
  return out + timeline(r, options.max_time_rows);
}

// GPU allocation ratio at 100% and 130% arrived load, when every scheduler's runs reached both.
std::string at_load_table(const ResultSet& r) {
  for (const SchedulerResult& s : r.schedulers)
    if (!s.metric("gpu_alloc_ratio.at_100") || !s.metric("gpu_alloc_ratio.at_130")) return "";
  std::vector<TextRow> rows{{"scheduler", "alloc at 100% load", "alloc at 130% load"}};
  for (const SchedulerResult& s : r.schedulers)
    rows.push_back({s.name, pm(s, "gpu_alloc_ratio.at_100", 4), pm(s, "gpu_alloc_ratio.at_130", 4)});
  std::string out = "\n" + text_table(rows, kFigures);
  out += r.scenario.protocol.empty()
             ? "GPU alloc ratio when the arrived load first reached 100% / 130% of capacity\n"
             : "GPU alloc ratio at 100% / 130% arrived load: mean over the arrivals whose load rounds to it (the artifact's "
               "analysis)\n";
  return out;
}

std::string render_fill(const ResultSet& r) {
  const ScenarioInfo& sc = r.scenario;
  std::string out =
      fmt::format("fill experiment {}{}\n", one_line(sc.name), sc.description.empty() ? "" : ": " + one_line(sc.description));
  out += fmt::format("  cluster: {}, {}\n", counted(sc.nodes, "node"), counted(sc.gpus, "GPU"));
  out += fmt::format("  pods: {}; target workload: {} specs covering {:.0f}% of pods\n", one_line(sc.workload),
                     r.schedulers.front().runs.front().target_specs, 100 * sc.fragmentation_coverage);
  const std::string arrivals =
      sc.protocol.empty()
          ? fmt::format("pods drawn with replacement until {:.0f}% of GPU capacity has arrived", 100 * sc.target_load)
          : fmt::format(
                "{}: the pod list shuffled, then topped up or trimmed to {:.0f}% of GPU capacity; the artifact's "
                "integer scores, ties in a seeded node order",
                sc.protocol, 100 * sc.target_load);
  out += fmt::format("  protocol: {}, no departures, {}\n\n", arrivals, seeds_text(sc));
  std::vector<TextRow> rows{{"scheduler", "GPU alloc ratio", "frag rate", "frag GPUs", "failed pods", "no GPU room"}};
  for (const SchedulerResult& s : r.schedulers)
    rows.push_back({s.name, pm(s, "gpu_alloc_ratio.final", 4), pm(s, "fragmentation_rate.final", 4),
                    pm(s, "fragmentation_gpus.final", 1), pm(s, "failed", 1), pm(s, "failed_no_gpu_room", 1)});
  out += text_table(rows, kFigures);
  out +=
      "\nfinal values after the last arrival, mean ± sample sd over seeds; GPU alloc ratio = allocated GPU share / "
      "capacity; frag = FGD fragmentation (USENIX ATC '23), rate = frag / unallocated GPU share; no GPU room = failed pods "
      "for which no node serving them had room on its GPUs (the others had GPU room only on nodes short of CPU or host "
      "memory)\n";
  out += at_load_table(r);
  for (const std::string& reason : r.schedulers.front().runs.front().rejections)
    out += "  rejected at submission: " + reason + "\n";
  return out;
}

}  // namespace

std::string render_text(const ResultSet& results, const TextOptions& options) {
  if (results.schedulers.empty() || results.schedulers.front().runs.empty()) return "no runs\n";
  return results.scenario.mode == "fill" ? render_fill(results) : render_replay(results, options);
}

}  // namespace topsim
