// A tenant's GPU quota read and changed in a queue configuration, for searches that move quota
// between tenants (plan/, `quota_search`): a Kueue ClusterQueue's nominal nvidia.com/gpu quota
// in the one flavor that holds it, a KAI leaf queue's deserved GPUs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/tenancy/queue_config.h"
#include "util/expected.h"

namespace topsim {

// The tenants whose GPU quota a search can move, in the folder's order: ClusterQueues covering
// nvidia.com/gpu, or KAI leaf queues.
std::vector<std::string> gpu_quota_tenants(const QueueConfig& config);

// Whole GPUs. Errors (one line naming the queue): no such tenant, a ClusterQueue whose GPUs come
// in several flavors (which one would move is not said), a KAI queue of unlimited or fractional
// deserved GPUs.
Expected<int64_t> gpu_quota(const QueueConfig& config, const std::string& tenant);

// Sets it. A ClusterQueue's lendingLimit above the new quota comes down to it (Kueue requires
// lendingLimit <= nominalQuota). REQUIRES: gpu_quota(config, tenant) succeeds; gpus >= 0.
void set_gpu_quota(QueueConfig& config, const std::string& tenant, int64_t gpus);

}  // namespace topsim
