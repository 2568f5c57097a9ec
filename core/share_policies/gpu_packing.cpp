// gpu-packing (FGD baseline): first a card already shared that fits, then an idle card on a node
// with GPUs in use, then an idle node; within a tier the fullest card. The artifact's
// GpuPackingScore: CPU-only pods 0. A node with every card idle: max(33 - idle cards, idle
// cards). Otherwise the pod's cards are taken fullest first; if any of them is idle: max(50 -
// idle cards taken, 33); else max(100 - sum(floor(free x 100 / 1000)) / 10, 50).
#include <algorithm>
#include <numeric>

#include "core/share_policies/policy_support.h"

namespace topsim {

int artifact_gpu_packing_score(const ShareNode& node, const PodRequest& pod) {
  using namespace share_policy;
  if (pod.gpu.kind == GpuAskKind::None || card_share(pod) <= 0) return 0;
  const int cards = static_cast<int>(node.cards.size());
  if (node.idle_cards == cards) return std::max(kMaxScore / 3 - node.idle_cards, node.idle_cards);
  std::vector<int> order(node.cards.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return card_free_milli(node, a) < card_free_milli(node, b); });
  int wanted = pod.gpu.count, idle_taken = 0, free_percent = 0;
  for (int g : order) {
    if (wanted == 0) break;
    const int free = card_free_milli(node, g);
    if (card_share(pod) > free) continue;
    --wanted;
    idle_taken += free == kMilliPerGpu ? 1 : 0;
    free_percent += free * 100 / kMilliPerGpu;
  }
  if (idle_taken > 0) return std::max(kMaxScore / 2 - idle_taken, kMaxScore / 3);
  return std::max(kMaxScore - free_percent / 10, kMaxScore / 2);
}

namespace share_policy {

Score gpu_packing_score(const NodeView& v, const CardView& c) {
  if (v.pod.gpu.kind == GpuAskKind::None) return {v.node.pods > 0 ? 0.0 : 1.0, 0};
  const double tier = c.index >= 0 && c.tasks > 0 ? 0 : v.in_use ? 1 : 2;
  return {tier, c.after_units};
}

const Entry kGpuPacking{SharePolicyKind::GpuPacking,
                        [](const SharePolicyContext&) { return make_scored_policy(gpu_packing_score); },
                        make_artifact<NodeScoredArtifactPolicy<artifact_gpu_packing_score>>};

}  // namespace share_policy
}  // namespace topsim
