// fgd-pack, topsim's policy: FGD's least fragmentation growth, ties broken in gpu-packing's order
// (core/share_policies.h explains why). Pods one at a time on the share accounting:
// sim/schedulers/share_policy_scheduler.h.
#include "sim/schedulers/registry.h"
#include "sim/schedulers/share_policy_scheduler.h"

namespace topsim {

std::unique_ptr<Scheduler> make_fgd_pack_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(SharePolicyKind::FgdPack, context);
}

}  // namespace topsim
