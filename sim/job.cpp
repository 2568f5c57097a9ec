#include "sim/job.h"

namespace topsim {

int JobSpec::total_gpus() const {
  if (unequal_pod_gpus.empty()) return int{workers} * gpus_per_worker;
  int total = 0;
  for (uint16_t gpus : unequal_pod_gpus) total += gpus;
  return total;
}

int64_t JobSpec::gpu_milli_total(int card_mem_gib) const {
  switch (kind) {
    case JobKind::Training: return int64_t{kMilliPerGpu} * total_gpus();
    case JobKind::Share: return ask_total_milli(pod_request(*this).gpu, card_mem_gib);
    case JobKind::TracePod: return int64_t{gpus_per_worker} * gpu_milli;
  }
  return 0;
}

PodRequest pod_request(const JobSpec& job, size_t pod, bool topology_aware) {
  PodRequest request;
  switch (job.kind) {
    case JobKind::Training: request.gpu = GpuAsk::whole(job.pod_gpus(pod), topology_aware); break;
    case JobKind::Share:
      request.gpu =
          GpuAsk::mem(job.gpu_mem_gib, job.gpu_core_percent > 0 ? std::optional<int>(job.gpu_core_percent) : std::nullopt);
      break;
    case JobKind::TracePod:
      request.cpu_milli = job.cpu_milli;
      request.memory_mib = job.memory_mib;
      request.gpu_type_mask = job.gpu_type_mask;
      if (job.gpus_per_worker > 0) request.gpu = GpuAsk::milli_share(job.gpu_milli, job.gpus_per_worker);
      break;
  }
  return request;
}

std::string Workload::job_name(uint32_t id) const {
  const auto it = extras.find(id);
  if (it != extras.end() && !it->second.name.empty()) return it->second.name;
  return "job-" + std::to_string(id);
}

}  // namespace topsim
