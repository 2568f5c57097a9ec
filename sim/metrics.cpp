#include "sim/metrics.h"

#include <algorithm>
#include <map>

#include "core/model_catalog.h"
#include "sim/failures.h"

namespace topsim {
namespace {

using enum Better;
using enum MetricShape;
using enum MetricNeeds;

const std::vector<MetricInfo> kCatalog = {
    {"jobs", "jobs", Neither, Scalar, "jobs submitted (fill: pods arrived)"},
    {"placed", "jobs", Higher, Scalar, "jobs that started"},
    {"finished", "jobs", Higher, Scalar, "jobs that ran to completion"},
    {"rejected", "jobs", Lower, Scalar, "jobs rejected at submission (invalid, or nothing could ever run them)"},
    {"failed", "jobs", Lower, Scalar, "fill: jobs no node fitted on arrival"},
    {"failed_no_gpu_room", "jobs", Lower, Scalar,
     "fill: failed jobs for which no node serving them had room on its GPUs (the rest had GPU room only on nodes short of CPU "
     "or host memory)"},
    {"stuck", "jobs", Lower, Scalar, "jobs partially placed when the run ended (partial-placement deadlock)"},
    {"never_placed", "jobs", Lower, Scalar, "jobs still waiting, without any pod placed, when the run ended"},
    {"share_jobs", "jobs", Neither, Scalar, "GPU-share jobs in the workload"},
    {"wait_s", "s", Lower, OverJobs, "queueing delay of finished jobs: start - submit (absent when none finished)"},
    {"jct_s", "s", Lower, OverJobs, "job completion time of finished jobs: finish - submit (absent when none finished)"},
    {"share_wait_s", "s", Lower, OverJobs, "queueing delay of finished GPU-share jobs (absent when none finished)", ShareJobs},
    {"images_per_sec", "images/s", Higher, OverJobs,
     "predicted throughput of started jobs training image models (absent when none started)", ImageJobs},
    {"llm_mfu", "ratio", Higher, OverJobs,
     "model FLOPs utilisation of started LLM jobs: model FLOP/s per GPU over its dense BF16 peak (absent when none started)",
     LlmJobs},
    {"ring_gbps", "GB/s", Higher, OverJobs,
     "predicted all-reduce bus bandwidth of started multi-GPU training jobs (absent when none started)", MultiGpuJobs},
    {"makespan_s", "s", Lower, Scalar, "time of the last event, from the first submission's time origin"},
    {"gpu_utilisation", "ratio", Higher, Scalar, "GPU-time of running jobs / (GPUs x makespan)"},
    {"held_idle_gpu_hours", "GPU-hours", Lower, Scalar, "GPU-time held by partially placed jobs while not running"},
    {"cross_numa_ratio", "ratio", Lower, Scalar,
     "started multi-GPU jobs with GPUs on several NUMA nodes of one node (> 0.5 warns; absent when none started)", MultiGpuJobs},
    {"topology_success_rate", "ratio", Higher, Scalar,
     "topology-aware only: placements made without dropping a constraint, over all placements (< 0.8 warns)", TopologyAware},
    {"fallbacks", "jobs", Lower, Scalar, "placements that dropped a constraint"},
    {"placement_efficiency", "ratio", Higher, Scalar,
     "mean over started multi-GPU jobs of throughput / ideal-placement throughput (absent when none started)", MultiGpuJobs},
    {"allocated_gpus", "GPUs", Higher, OverTime, "GPU share allocated"},
    {"gpu_alloc_ratio", "ratio", Higher, OverTime, "GPU share allocated / GPUs"},
    {"fragmentation_gpus", "GPUs", Lower, OverTime, "FGD's fragmentation F (USENIX ATC '23) over the cluster"},
    {"fragmentation_rate", "ratio", Lower, OverTime, "F / unallocated GPU share"},
    {"pending_jobs", "jobs", Lower, OverTime, "jobs waiting (partially placed ones included)"},
    {"running_jobs", "jobs", Neither, OverTime, "jobs running"},
    {"gpu_alloc_ratio", "ratio", Higher, Final, "fill: GPU share allocated / GPUs after the last arrival"},
    {"fragmentation_rate", "ratio", Lower, Final, "fill: F / unallocated GPU share after the last arrival"},
    {"fragmentation_gpus", "GPUs", Lower, Final, "fill: F after the last arrival"},
    {"unusable_gpus", "GPUs", Lower, Final, "fill: free GPU share no pod of the target workload can use, after the last arrival"},
    {"gpu_alloc_ratio", "ratio", Higher, AtLoad,
     "fill: GPU share allocated / GPUs at 100% (130%) arrived load: when the load first reached it (protocol fgd-artifact: "
     "mean over the arrivals whose load rounds to it, as the artifact's analysis)"},
    {"arrived_load", "ratio", Neither, Scalar, "fill: GPU request of the arrived jobs / GPU capacity"},
    {"events", "events", Neither, Scalar, "events processed (submissions and finishes)"},
    {"contended_jobs", "jobs", Lower, Scalar,
     "on a fabric: started jobs that ran with less network bandwidth than their ring needs (uplinks shared with other jobs)"},
    {"contended_gpu_hours", "GPU-hours", Lower, Scalar, "on a fabric: GPU-time of jobs while they ran slowed by shared uplinks"},
    {"gpu_hours", "GPU-hours", Neither, Scalar, "per tenant (@name): GPU-time its jobs ran", Queues},
    {"nominal_gpus", "GPUs", Neither, Scalar,
     "with quota, per tenant: the ClusterQueue's nominal nvidia.com/gpu quota (none for a LocalQueue under Admission Fair "
     "Sharing)",
     Quota},
    {"borrowed_gpu_hours", "GPU-hours", Neither, Scalar,
     "with quota: GPU-time held above nominal quota (borrowed from the cohort); per tenant holding quota and in all", Quota},
    {"evictions", "evictions", Lower, Scalar, "with quota: preemptions of jobs (a job preempted twice counts twice)", Quota},
    {"preempted_gpu_hours", "GPU-hours", Lower, Scalar,
     "with quota: GPU-time lost to preemption (run since the last checkpoint, and the restarts evictions caused)", Quota},
    {"node_failures", "failures", Lower, Scalar, "with failures: nodes that failed", Failures},
    {"node_failures", "failures", Lower, ByCause, "with failures: nodes that failed, by cause", Failures},
    {"interruptions", "jobs", Lower, Scalar,
     "with failures: running jobs stopped by a node's failure (a job stopped twice counts twice)", Failures},
    {"interruptions", "jobs", Lower, ByCause, "with failures: running jobs stopped by a node's failure, by cause", Failures},
    {"failure_lost_gpu_hours", "GPU-hours", Lower, Scalar,
     "with failures: GPU-time failures cost (training since the last checkpoint, and the restarts they caused)", Failures},
    {"failure_lost_gpu_hours", "GPU-hours", Lower, ByCause, "with failures: GPU-time failures cost, by cause", Failures},
    {"requeue_gpu_hours", "GPU-hours", Lower, Scalar,
     "with failures: GPUs x the time stopped jobs waited to restart (the GPU-time they were denied)", Failures},
    {"checkpoint_gpu_hours", "GPU-hours", Lower, Scalar, "with failures: GPU-time jobs spent writing checkpoints", Failures},
    {"restart_gpu_hours", "GPU-hours", Lower, Scalar, "with failures: GPU-time restarted jobs spent before training again",
     Failures},
    {"goodput", "ratio", Higher, Scalar,
     "with failures, finished training jobs: GPU-time of training that counted / GPU-time from first start to finish "
     "(absent when none finished)",
     Failures},
    {"ettr", "ratio", Higher, OverJobs,
     "with failures, finished training jobs: effective training time ratio, training that counted / (finish - first start) "
     "(absent when none finished)",
     Failures},
    {"gpus_down", "GPUs", Lower, OverTime, "with failures: GPUs of nodes out of service", Failures},
    {"interrupted_job_mtbf_s", "s", Neither, Scalar,
     "with failures: the largest interrupted training job's time from first start to finish / its interruptions", Failures},
    {"checkpoint_optimum_s", "s", Neither, Scalar,
     "with failures and checkpoint writes: Daly's optimum training time between checkpoints for that job (its MTBF, the write "
     "time)",
     Failures},
    {"elastic_resizes", "resizes", Neither, Scalar,
     "with failures and elastic jobs: shrinks of elastic jobs on a node's failure and growths back onto repaired nodes",
     Failures},
    {"spare_swaps", "failures", Neither, Scalar,
     "with spares: failures whose running jobs restarted at once on a spare instead of waiting to be placed again", Failures},
    {"spare_gpus", "GPUs", Neither, Scalar, "with spares: GPUs of the nodes held idle as spares at the start", Failures},
    {"tenant_fairness", "ratio", Higher, Scalar,
     "Jain's index over tenants of their stretch (sum of JCT / sum of run time of finished jobs); 1: all slowed alike", Queues},
};

// The base names a metric may carry per tenant, as "<name>[.<statistic>]@<tenant>".
constexpr std::array<std::string_view, 9> kPerTenant = {
    "jobs", "finished", "wait_s", "jct_s", "gpu_hours", "nominal_gpus", "evictions", "preempted_gpu_hours", "borrowed_gpu_hours"};

std::vector<std::string_view> statistics(MetricShape shape) {
  switch (shape) {
    case Scalar: return {""};
    case OverJobs: return {"mean", "p50", "p95", "p99", "max"};
    case OverTime: return {"mean", "max"};
    case Final: return {"final"};
    case AtLoad: return {"at_100", "at_130"};
    case ByCause: {
      std::vector<std::string_view> causes;
      for (const auto& entry : EnumNames<FailureCause>::table) causes.push_back(entry.name);
      return causes;
    }
  }
  return {};
}

}  // namespace

const std::vector<MetricInfo>& metric_catalog() { return kCatalog; }

const MetricInfo* find_metric(std::string_view full_name) {
  if (const size_t at = full_name.find('@'); at != std::string_view::npos) {
    const std::string_view tenant = full_name.substr(at + 1);
    full_name = full_name.substr(0, at);
    if (tenant.empty() ||
        std::find(kPerTenant.begin(), kPerTenant.end(), full_name.substr(0, full_name.find('.'))) == kPerTenant.end())
      return nullptr;
  }
  const size_t dot = full_name.find('.');
  const std::string_view base = full_name.substr(0, dot);
  const std::string_view statistic = dot == std::string_view::npos ? "" : full_name.substr(dot + 1);
  for (const MetricInfo& info : kCatalog) {
    if (info.name != base) continue;
    const auto stats = statistics(info.shape);
    if (std::find(stats.begin(), stats.end(), statistic) != stats.end()) return &info;
  }
  return nullptr;
}

std::vector<std::string> full_metric_names(const MetricInfo& info) {
  std::vector<std::string> names;
  for (std::string_view statistic : statistics(info.shape))
    names.push_back(statistic.empty() ? std::string(info.name) : std::string(info.name) + "." + std::string(statistic));
  return names;
}

void Metrics::set(std::string name, double value) {
  for (Metric& metric : values_)
    if (metric.name == name) return void(metric.value = value);
  values_.push_back({std::move(name), value});
}

void Metrics::set(std::string_view base, const Distribution& d) {
  const std::string name(base);
  set(name + ".mean", d.mean);
  set(name + ".p50", d.p50);
  set(name + ".p95", d.p95);
  set(name + ".p99", d.p99);
  set(name + ".max", d.max);
}

std::optional<double> Metrics::get(std::string_view name) const {
  for (const Metric& metric : values_)
    if (metric.name == name) return metric.value;
  return std::nullopt;
}

}  // namespace topsim
