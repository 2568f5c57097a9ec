#include "reports/run_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/model_catalog.h"

namespace topsim {
namespace {

using nlohmann::ordered_json;

double round_to(double value, double unit) { return std::round(value / unit) * unit; }
double seconds(int64_t ms) { return round_to(ms / 1000.0, 0.001); }

std::string unit_of(const JobSpec& job) {
  const DnnModel* model = model_at(job.model);
  return model ? std::string(sample_unit_name(model->unit)) : "samples";
}

ordered_json distribution_json(const Distribution& d) {
  return {{"mean", round_to(d.mean, 0.001)}, {"p50", round_to(d.p50, 0.001)}, {"p95", round_to(d.p95, 0.001)},
          {"p99", round_to(d.p99, 0.001)}, {"count", d.count}};
}

ordered_json summary_json(const RunSummary& s) {
  return {{"jobs", s.jobs},
          {"finished", s.finished},
          {"rejected", s.rejected},
          {"stuck", s.stuck},
          {"never_placed", s.never_placed},
          {"wait_s", distribution_json(s.wait_s)},
          {"jct_s", distribution_json(s.jct_s)},
          {"makespan_s", round_to(s.makespan_s, 0.001)},
          {"gpu_utilisation", round_to(s.gpu_utilisation, 1e-6)},
          {"held_idle_gpu_hours", round_to(s.held_idle_gpu_hours, 0.001)},
          {"cross_numa_ratio", round_to(s.cross_numa_ratio, 1e-6)},
          {"topology_success_rate", s.topology_success_rate < 0 ? ordered_json() : ordered_json(round_to(s.topology_success_rate, 1e-6))},
          {"fallbacks", s.fallbacks},
          {"placement_efficiency", round_to(s.placement_efficiency, 1e-6)},
          {"events", s.events},
          {"share_jobs", s.share_jobs},
          {"share_wait_s", distribution_json(s.share_wait_s)},
          {"time_averages", {{"allocated_gpus", round_to(s.averages.allocated_gpus, 1e-4)},
                             {"fragmentation_gpus", round_to(s.averages.fragmentation_gpus, 1e-4)},
                             {"fragmentation_rate", round_to(s.averages.fragmentation_rate, 1e-6)},
                             {"pending_jobs", round_to(s.averages.pending, 1e-4)},
                             {"running_jobs", round_to(s.averages.running, 1e-4)},
                             {"peak_pending_jobs", s.averages.peak_pending}}}};
}

ordered_json samples_json(const SimResult& result) {
  ordered_json samples = ordered_json::array();
  for (const SimSample& x : result.samples)
    samples.push_back({{"time_s", seconds(x.time_ms)},
                       {"running", x.running},
                       {"pending", x.pending},
                       {"allocated_gpus", round_to(x.allocated_gpus, 1e-3)},
                       {"fragmentation_gpus", round_to(x.fragmentation_gpus, 1e-4)},
                       {"fragmentation_rate", round_to(x.fragmentation_rate, 1e-6)},
                       {"unusable_gpus", round_to(x.unusable_gpus, 1e-3)},
                       {"idle_cards", x.idle_cards}});
  return samples;
}

ordered_json job_json(const Workload& workload, const JobRecord& r, uint32_t id) {
  const JobSpec& job = workload.jobs[id];
  ordered_json pods = ordered_json::array();
  for (const PodPlacement& pod : r.pods) pods.push_back({{"node", pod.node}, {"gpus", pod.gpus}});
  ordered_json j = {{"id", id}, {"name", workload.job_name(id)}, {"state", job_state_name(r.state)}};
  if (job.is_share()) {
    j["gpu_mem_gib"] = job.gpu_mem_gib;
    if (job.gpu_core_percent > 0) j["gpu_core_percent"] = job.gpu_core_percent;
  } else {
    j["workers"] = job.workers;
    j["gpus_per_worker"] = job.gpus_per_worker;
  }
  if (const DnnModel* model = model_at(job.model)) {
    j["model"] = model->name;
    j["framework"] = framework_name(job.framework);
  }
  j["submit_s"] = seconds(r.submit_ms);
  if (r.start_ms >= 0) {
    j["start_s"] = seconds(r.start_ms);
    j["wait_s"] = seconds(r.start_ms - r.submit_ms);
  }
  if (r.finish_ms >= 0) {
    j["finish_s"] = seconds(r.finish_ms);
    j["jct_s"] = seconds(r.finish_ms - r.submit_ms);
  }
  j["pods"] = pods;
  if (r.start_ms >= 0 && !job.is_share()) {
    j["transport"] = std::string(comm_transport_name(r.comm.transport));
    j["ring_bandwidth_gbps"] = round_to(r.comm.bus_bandwidth_gbps, 0.001);
    j["throughput"] = round_to(r.samples_per_sec, 0.01);
    j["ideal_throughput"] = round_to(r.ideal_samples_per_sec, 0.01);
    j["unit"] = unit_of(job) + "/sec";
    j["cross_numa"] = r.cross_numa;
    j["relaxed"] = r.relaxed;
  }
  if (!r.reason.empty()) j["reason"] = r.reason;
  return j;
}

}  // namespace

std::string render_run_json(const Scenario& scenario, const std::vector<SchedulerRun>& runs, const ReportOptions& options) {
  int nodes = 0;
  for (const NodeGroupSpec& g : scenario.cluster.groups) nodes += g.count;
  ordered_json out;
  out["scenario"] = {{"name", scenario.name},
                     {"description", scenario.description},
                     {"seed", scenario.seed},
                     {"workload", scenario.workload.source},
                     {"jobs", scenario.workload.jobs.size()},
                     {"nodes", nodes},
                     {"network", network_transport_name(scenario.cluster.network.transport)}};
  out["results"] = ordered_json::array();
  for (const SchedulerRun& run : runs) {
    ordered_json r = {{"scheduler", scheduler_name(run.result.scheduler)},
                      {"summary", summary_json(run.summary)},
                      {"target_workload_specs", run.result.target_specs},
                      {"sample_every_s", seconds(run.result.sample_every_ms)},
                      {"samples", samples_json(run.result)}};
    if (options.job_details) {
      r["jobs"] = ordered_json::array();
      for (uint32_t id = 0; id < run.result.jobs.size(); ++id) r["jobs"].push_back(job_json(scenario.workload, run.result.jobs[id], id));
    }
    out["results"].push_back(std::move(r));
  }
  return out.dump(2) + "\n";
}

namespace {

template <class F>
std::string row(const std::string& label, const std::vector<SchedulerRun>& runs, F cell) {
  std::string line = fmt::format("{:<34}", label);
  for (const SchedulerRun& run : runs) line += fmt::format("{:>22}", cell(run));
  return line + "\n";
}

// "1d 02:03" from one day on, else "02:03:04".
std::string clock(int64_t ms) {
  const int64_t total_s = ms / 1000, days = total_s / 86400, h = total_s / 3600 % 24, m = total_s / 60 % 60, sec = total_s % 60;
  if (days > 0) return fmt::format("{}d {:02}:{:02}", days, h, m);
  return fmt::format("{:02}:{:02}:{:02}", h, m, sec);
}

// The sampled state side by side, at up to `max_rows` times evenly spread over the longest run
// (first and last sample included). Runs share the sampling grid (same workload and period).
std::string timeline(const std::vector<SchedulerRun>& runs, size_t max_rows) {
  size_t longest = 0;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].result.samples.size() > runs[longest].result.samples.size()) longest = i;
  if (runs.empty() || runs[longest].result.samples.empty() || max_rows == 0) return "";
  const std::vector<SimSample>& grid = runs[longest].result.samples;
  const size_t rows = std::min(max_rows, grid.size());
  std::string out = fmt::format("\nover time (every {}; {} of {} samples, all in results.json):\n{:>12}",
                                clock(runs[longest].result.sample_every_ms), rows, grid.size(), "");
  for (const SchedulerRun& run : runs) out += fmt::format("  {:>42}", scheduler_name(run.result.scheduler));
  out += fmt::format("\n{:>12}", "time");
  for (size_t r = 0; r < runs.size(); ++r) out += fmt::format("  {:>8}{:>8}{:>9}{:>17}", "running", "pending", "alloc", "fragmentation");
  out += "\n";
  for (size_t i = 0; i < rows; ++i) {
    const size_t at = rows == 1 ? 0 : i * (grid.size() - 1) / (rows - 1);
    out += fmt::format("{:>12}", clock(grid[at].time_ms));
    for (const SchedulerRun& run : runs) {
      if (at >= run.result.samples.size()) {
        out += fmt::format("  {:>42}", "(finished)");
        continue;
      }
      const SimSample& x = run.result.samples[at];
      const double share = run.result.total_gpus ? 100 * x.allocated_gpus / run.result.total_gpus : 0.0;
      out += fmt::format("  {:>8}{:>8}{:>9}{:>17}", x.running, x.pending, fmt::format("{:.1f}%", share),
                         fmt::format("{:.2f} ({:.0f}%)", x.fragmentation_gpus, 100 * x.fragmentation_rate));
    }
    out += "\n";
  }
  return out;
}

