#include "sim/tenancy/tenancy.h"

#include <algorithm>

namespace topsim {
namespace {

// The index of ClusterQueue `name` in the config (the quota tree's node), or -1.
int cluster_queue_index(const QueueConfig& config, const std::string& name) {
  for (size_t q = 0; q < config.cluster_queues.size(); ++q)
    if (config.cluster_queues[q].name == name) return static_cast<int>(q);
  return -1;
}

// The ClusterQueue a queue name reaches: a LocalQueue ("name" or "namespace/name"), else a
// ClusterQueue of that name; -1 with `problem` set when neither or ambiguous. `local_queue`: the
// LocalQueue's index, or local_queues.size() + the ClusterQueue's for one named directly.
int resolve_kueue_queue(const QueueConfig& config, const std::string& name, std::string& problem, int& local_queue) {
  const size_t slash = name.find('/');
  const LocalQueueSpec* found = nullptr;
  int matches = 0;
  for (const LocalQueueSpec& lq : config.local_queues) {
    const bool hit = slash == std::string::npos ? lq.name == name
                                                : lq.namespace_name == name.substr(0, slash) && lq.name == name.substr(slash + 1);
    if (hit) {
      found = &lq;
      ++matches;
    }
  }
  if (matches > 1) {
    problem = "LocalQueue \"" + name + "\" exists in several namespaces; name it as namespace/" + name;
    return -1;
  }
  if (found) {
    local_queue = static_cast<int>(found - config.local_queues.data());
    return cluster_queue_index(config, found->cluster_queue);
  }
  if (const int cq = cluster_queue_index(config, name); cq >= 0) {
    local_queue = static_cast<int>(config.local_queues.size()) + cq;
    return cq;
  }
  problem = "\"" + name + "\" is neither a LocalQueue nor a ClusterQueue of " + config.source;
  return -1;
}

// The KAI leaf queue of that name; -1 with `problem` set when there is none or it is a parent.
int resolve_kai_queue(const QueueConfig& config, const std::string& name, std::string& problem) {
  int found = -1;
  for (size_t q = 0; q < config.kai_queues.size(); ++q)
    if (config.kai_queues[q].name == name) found = static_cast<int>(q);
  if (found < 0) {
    problem = "\"" + name + "\" is no KAI Queue of " + config.source;
    return -1;
  }
  for (const KaiQueueSpec& q : config.kai_queues)
    if (q.parent == name) {
      problem = "KAI queue \"" + name + "\" is a parent queue (of \"" + q.name + "\"): only leaf queues take jobs";
      return -1;
    }
  return found;
}

int resolve_queue(const QueueConfig& config, const std::string& name, std::string& problem, int& local_queue) {
  local_queue = -1;
  return config.kueue() ? resolve_kueue_queue(config, name, problem, local_queue) : resolve_kai_queue(config, name, problem);
}

}  // namespace

Expected<TenancyBinding> bind_tenancy(const TenancySpec& spec, const Workload& workload) {
  TenancyBinding out;
  std::string problem;
  for (const std::string& name : workload.queue_names) {
    const auto mapped = spec.queue_of.find(name);
    const std::string& target = mapped == spec.queue_of.end() ? name : mapped->second;
    int local_queue = -1;
    const int cq = resolve_queue(spec.queues, target, problem, local_queue);
    if (cq < 0)
      return Error(workload.source + ": jobs name queue \"" + name + "\"" +
                   (target != name ? " (mapped to \"" + target + "\")" : "") + ": " + problem +
                   (mapped == spec.queue_of.end() ? "; map it in tenancy.queue_of" : ""));
    out.queue_of.push_back(cq);
    out.local_queue_of.push_back(local_queue);
  }
  if (!spec.default_queue.empty()) {
    out.default_queue = resolve_queue(spec.queues, spec.default_queue, problem, out.default_local_queue);
    if (out.default_queue < 0) return Error("tenancy.default_queue: " + problem);
  }
  for (const PriorityClassSpec& pc : spec.queues.priority_classes)  // Kubernetes: pods naming no class
    if (pc.global_default && !pc.workload_class) out.default_priority = pc.value;
  for (const std::string& name : workload.priority_class_names) {
    const PriorityClassSpec* found = nullptr;
    for (const PriorityClassSpec& pc : spec.queues.priority_classes)  // a WorkloadPriorityClass wins
      if (pc.name == name && (!found || (pc.workload_class && !found->workload_class))) found = &pc;
    if (!found)
      return Error(workload.source + ": jobs name priority class \"" + name +
                   "\": no WorkloadPriorityClass or PriorityClass of that name in " + spec.queues.source);
    out.priority_of.push_back(found->value);
  }
  return out;
}

QuotaRequest quota_request(const JobSpec& job, const QuotaTree& tree, std::string& missing) {
  QuotaRequest out;
  auto add = [&](const char* resource, int64_t amount, bool only_if_counted = false) {
    if (amount <= 0) return;
    const int id = tree.resource(resource);
    if (id >= 0)
      out.emplace_back(id, amount);
    else if (!only_if_counted && missing.empty())
      missing = resource;
  };
  switch (job.kind) {
    case JobKind::Training: add(kResourceGpu, job.total_gpus()); break;
    case JobKind::Share: add(kResourceGpuMem, job.gpu_mem_gib); break;
    case JobKind::TracePod:
      if (job.gpu_milli >= 1000)
        add(kResourceGpu, job.gpus_per_worker);
      else
        add("alibabacloud.com/gpu-milli", int64_t{job.gpu_milli} * job.gpus_per_worker);
      add(kResourceCpu, job.cpu_milli);
      add(kResourceMemory, int64_t{job.memory_mib} << 20);
      break;
  }
  add(kResourcePods, job.workers, true);  // Kueue counts pods only where a queue names them
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace topsim
