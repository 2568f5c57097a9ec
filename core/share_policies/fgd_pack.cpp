// fgd-pack (topsim's): FGD's growth scored as the FGD artifact scores it, an integer
// floor(100 x sigmoid(-growth / 1000)) (artifact_fgd_score: every growth within about 40
// thousandths of a GPU of another scores the same, large falls and rises saturate), the highest
// score wins; among equal scores gpu-packing's tier of the card fgd chose (a card already
// shared, then an idle card of a node in use, then an idle node), then a seeded random order of
// the nodes (artifact_node_ranks with SharePolicyContext::seed, as the artifact's ties). Under
// the artifact's protocol it is the same policy (topsim's own).
#include "core/share_policies/policy_support.h"

namespace topsim::share_policy {
namespace {

class FgdPackPolicy final : public SharePolicy {
 public:
  FgdPackPolicy(FragmentationTracker& tracker, uint64_t seed) : tracker_(&tracker), seed_(seed) {}

  std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) override {
    int highest = -1;
    tied_.clear();
    const auto weight = static_cast<double>(tracker_->weight_total());
    for (int n = 0; n < static_cast<int>(cluster.nodes.size()); ++n) {
      if (!node_fits(cluster.nodes[static_cast<size_t>(n)], pod)) continue;
      const std::optional<int64_t> growth = tracker_->placement_growth(cluster, n, pod);
      if (!growth) continue;
      const int score = artifact_fgd_score(static_cast<double>(*growth) / weight);
      if (score < highest) continue;
      if (score > highest) tied_.clear(), highest = score;
      tied_.push_back(n);
    }
    if (tied_.empty()) return std::nullopt;
    if (ranks_.size() != cluster.nodes.size()) ranks_ = artifact_node_ranks(cluster.nodes.size(), seed_);
    SharePlacement best;
    Score best_score;
    for (int n : tied_) {
      std::vector<int> cards = tracker_->least_growth_cards(cluster, n, pod);
      const Score s{packing_tier(cluster.nodes[static_cast<size_t>(n)], pod, cards),
                    static_cast<double>(ranks_[static_cast<size_t>(n)])};
      if (best.node < 0 || better(s, best_score)) best = SharePlacement{n, std::move(cards)}, best_score = s;
    }
    return best;
  }

 private:
  // gpu-packing's tier of FGD's card choice: 0 a card already shared, 1 an idle card on a node
  // in use, 2 an idle node (CPU-only pods: 0 a node in use, 1 an idle one).
  static double packing_tier(const ShareNode& node, const PodRequest& pod, const std::vector<int>& cards) {
    if (pod.gpu.kind == GpuAskKind::None) return node.pods > 0 ? 0.0 : 1.0;
    const NodeView view = node_view(node, pod);
    const CardView card = single_card(pod.gpu) && cards.size() == 1 ? card_view(view, cards.front()) : CardView{};
    return gpu_packing_score(view, card).primary;
  }

  FragmentationTracker* tracker_;
  uint64_t seed_;
  std::vector<int> ranks_;  // the run's node order (artifact_node_ranks)
  std::vector<int> tied_;
};

std::unique_ptr<SharePolicy> make(const SharePolicyContext& c) {
  return std::make_unique<FgdPackPolicy>(*c.fragmentation, c.seed);
}

}  // namespace

const Entry kFgdPack{SharePolicyKind::FgdPack, make, make, true};

}  // namespace topsim::share_policy