std::string job_lines(const Scenario& scenario, const std::vector<SchedulerRun>& runs) {
  std::string out = "\nper job (throughput, transport, GPUs per node):\n";
  for (uint32_t id = 0; id < scenario.workload.jobs.size(); ++id) {
    out += row(scenario.workload.job_name(id), runs, [&](const SchedulerRun& run) {
      const JobRecord& r = run.result.jobs[id];
      const JobSpec& job = scenario.workload.jobs[id];
      if (r.start_ms < 0) return std::string(job_state_name(r.state));
      if (job.is_share())
        return job.gpu_core_percent > 0 ? fmt::format("share {} GiB + {}%", job.gpu_mem_gib, job.gpu_core_percent)
                                        : fmt::format("share {} GiB", job.gpu_mem_gib);
      return fmt::format("{:.2f} {}", r.samples_per_sec, unit_of(job));
    });
    out += row("", runs, [&](const SchedulerRun& run) {
      const JobRecord& r = run.result.jobs[id];
      if (r.start_ms < 0) return std::string();
      if (r.share) return fmt::format("node {} GPU {}", r.pods.front().node, r.pods.front().gpus.front());
      std::map<int, size_t> per_node;
      for (const PodPlacement& pod : r.pods) per_node[pod.node] += pod.gpus.size();
      std::string split;
      for (const auto& [node, gpus] : per_node) split += (split.empty() ? "" : "+") + std::to_string(gpus);
      return fmt::format("{} {}", comm_transport_name(r.comm.transport), split);
    });
  }
  return out;
}

}  // namespace

