#include "sim/tenancy/gpu_quota.h"

#include <cassert>
#include <cmath>

namespace topsim {
namespace {

bool is_kai_leaf(const QueueConfig& config, const std::string& name) {
  for (const KaiQueueSpec& q : config.kai_queues)
    if (q.parent == name) return false;
  return true;
}

// The quotas of nvidia.com/gpu in a ClusterQueue, one per flavor holding it.
std::vector<ResourceQuota*> gpu_quotas(ClusterQueueSpec& queue) {
  std::vector<ResourceQuota*> out;
  for (ResourceGroup& group : queue.groups)
    for (FlavorQuotas& flavor : group.flavors)
      for (ResourceQuota& quota : flavor.resources)
        if (quota.resource == kResourceGpu) out.push_back(&quota);
  return out;
}

}  // namespace

std::vector<std::string> gpu_quota_tenants(const QueueConfig& config) {
  std::vector<std::string> out;
  for (ClusterQueueSpec queue : config.cluster_queues)
    if (!gpu_quotas(queue).empty()) out.push_back(queue.name);
  for (const KaiQueueSpec& q : config.kai_queues)
    if (is_kai_leaf(config, q.name)) out.push_back(q.name);
  return out;
}

Expected<int64_t> gpu_quota(const QueueConfig& config, const std::string& tenant) {
  for (ClusterQueueSpec queue : config.cluster_queues) {
    if (queue.name != tenant) continue;
    const auto quotas = gpu_quotas(queue);
    if (quotas.empty()) return Error("ClusterQueue " + tenant + " (" + queue.where + ") has no nvidia.com/gpu quota to move");
    if (quotas.size() > 1)
      return Error("ClusterQueue " + tenant + " (" + queue.where + ") holds nvidia.com/gpu in " + std::to_string(quotas.size()) +
                   " flavors: a quota search moves the GPUs of one flavor per queue");
    return quotas.front()->nominal;
  }
  for (const KaiQueueSpec& q : config.kai_queues) {
    if (q.name != tenant) continue;
    if (!is_kai_leaf(config, tenant))
      return Error("KAI queue " + tenant + " is a parent queue: a quota search moves leaf quotas");
    if (q.gpu.quota < 0 || q.gpu.quota != std::floor(q.gpu.quota))
      return Error("KAI queue " + tenant + " (" + q.where + ") has " + (q.gpu.quota < 0 ? "unlimited" : "fractional") +
                   " deserved GPUs: a quota search moves whole GPUs");
    return static_cast<int64_t>(q.gpu.quota);
  }
  return Error("\"" + tenant + "\" is no ClusterQueue or KAI leaf queue of " + config.source);
}

void set_gpu_quota(QueueConfig& config, const std::string& tenant, int64_t gpus) {
  assert(gpus >= 0);
  for (ClusterQueueSpec& queue : config.cluster_queues) {
    if (queue.name != tenant) continue;
    ResourceQuota& quota = *gpu_quotas(queue).front();
    quota.nominal = gpus;
    if (quota.lending_limit && *quota.lending_limit > gpus) quota.lending_limit = gpus;
    return;
  }
  for (KaiQueueSpec& q : config.kai_queues)
    if (q.name == tenant) q.gpu.quota = static_cast<double>(gpus);
}

}  // namespace topsim
