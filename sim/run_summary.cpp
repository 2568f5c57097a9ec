#include "sim/run_summary.h"

#include <algorithm>
#include <map>

#include "core/model_catalog.h"
#include "sim/schedulers/registry.h"
#include "sim/tenancy/admission.h"

namespace topsim {
namespace {

void set_over_time(Metrics& m, const RunOutput& run) {
  const TimeAverages& a = run.averages;
  const double gpus = std::max(1, run.total_gpus);
  m.set("allocated_gpus.mean", a.allocated_gpus);
  m.set("allocated_gpus.max", a.peak_allocated_gpus);
  m.set("gpu_alloc_ratio.mean", a.allocated_gpus / gpus);
  m.set("gpu_alloc_ratio.max", a.peak_allocated_gpus / gpus);
  m.set("fragmentation_gpus.mean", a.fragmentation_gpus);
  m.set("fragmentation_rate.mean", a.fragmentation_rate);
  m.set("pending_jobs.mean", a.pending);
  m.set("pending_jobs.max", static_cast<double>(a.peak_pending));
  m.set("running_jobs.mean", a.running);
}

// Failures by cause and in all, and where the jobs' GPU time went (sim/failures.h).
void set_failures(Metrics& m, const RunOutput& run) {
  double failures = 0, interruptions = 0, lost_ms = 0;
  for (const auto& entry : EnumNames<FailureCause>::table) {
    const RunOutput::FailureSums& sums = run.failures_by_cause[static_cast<size_t>(entry.value)];
    const std::string cause(entry.name);
    m.set("node_failures." + cause, static_cast<double>(sums.failures));
    m.set("interruptions." + cause, static_cast<double>(sums.interruptions));
    m.set("failure_lost_gpu_hours." + cause, static_cast<double>(sums.lost_gpu_ms) / 3.6e6);
    failures += static_cast<double>(sums.failures);
    interruptions += static_cast<double>(sums.interruptions);
    lost_ms += static_cast<double>(sums.lost_gpu_ms);
  }
  m.set("node_failures", failures);
  m.set("interruptions", interruptions);
  m.set("failure_lost_gpu_hours", lost_ms / 3.6e6);
  const JobTally& c = run.tally;
  m.set("requeue_gpu_hours", c.requeue_gpu_ms / 3.6e6);
  m.set("checkpoint_gpu_hours", c.checkpoint_gpu_ms / 3.6e6);
  m.set("restart_gpu_hours", c.restart_gpu_ms / 3.6e6);
  // Over finished training jobs; none finished: no goodput, not 0.
  if (c.wall_gpu_ms > 0) m.set("goodput", c.productive_gpu_ms / c.wall_gpu_ms);
  if (!c.ettrs.empty()) m.set("ettr", distribution_of(c.ettrs));
  m.set("gpus_down.mean", run.averages.gpus_down);
  m.set("gpus_down.max", run.averages.peak_gpus_down);
  // Daly's optimum interval for the largest interrupted job, from its measured time between
  // interruptions and the checkpoint write: what to compare the scenario's interval with.
  if (const JobTally::Interrupted& job = c.largest_interrupted; job.interruptions > 0) {
    const double mtbf_ms = job.wall_ms / job.interruptions;
    m.set("interrupted_job_mtbf_s", mtbf_ms / 1000);
    if (run.checkpoint.write_ms > 0)
      m.set("checkpoint_optimum_s", daly_interval(static_cast<double>(run.checkpoint.write_ms), mtbf_ms) / 1000);
  }
  if (run.elastic) m.set("elastic_resizes", static_cast<double>(run.elastic_resizes));
  if (run.spares) {
    m.set("spare_swaps", static_cast<double>(run.spare_swaps));
    m.set("spare_gpus", static_cast<double>(run.spare_gpus));
  }
}

void set_fill(Metrics& m, const RunOutput& run) {
  m.set("gpu_alloc_ratio.final", run.final_load.gpu_alloc_ratio);
  m.set("fragmentation_rate.final", run.final_load.frag_rate);
  m.set("fragmentation_gpus.final", run.final_load.frag_gpus);
  m.set("unusable_gpus.final", run.final_load.unusable_gpus);
  for (const LoadPoint& point : run.load_curve)
    if (point.load_percent == 100 || point.load_percent == 130)
      m.set("gpu_alloc_ratio.at_" + std::to_string(point.load_percent), point.gpu_alloc_ratio);
  m.set("arrived_load",
        run.capacity_milli > 0 ? static_cast<double>(run.arrived_milli) / static_cast<double>(run.capacity_milli) : 0);
}

// Per tenant, "<metric>@<tenant>"; and over tenants the evictions, GPU-time lost and borrowed,
// and Jain's fairness index of their stretch.
void set_tenants(Metrics& m, const RunOutput& run) {
  double evictions = 0, lost_ms = 0, sum = 0, sum_squares = 0;
  int stretched = 0;
  for (size_t i = 0; i < run.tenants.size(); ++i) {
    const TenantUsage& tenant = run.tenants[i];
    const auto found = run.tally.by_tenant.find(static_cast<int>(i));
    const JobTally::TenantSums sums = found == run.tally.by_tenant.end() ? JobTally::TenantSums{} : found->second;
    const std::string at = "@" + tenant.name;
    m.set("jobs" + at, static_cast<double>(sums.jobs));
    m.set("finished" + at, static_cast<double>(sums.finished));
    for (const auto& [base, values] : {std::pair{"wait_s", &sums.waits}, std::pair{"jct_s", &sums.jcts}}) {
      if (values->empty()) continue;  // the tenant finished no job: no wait, no JCT
      const Distribution d = distribution_of(*values);
      for (const auto& [statistic, value] : {std::pair{".mean", d.mean}, std::pair{".p50", d.p50}, std::pair{".p95", d.p95},
                                             std::pair{".p99", d.p99}, std::pair{".max", d.max}})
        m.set(std::string(base) + statistic + at, value);
    }
    m.set("gpu_hours" + at, static_cast<double>(tenant.used_gpu_ms) / 3.6e6);
    if (run.quota && tenant.holds_quota) {  // a LocalQueue under Admission Fair Sharing holds none
      m.set("nominal_gpus" + at, static_cast<double>(tenant.nominal_gpus));
      m.set("borrowed_gpu_hours" + at, static_cast<double>(tenant.borrowed_gpu_ms) / 3.6e6);
    }
    if (run.quota) {
      m.set("evictions" + at, static_cast<double>(sums.evictions));
      m.set("preempted_gpu_hours" + at, sums.lost_gpu_ms / 3.6e6);
    }
    evictions += static_cast<double>(sums.evictions);
    lost_ms += sums.lost_gpu_ms;
    double jct = 0, wait = 0;
    for (double v : sums.jcts) jct += v;
    for (double v : sums.waits) wait += v;
    if (jct - wait > 0) {
      const double stretch = jct / (jct - wait);
      sum += stretch;
      sum_squares += stretch * stretch;
      ++stretched;
    }
  }
  if (stretched > 0) m.set("tenant_fairness", sum * sum / (stretched * sum_squares));
  if (run.quota) {
    m.set("evictions", evictions);
    m.set("preempted_gpu_hours", lost_ms / 3.6e6);
    m.set("borrowed_gpu_hours", static_cast<double>(run.borrowed_gpu_ms) / 3.6e6);
  }
}

}  // namespace

Metrics summarize_run(const RunOutput& run, const Workload& workload, bool topology_aware, bool fill) {
  const JobTally& c = run.tally;
  Metrics m;
  m.set("jobs", static_cast<double>(workload.size()));
  m.set("placed", static_cast<double>(c.placed));
  if (fill) {
    m.set("failed", static_cast<double>(c.failed));
    m.set("failed_no_gpu_room", static_cast<double>(run.failed_no_gpu_room));
    m.set("rejected", static_cast<double>(c.rejected));
    set_fill(m, run);
    m.set("events", static_cast<double>(run.events));
    return m;
  }
  m.set("finished", static_cast<double>(c.finished));
  m.set("rejected", static_cast<double>(c.rejected));
  m.set("stuck", static_cast<double>(c.stuck));
  m.set("never_placed", static_cast<double>(c.never_placed));
  m.set("share_jobs", static_cast<double>(c.shares));
  // Over finished jobs; none finished (of GPU shares: none finished, or none in the workload):
  // no wait and no JCT, not 0 s.
  if (!c.waits.empty()) {
    m.set("wait_s", distribution_of(c.waits));
    m.set("jct_s", distribution_of(c.jcts));
  }
  if (!c.share_waits.empty()) m.set("share_wait_s", distribution_of(c.share_waits));
  // Throughput of what the workload trains, over the jobs that started: images/s of image models,
  // the MFU of LLMs. None started (a workload of LLMs, GPU shares or trace pods only has no image
  // model): no rate, not 0 images/s.
  if (!c.images_per_sec.empty()) m.set("images_per_sec", distribution_of(c.images_per_sec));
  if (!c.llm_mfus.empty()) m.set("llm_mfu", distribution_of(c.llm_mfus));
  if (!c.ring_gbps.empty()) m.set("ring_gbps", distribution_of(c.ring_gbps));  // none: no multi-GPU job started
  m.set("makespan_s", static_cast<double>(run.makespan_ms) / 1000.0);
  const double gpu_ms = static_cast<double>(run.total_gpus) * static_cast<double>(run.makespan_ms);
  m.set("gpu_utilisation", gpu_ms > 0 ? static_cast<double>(run.busy_gpu_ms) / gpu_ms : 0);
  m.set("held_idle_gpu_hours", static_cast<double>(run.held_idle_gpu_ms) / 3.6e6);
  if (c.multi_gpu > 0) m.set("cross_numa_ratio", static_cast<double>(c.cross_numa) / static_cast<double>(c.multi_gpu));
  if (topology_aware)
    m.set("topology_success_rate",
          c.topology_placed ? static_cast<double>(c.topology_placed - c.fallbacks) / static_cast<double>(c.topology_placed) : 0);
  m.set("fallbacks", static_cast<double>(c.fallbacks));
  if (run.shared_links) {
    m.set("contended_jobs", static_cast<double>(c.contended));
    m.set("contended_gpu_hours", c.contended_gpu_ms / 3.6e6);
  }
  // A mean over the started multi-GPU jobs; none started: not 0, but nothing to measure.
  if (c.efficiency_jobs > 0) m.set("placement_efficiency", c.efficiency_sum / static_cast<double>(c.efficiency_jobs));
  if (!run.tenants.empty()) set_tenants(m, run);
  set_over_time(m, run);
  if (run.failures) set_failures(m, run);
  m.set("events", static_cast<double>(run.events));
  return m;
}

std::vector<NodeTypeUsage> usage_by_node_type(const RunOutput& run, const ClusterState& cluster) {
  std::vector<NodeTypeUsage> out;
  if (!cluster.modelled()) return out;
  for (int t = 0; t < cluster.type_count(); ++t) {
    NodeTypeUsage usage;
    usage.node_type = cluster.type(t).name;
    if (const auto it = run.tally.by_node_type.find(t); it != run.tally.by_node_type.end()) {
      const JobTally::NodeTypeSums& sums = it->second;
      usage.jobs = sums.jobs;
      usage.llm_jobs = sums.llm_jobs;
      usage.gpu_hours = sums.gpu_ms / 3.6e6;
      const uint64_t others = sums.jobs - sums.llm_jobs;
      usage.mean_samples_per_sec = others ? sums.samples_per_sec / static_cast<double>(others) : 0;
      usage.mean_tokens_per_sec = sums.llm_jobs ? sums.tokens_per_sec / static_cast<double>(sums.llm_jobs) : 0;
    }
    out.push_back(std::move(usage));
  }
  return out;
}

std::vector<ModelThroughput> throughput_by_model(const RunOutput& run) {
  std::vector<ModelThroughput> out;
  for (const auto& [key, sums] : run.tally.by_model) {
    if (const LlmModel* llm = llm_of_model_key(key.first)) {
      out.push_back({llm->name, "megatron", "tokens", sums.jobs, sums.samples_per_sec / static_cast<double>(sums.jobs),
                     sums.ideal_samples_per_sec / static_cast<double>(sums.jobs)});
      continue;
    }
    const DnnModel& model = *model_at(key.first);
    out.push_back({model.name, std::string(enum_name(key.second)), std::string(enum_name(model.unit)), sums.jobs,
                   sums.samples_per_sec / static_cast<double>(sums.jobs),
                   sums.ideal_samples_per_sec / static_cast<double>(sums.jobs)});
  }
  return out;
}

std::vector<LlmModelStep> llm_steps_by_model(const RunOutput& run) {
  std::vector<LlmModelStep> out;
  for (const auto& [key, sums] : run.tally.llm_steps) {
    const LlmModel* model = llm_of_model_key(key);
    if (model == nullptr || sums.jobs == 0) continue;
    const double n = static_cast<double>(sums.jobs);
    const LlmStep& s = sums.sum;
    LlmModelStep m;
    m.model = model->name;
    m.jobs = sums.jobs;
    m.tokens_per_sec_per_gpu = s.tokens_per_sec_per_gpu / n;
    m.mfu = s.mfu / n;
    m.step_s = s.step_ms / n / 1e3;
    m.compute_s = s.compute_ms / n / 1e3;
    m.tp_s = s.tp_ms / n / 1e3;
    m.ep_s = s.ep_ms / n / 1e3;
    m.cp_s = s.cp_ms / n / 1e3;
    m.pp_bubble_s = s.pp_bubble_ms / n / 1e3;
    m.pp_p2p_s = s.pp_p2p_ms / n / 1e3;
    m.dp_exposed_s = s.dp_exposed_ms / n / 1e3;
    m.optimizer_s = s.optimizer_ms / n / 1e3;
    m.offload_s = s.offload_ms / n / 1e3;
    out.push_back(std::move(m));
  }
  return out;
}

RunKinds run_kinds(const Scenario& scenario) {
  RunKinds k;
  for (const std::string& name : scenario.schedulers)
    if (const SchedulerInfo* info = find_scheduler(name)) k.topology_aware |= info->serves == NodeMode::Topology;
  k.failures = scenario.failures != nullptr;
  k.quota = scenario.tenancy != nullptr;
  if (!scenario.workload) return k;
  const Workload& workload = *scenario.workload;
  k.queues = k.quota || !workload.queue_names.empty();
  JobCursor cursor(workload);
  while (const JobSpec* job = cursor.next()) {
    k.share_jobs |= job->is_share();
    if (!job->is_training()) continue;
    k.image_jobs |= trains_images(*job);
    k.llm_jobs |= workload.llm_of(*job) != nullptr;
    k.multi_gpu_jobs |= job->total_gpus() > 1;
    if (k.share_jobs && k.image_jobs && k.llm_jobs && k.multi_gpu_jobs) break;
  }
  return k;
}

Expected<std::vector<std::string>> scenario_tenants(const Scenario& scenario) {
  if (!scenario.workload) return std::vector<std::string>{};
  if (!scenario.tenancy) return scenario.workload->queue_names;
  int gpus = 0;  // KAI divides the cluster's GPUs (the names do not depend on it)
  for (const NodeGroupSpec& group : scenario.cluster.groups) gpus += group.count * static_cast<int>(group.model.gpus.size());
  for (const TraceNode& node : scenario.cluster.trace_nodes) gpus += node.gpu_count;
  auto admission = make_admission(*scenario.tenancy, *scenario.workload, gpus);
  if (!admission) return admission.error();
  std::vector<std::string> names;
  for (const TenantQuota& tenant : (*admission)->tenants()) names.push_back(tenant.name);
  return names;
}

std::string never_measured(const MetricInfo& info, const RunKinds& kinds) {
  switch (info.needs) {
    case MetricNeeds::Nothing: return "";
    case MetricNeeds::ImageJobs: return kinds.image_jobs ? "" : "no job of the workload trains an image model";
    case MetricNeeds::LlmJobs: return kinds.llm_jobs ? "" : "no job of the workload trains an LLM";
    case MetricNeeds::ShareJobs: return kinds.share_jobs ? "" : "the workload has no GPU-share job";
    case MetricNeeds::MultiGpuJobs: return kinds.multi_gpu_jobs ? "" : "no training job of the workload has more than one GPU";
    case MetricNeeds::TopologyAware: return kinds.topology_aware ? "" : "no scheduler places on topology-aware nodes";
    case MetricNeeds::Failures: return kinds.failures ? "" : "nodes never fail (no \"failures\")";
    case MetricNeeds::Queues: return kinds.queues ? "" : "no job names a queue and there is no \"tenancy\"";
    case MetricNeeds::Quota: return kinds.quota ? "" : "there is no quota (no \"tenancy\")";
  }
  return "";
}

}  // namespace topsim
