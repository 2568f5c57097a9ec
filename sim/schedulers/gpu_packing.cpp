// FGD's GpuPacking baseline: a card already shared that fits, then an idle card on a node with
// GPUs in use, then an idle node; within a tier the fullest card.
// Pods one at a time on the share accounting: sim/schedulers/share_policy_scheduler.h; the
// score itself: core/share_policies.h.
#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {

std::unique_ptr<Scheduler> make_gpu_packing_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(SharePolicyKind::GpuPacking, context);
}

}  // namespace topsim
