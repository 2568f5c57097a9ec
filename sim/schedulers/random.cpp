// FGD's Random baseline: a uniformly drawn fitting node, then a uniformly drawn fitting card,
// from the run's seeded stream (sim/seeds.h).
// Pods one at a time on the share accounting: sim/schedulers/share_policy_scheduler.h; the
// score itself: core/share_policies.h.
#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {

std::unique_ptr<Scheduler> make_random_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(SharePolicyKind::Random, context);
}

}  // namespace topsim
