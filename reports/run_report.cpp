#include "reports/run_report.h"

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
          {"events", s.events}};
}

ordered_json job_json(const Workload& workload, const JobRecord& r, uint32_t id) {
  const JobSpec& job = workload.jobs[id];
  ordered_json pods = ordered_json::array();
  for (const PodPlacement& pod : r.pods) pods.push_back({{"node", pod.node}, {"gpus", pod.gpus}});
  ordered_json j = {{"id", id},
                    {"name", workload.job_name(id)},
                    {"state", job_state_name(r.state)},
                    {"workers", job.workers},
                    {"gpus_per_worker", job.gpus_per_worker},
                    {"model", model_at(job.model) ? model_at(job.model)->name : "?"},
                    {"framework", framework_name(job.framework)},
                    {"submit_s", seconds(r.submit_ms)}};
  if (r.start_ms >= 0) {
    j["start_s"] = seconds(r.start_ms);
    j["wait_s"] = seconds(r.start_ms - r.submit_ms);
  }
  if (r.finish_ms >= 0) {
    j["finish_s"] = seconds(r.finish_ms);
    j["jct_s"] = seconds(r.finish_ms - r.submit_ms);
  }
  j["pods"] = pods;
  if (r.start_ms >= 0) {
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
    ordered_json r = {{"scheduler", scheduler_name(run.result.scheduler)}, {"summary", summary_json(run.summary)}};
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

std::string job_lines(const Scenario& scenario, const std::vector<SchedulerRun>& runs) {
  std::string out = "\nper job (throughput, transport, GPUs per node):\n";
  for (uint32_t id = 0; id < scenario.workload.jobs.size(); ++id) {
    out += row(scenario.workload.job_name(id), runs, [&](const SchedulerRun& run) {
      const JobRecord& r = run.result.jobs[id];
      if (r.start_ms < 0) return std::string(job_state_name(r.state));
      return fmt::format("{:.2f} {}", r.samples_per_sec, unit_of(scenario.workload.jobs[id]));
    });
    out += row("", runs, [&](const SchedulerRun& run) {
      const JobRecord& r = run.result.jobs[id];
      if (r.start_ms < 0) return std::string();
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
  if (scenario.workload.jobs.size() <= options.max_text_jobs) out += job_lines(scenario, runs);
  return out;
}

}  // namespace topsim
