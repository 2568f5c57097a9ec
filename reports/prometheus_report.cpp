// metrics.prom: every metric of every series as Prometheus text exposition (version 0.0.4),
// valid for `promtool check metrics`. One gauge family per metric base name, `topsim_` prefix,
// base units (seconds, bytes per second, ratios); labels: run, scenario, scheduler, policy (the
// share policy that placed the run's GPU shares, "none" without one) and stat (mean, p95,
// final, ...; absent for plain counts). Values are the mean over seeds.
#include <fmt/format.h>

#include "reports/escape.h"
#include "reports/report_files.h"
#include "sim/schedulers/registry.h"

namespace topsim {
namespace {

struct PromName {
  const char* metric;  // base name in the results model
  const char* name;    // Prometheus family name
  double scale;        // value multiplier to the base unit
};
constexpr PromName kNames[] = {
    {"jobs", "topsim_jobs", 1},
    {"placed", "topsim_placed_jobs", 1},
    {"finished", "topsim_finished_jobs", 1},
    {"rejected", "topsim_rejected_jobs", 1},
    {"failed", "topsim_failed_jobs", 1},
    {"failed_no_gpu_room", "topsim_failed_no_gpu_room_jobs", 1},
    {"stuck", "topsim_stuck_jobs", 1},
    {"never_placed", "topsim_never_placed_jobs", 1},
    {"share_jobs", "topsim_share_jobs", 1},
    {"wait_s", "topsim_wait_seconds", 1},
    {"jct_s", "topsim_job_completion_seconds", 1},
    {"share_wait_s", "topsim_share_wait_seconds", 1},
    {"images_per_sec", "topsim_images_per_second", 1},
    {"llm_mfu", "topsim_llm_mfu_ratio", 1},
    {"ring_gbps", "topsim_ring_bandwidth_bytes_per_second", 1e9},
    {"makespan_s", "topsim_makespan_seconds", 1},
    {"gpu_utilisation", "topsim_gpu_utilisation_ratio", 1},
    {"held_idle_gpu_hours", "topsim_held_idle_gpu_seconds", 3600},
    {"cross_numa_ratio", "topsim_cross_numa_ratio", 1},
    {"topology_success_rate", "topsim_topology_success_ratio", 1},
    {"fallbacks", "topsim_fallback_placements", 1},
    {"placement_efficiency", "topsim_placement_efficiency_ratio", 1},
    {"allocated_gpus", "topsim_allocated_gpus", 1},
    {"gpu_alloc_ratio", "topsim_gpu_allocation_ratio", 1},
    {"fragmentation_gpus", "topsim_fragmented_gpus", 1},
    {"fragmentation_rate", "topsim_fragmentation_ratio", 1},
    {"pending_jobs", "topsim_pending_jobs", 1},
    {"running_jobs", "topsim_running_jobs", 1},
    {"unusable_gpus", "topsim_unusable_gpus", 1},
    {"arrived_load", "topsim_arrived_load_ratio", 1},
    {"events", "topsim_events", 1},
};

std::string value_text(double value) { return format_data(value, "NaN"); }

// HELP text: backslash and line feed escaped.
std::string help_text(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
  return out;
}

std::string policy_of(const Series& s) {
  if (!s.result->share_scheduler.empty()) return s.result->share_scheduler;
  const SchedulerInfo* info = find_scheduler(s.scheduler);
  return info && (info->handles & kHandlesShares) ? s.scheduler : "none";
}

std::string series_labels(const ReportModel& m, const Series& s) {
  const ScenarioInfo& sc = m.runs[s.label_index]->results->scenario;
  return "run=\"" + prometheus_label(s.label) + "\",scenario=\"" + prometheus_label(sc.name) + "\",scheduler=\"" +
         prometheus_label(s.scheduler) + "\",policy=\"" + prometheus_label(policy_of(s)) + "\"";
}

std::string family(const ReportModel& m, const PromName& p) {
  std::string samples, description;
  for (const MetricInfo& info : metric_catalog()) {
    if (info.name != p.metric) continue;
    if (description.empty()) description = std::string(info.description) + " (" + std::string(info.unit) + " in the results)";
    for (const std::string& full : full_metric_names(info)) {
      const size_t dot = full.find('.');
      const std::string stat = dot == std::string::npos ? "" : full.substr(dot + 1);
      for (const Series& s : m.series)
        if (const MetricSummary* metric = s.result->metric(full))
          samples += fmt::format("{}{{{}{}}} {}\n", p.name, series_labels(m, s), stat.empty() ? "" : ",stat=\"" + stat + "\"",
                                 value_text(rounded_micro(metric->over_seeds.mean) * p.scale));
    }
  }
  if (samples.empty()) return "";
  return fmt::format("# HELP {} {}\n# TYPE {} gauge\n{}", p.name, help_text(description), p.name, samples);
}

}  // namespace

std::string render_prometheus(const ReportModel& m) {
  std::string out;
  for (const PromName& p : kNames) out += family(m, p);
  return out;
}

}  // namespace topsim
