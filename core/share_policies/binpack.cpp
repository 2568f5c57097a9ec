// binpack (the gpushare scheduler extender's): the fullest card that still fits, then the
// fullest node; memory shares measure the card in GiB, others in thousandths. CPU-only pods: the
// least free CPU left. The FGD artifact has no version of it.
#include "core/share_policies/policy_support.h"

namespace topsim::share_policy {
namespace {

Score binpack_score(const NodeView& v, const CardView& c) {
  if (v.pod.gpu.kind == GpuAskKind::None) return {v.cpu_after, 0};
  return {c.after_units, v.gpu_after};
}

}  // namespace

const Entry kBinpack{SharePolicyKind::Binpack, [](const SharePolicyContext&) { return make_scored_policy(binpack_score); },
                     nullptr};

}  // namespace topsim::share_policy
