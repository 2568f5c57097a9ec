#include "core/share_policies/policy_support.h"

#include <algorithm>

namespace topsim::share_policy {
namespace {

int card_mem(const ShareNode& node) { return node.cards.empty() ? 0 : node.cards.front().mem_total_gib; }

bool same_score_inputs(const CardView& a, const CardView& b) {
  return a.free_units == b.free_units && a.tasks == b.tasks && a.demand_milli == b.demand_milli;
}

class ScoredPolicy final : public SharePolicy {
 public:
  explicit ScoredPolicy(ScoreFn score) : score_(score) {}

  std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) override {
    int best_node = -1, best_card = -1;
    Score best;
    for (int n = 0; n < static_cast<int>(cluster.nodes.size()); ++n) {
      const ShareNode& node = cluster.nodes[static_cast<size_t>(n)];
      if (!node_fits(node, pod)) continue;
      const NodeView view = node_view(node, pod);
      auto consider = [&](const CardView& card) {
        const Score s = score_(view, card);
        if (best_node < 0 || better(s, best)) best_node = n, best_card = card.index, best = s;
      };
      if (!single_card(pod.gpu)) {
        consider(CardView{});
        continue;
      }
      seen_.clear();
      for (int g = 0; g < static_cast<int>(node.cards.size()); ++g) {
        if (!card_fits(node, g, pod.gpu)) continue;
        const CardView card = card_view(view, g);
        if (std::any_of(seen_.begin(), seen_.end(), [&](const CardView& s) { return same_score_inputs(s, card); })) continue;
        seen_.push_back(card);
        consider(card);
      }
    }
    if (best_node < 0) return std::nullopt;
    return finish_placement(cluster, pod, best_node, best_card);
  }

 private:
  ScoreFn score_;
  std::vector<CardView> seen_;
};

}  // namespace

bool better(const Score& a, const Score& b) {
  return a.primary < b.primary || (a.primary == b.primary && a.secondary < b.secondary);
}

bool single_card(const GpuAsk& ask) { return ask.kind == GpuAskKind::Mem || (ask.kind == GpuAskKind::Milli && ask.count == 1); }

NodeView node_view(const ShareNode& node, const PodRequest& pod) {
  const double cpu_free = static_cast<double>(node.cpu_milli - node.cpu_used_milli);
  const double gpu_free = static_cast<double>(node.free_milli);
  const double pod_gpu = static_cast<double>(ask_total_milli(pod.gpu, card_mem(node)));
  return NodeView{node,
                  pod,
                  cpu_free,
                  cpu_free - static_cast<double>(pod.cpu_milli),
                  static_cast<double>(std::max<int64_t>(1, node.cpu_milli)),
                  gpu_free,
                  gpu_free - pod_gpu,
                  static_cast<double>(std::max<size_t>(1, node.cards.size())) * kMilliPerGpu,
                  pod_gpu,
                  ask_card_milli(pod.gpu, card_mem(node)),
                  node.idle_cards < static_cast<int>(node.cards.size())};
}

CardView card_view(const NodeView& v, int index) {
  const CardState& card = v.node.cards[static_cast<size_t>(index)];
  const bool mem = v.pod.gpu.kind == GpuAskKind::Mem;
  const double free = mem ? card.mem_total_gib - card.mem_used_gib : card_free_milli(v.node, index);
  const double ask = mem ? v.pod.gpu.mem_gib : v.card_demand_milli;
  return CardView{index, free, free - ask, card.tasks, card.demand_milli};
}

std::unique_ptr<SharePolicy> make_scored_policy(ScoreFn score) { return std::make_unique<ScoredPolicy>(score); }

SharePlacement finish_placement(const ShareCluster& cluster, const PodRequest& pod, int node, int card) {
  SharePlacement placement{node, {}};
  if (card >= 0)
    placement.cards = {card};
  else if (pod.gpu.kind != GpuAskKind::None)
    placement.cards = lowest_idle_cards(cluster.nodes[static_cast<size_t>(node)], pod.gpu.count);
  return placement;
}

ArtifactPolicy::ArtifactPolicy(const SharePolicyContext& context) : context_(context) {}

std::optional<SharePlacement> ArtifactPolicy::place(const ShareCluster& cluster, const PodRequest& pod) {
  if (ranks_.size() != cluster.nodes.size()) ranks_ = artifact_node_ranks(cluster.nodes.size(), context_.seed);
  fitting_.clear();
  scores_.clear();
  for (int n = 0; n < static_cast<int>(cluster.nodes.size()); ++n) {
    if (!node_fits(cluster.nodes[static_cast<size_t>(n)], pod)) continue;
    fitting_.push_back(n);
    scores_.push_back(score(cluster, n, pod));
  }
  if (fitting_.empty()) return std::nullopt;
  adjust(scores_);
  const int node = choose(fitting_, scores_);
  placed(node, pod);
  return SharePlacement{node, cards(cluster, node, pod)};
}

int ArtifactPolicy::choose(const std::vector<int>& fitting, const std::vector<int>& scores) {
  size_t best = 0;
  for (size_t i = 1; i < fitting.size(); ++i) {
    const bool higher = scores[i] > scores[best];
    const bool earlier =
        scores[i] == scores[best] && ranks_[static_cast<size_t>(fitting[i])] < ranks_[static_cast<size_t>(fitting[best])];
    if (higher || earlier) best = i;
  }
  return fitting[best];
}

std::vector<int> ArtifactPolicy::cards(const ShareCluster& cluster, int node, const PodRequest& pod) {
  return best_cards(cluster.nodes[static_cast<size_t>(node)], pod);
}

int64_t free_cpu(const ShareNode& node) { return node.cpu_milli - node.cpu_used_milli; }
int card_share(const PodRequest& pod) { return ask_card_milli(pod.gpu, 0); }
int64_t total_share(const PodRequest& pod) { return ask_total_milli(pod.gpu, 0); }
bool share_pod(const PodRequest& pod) {
  return pod.gpu.kind != GpuAskKind::None && pod.gpu.count == 1 && card_share(pod) < kMilliPerGpu;
}

std::vector<int> best_cards(const ShareNode& node, const PodRequest& pod) {
  if (pod.gpu.kind == GpuAskKind::None) return {};
  if (!share_pod(pod)) return lowest_idle_cards(node, pod.gpu.count);
  int best = -1;
  for (int g = 0; g < static_cast<int>(node.cards.size()); ++g)
    if (card_fits(node, g, pod.gpu) && (best < 0 || card_free_milli(node, g) < card_free_milli(node, best))) best = g;
  return {best};
}

size_t draw_index(std::mt19937_64& engine, size_t n) { return static_cast<size_t>(engine() % n); }

}  // namespace topsim::share_policy
