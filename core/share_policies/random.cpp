// random (FGD baseline): a uniformly drawn fitting node, then a uniformly drawn fitting card,
// from a std::mt19937_64 seeded with SharePolicyContext::seed (draw = engine() % n). The
// artifact's RandomScore draws the same way from its own stream (seed XOR kDrawStream), apart
// from its tie order's.
#include "core/share_policies/policy_support.h"

namespace topsim::share_policy {
namespace {

constexpr uint64_t kDrawStream = 0x5851F42D4C957F2DULL;

// The fitting cards of a node for a single-card ask.
std::vector<int> fitting_cards(const ShareNode& node, const PodRequest& pod) {
  std::vector<int> cards;
  for (int g = 0; g < static_cast<int>(node.cards.size()); ++g)
    if (card_fits(node, g, pod.gpu)) cards.push_back(g);
  return cards;
}

class RandomPolicy final : public SharePolicy {
 public:
  explicit RandomPolicy(uint64_t seed) : engine_(seed) {}

  std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) override {
    std::vector<int> fitting;
    for (int n = 0; n < static_cast<int>(cluster.nodes.size()); ++n) {
      if (node_fits(cluster.nodes[static_cast<size_t>(n)], pod)) fitting.push_back(n);
    }
    if (fitting.empty()) return std::nullopt;
    const int node = fitting[draw_index(engine_, fitting.size())];
    if (!single_card(pod.gpu)) return finish_placement(cluster, pod, node, -1);
    const std::vector<int> cards = fitting_cards(cluster.nodes[static_cast<size_t>(node)], pod);
    return SharePlacement{node, {cards[draw_index(engine_, cards.size())]}};
  }

 private:
  std::mt19937_64 engine_;
};

class ArtifactRandom final : public ArtifactPolicy {
 public:
  explicit ArtifactRandom(const SharePolicyContext& context) : ArtifactPolicy(context), engine_(context.seed ^ kDrawStream) {}

 private:
  int score(const ShareCluster&, int, const PodRequest&) override { return 0; }
  int choose(const std::vector<int>& fitting, const std::vector<int>&) override {
    return fitting[draw_index(engine_, fitting.size())];
  }
  std::vector<int> cards(const ShareCluster& cluster, int node, const PodRequest& pod) override {
    const ShareNode& chosen = cluster.nodes[static_cast<size_t>(node)];
    if (!share_pod(pod)) return best_cards(chosen, pod);
    const std::vector<int> fit = fitting_cards(chosen, pod);
    return {fit[draw_index(engine_, fit.size())]};
  }

  std::mt19937_64 engine_;
};

}  // namespace

const Entry kRandom{
    SharePolicyKind::Random,
    [](const SharePolicyContext& c) -> std::unique_ptr<SharePolicy> { return std::make_unique<RandomPolicy>(c.seed); },
    make_artifact<ArtifactRandom>};

}  // namespace topsim::share_policy