std::string render_run_text(const Scenario& scenario, const std::vector<SchedulerRun>& runs, const ReportOptions& options) {
  int nodes = 0, gpus = 0;
  for (const NodeGroupSpec& g : scenario.cluster.groups) nodes += g.count;
  if (!runs.empty()) gpus = runs.front().result.total_gpus;
  std::string out = fmt::format("scenario {}: {} nodes, {} GPUs, {} jobs ({}), seed {}\n\n", scenario.name, nodes, gpus,
                                scenario.workload.jobs.size(), scenario.workload.source, scenario.seed);
  out += row("", runs, [](const SchedulerRun& r) { return std::string(scheduler_name(r.result.scheduler)); });
  out += row("jobs finished / rejected / stuck", runs, [](const SchedulerRun& r) {
    return fmt::format("{} / {} / {}", r.summary.finished, r.summary.rejected, r.summary.stuck);
  });
  out += row("wait mean / p95 (s)", runs, [](const SchedulerRun& r) {
    return fmt::format("{:.1f} / {:.1f}", r.summary.wait_s.mean, r.summary.wait_s.p95);
  });
  out += row("JCT mean / p50 (s)", runs, [](const SchedulerRun& r) {
    return fmt::format("{:.1f} / {:.1f}", r.summary.jct_s.mean, r.summary.jct_s.p50);
  });
  out += row("JCT p95 / p99 (s)", runs, [](const SchedulerRun& r) {
    return fmt::format("{:.1f} / {:.1f}", r.summary.jct_s.p95, r.summary.jct_s.p99);
  });
  out += row("makespan (s)", runs, [](const SchedulerRun& r) { return fmt::format("{:.1f}", r.summary.makespan_s); });
  out += row("GPU utilisation", runs, [](const SchedulerRun& r) { return fmt::format("{:.1f}%", 100 * r.summary.gpu_utilisation); });
  out += row("placement efficiency", runs, [](const SchedulerRun& r) { return fmt::format("{:.1f}%", 100 * r.summary.placement_efficiency); });
  out += row("cross-NUMA ratio", runs, [](const SchedulerRun& r) { return fmt::format("{:.3f}", r.summary.cross_numa_ratio); });
  out += row("topology success rate / fallbacks", runs, [](const SchedulerRun& r) {
    if (r.summary.topology_success_rate < 0) return std::string("n/a");
    return fmt::format("{:.3f} / {}", r.summary.topology_success_rate, r.summary.fallbacks);
  });
  out += row("GPU-hours held by partial jobs", runs, [](const SchedulerRun& r) { return fmt::format("{:.2f}", r.summary.held_idle_gpu_hours); });
  if (std::any_of(runs.begin(), runs.end(), [](const SchedulerRun& r) { return r.summary.share_jobs > 0; }))
    out += row("shared-GPU jobs: wait mean / p95 (s)", runs, [](const SchedulerRun& r) {
      return fmt::format("{:.1f} / {:.1f}", r.summary.share_wait_s.mean, r.summary.share_wait_s.p95);
    });
  out += "time-weighted means:\n";
  out += row("  GPUs allocated", runs, [](const SchedulerRun& r) {
    return fmt::format("{:.2f} ({:.1f}%)", r.summary.averages.allocated_gpus,
                       r.result.total_gpus ? 100 * r.summary.averages.allocated_gpus / r.result.total_gpus : 0.0);
  });
  out += row("  fragmentation F, GPUs (rate)", runs, [](const SchedulerRun& r) {
    return fmt::format("{:.2f} ({:.1f}%)", r.summary.averages.fragmentation_gpus, 100 * r.summary.averages.fragmentation_rate);
  });
  out += row("  jobs pending mean / peak", runs, [](const SchedulerRun& r) {
    return fmt::format("{:.2f} / {}", r.summary.averages.pending, r.summary.averages.peak_pending);
  });
  if (scenario.workload.jobs.size() <= options.max_text_jobs) out += job_lines(scenario, runs);
  else out += timeline(runs, options.max_text_samples);
  return out;
}

}  // namespace topsim
