// FGD's BestFit baseline: the node with the least weighted leftover, 0.5 x free CPU fraction +
// 0.5 x free GPU fraction after placement, then the fullest card.
// Pods one at a time on the share accounting: sim/schedulers/share_policy_scheduler.h; the
// score itself: core/share_policies.h.
#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {

std::unique_ptr<Scheduler> make_best_fit_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(SharePolicyKind::BestFit, context);
}

}  // namespace topsim
