// gpushare extender's spread: the card, then the node, with the most free share left (CPU-only
// pods: the most free CPU).
// Pods one at a time on the share accounting: sim/schedulers/share_policy_scheduler.h; the
// score itself: core/share_policies.h.
#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {

std::unique_ptr<Scheduler> make_spread_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(SharePolicyKind::Spread, context);
}

}  // namespace topsim
