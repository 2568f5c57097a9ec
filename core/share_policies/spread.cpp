// spread (the gpushare scheduler extender's): the card, then the node, with the most free share
// (CPU-only pods: the most free CPU). The FGD artifact has no version of it.
#include "core/share_policies/policy_support.h"

namespace topsim::share_policy {
namespace {

Score spread_score(const NodeView& v, const CardView& c) {
  if (v.pod.gpu.kind == GpuAskKind::None) return {-v.cpu_free, 0};
  return {-c.free_units, -v.gpu_free};
}

}  // namespace

const Entry kSpread{SharePolicyKind::Spread, [](const SharePolicyContext&) { return make_scored_policy(spread_score); }, nullptr};

}  // namespace topsim::share_policy
