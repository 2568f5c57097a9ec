// FGD's DotProduct baseline (Tetris-like): the largest alignment of the pod's CPU and GPU request
// with the node's free CPU and GPU, then the fullest card.
// Pods one at a time on the share accounting: sim/schedulers/share_policy_scheduler.h; the
// score itself: core/share_policies.h.
#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {

std::unique_ptr<Scheduler> make_dot_product_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(SharePolicyKind::DotProduct, context);
}

}  // namespace topsim
