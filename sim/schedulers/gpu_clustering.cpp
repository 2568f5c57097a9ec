// FGD's GpuClustering baseline: a card whose pods all ask the same share as this one, then an
// idle card, then any card; whole-GPU pods prefer nodes already running whole-GPU pods.
// Pods one at a time on the share accounting: sim/schedulers/share_policy_scheduler.h; the
// score itself: core/share_policies.h.
#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {

std::unique_ptr<Scheduler> make_gpu_clustering_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(SharePolicyKind::GpuClustering, context);
}

}  // namespace topsim
