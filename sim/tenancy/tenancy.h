// A run's tenants: the queue configuration, how the queues jobs name map onto it, and what a
// preemption costs a job. Bound to a workload before a run: each queue a job names becomes a
// ClusterQueue, each priority class a value.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/job.h"
#include "sim/tenancy/kueue_admission.h"
#include "sim/tenancy/queue_config.h"
#include "util/expected.h"

namespace topsim {

struct TenancySpec {
  QueueConfig queues;
  // The queue a job names (Workload::queue_names) -> the LocalQueue ("name" or
  // "namespace/name") or ClusterQueue it submits to; names not listed are looked up as they are.
  std::map<std::string, std::string> queue_of;
  std::string default_queue;  // for jobs that name none; empty: such a job is bad input
};

// A TenancySpec bound to one workload's names. Queues are the admitting system's: ClusterQueues
// (QueueConfig::cluster_queues index) for Kueue, leaf Queues (QueueConfig::kai_queues index) for
// KAI.
struct TenancyBinding {
  std::vector<int> queue_of;  // by Workload::queue_names index
  int default_queue = -1;     // jobs naming no queue
  // Kueue: the LocalQueue a job submits to (QueueConfig::local_queues index, or local_queues.size()
  // + the ClusterQueue's index for a job naming a ClusterQueue), by queue name and for jobs naming
  // none; -1 under KAI.
  std::vector<int> local_queue_of;
  int default_local_queue = -1;
  std::vector<int32_t> priority_of;  // by Workload::priority_class_names index
  int32_t default_priority = 0;      // jobs naming no class: the globalDefault PriorityClass's value, else 0

  int queue(const JobSpec& job) const { return job.queue == kNoQueue ? default_queue : queue_of[job.queue]; }
  int local_queue(const JobSpec& job) const { return job.queue == kNoQueue ? default_local_queue : local_queue_of[job.queue]; }
  int32_t priority(const JobSpec& job) const {
    return job.priority_class == kNoPriorityClass ? default_priority : priority_of[job.priority_class];
  }
};

// Errors (one line, naming the workload's source and the queue or class): a queue that is no
// LocalQueue or ClusterQueue (Kueue) or no KAI Queue, a KAI parent queue (only leaves take
// jobs), a LocalQueue name in two namespaces, an unknown priority class.
Expected<TenancyBinding> bind_tenancy(const TenancySpec& spec, const Workload& workload);

// What `job` asks of quota, in `tree`'s resources: nvidia.com/gpu (whole cards), cpu (milli),
// memory (bytes), pods (when a queue counts them), and the shared-GPU resources
// aliyun.com/gpu-mem (GiB) and alibabacloud.com/gpu-milli. A requested resource no queue names
// is left out and named in `missing` (such a job is never admitted).
QuotaRequest quota_request(const JobSpec& job, const QuotaTree& tree, std::string& missing);

}  // namespace topsim
