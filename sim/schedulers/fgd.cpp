// FGD, Fragmentation Gradient Descent ("Beware of Fragmentation", USENIX ATC '23): the node and
// card where the cluster's fragmentation F grows least.
// Pods one at a time on the share accounting: sim/schedulers/share_policy_scheduler.h; the
// score itself: core/share_policies.h.
#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {

std::unique_ptr<Scheduler> make_fgd_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(SharePolicyKind::Fgd, context);
}

}  // namespace topsim
