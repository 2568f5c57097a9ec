#include "core/artifact_policies.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

namespace topsim {
namespace {

// The artifact's normalisers (pkg/type/open-gpu-share/utils/const.go: MaxSpecCpu, MaxSpecGpu)
// and kube-scheduler's score range.
constexpr double kMaxSpecCpu = 128000;
constexpr double kMaxSpecGpu = 8000;
constexpr int kMaxScore = 100;
// random's draws come from their own stream, apart from the tie order's.
constexpr uint64_t kDrawStream = 0x5851F42D4C957F2DULL;

int64_t free_cpu(const ShareNode& node) { return node.cpu_milli - node.cpu_used_milli; }
int card_share(const PodRequest& pod) { return ask_card_milli(pod.gpu, 0); }
int64_t total_share(const PodRequest& pod) { return ask_total_milli(pod.gpu, 0); }
bool share_pod(const PodRequest& pod) {
  return pod.gpu.kind != GpuAskKind::None && pod.gpu.count == 1 && card_share(pod) < kMilliPerGpu;
}

// GpuClustering's pod class: 0 CPU-only, -1 a share of one card, k for k whole cards.
int pod_class(const PodRequest& pod) {
  if (pod.gpu.kind == GpuAskKind::None) return 0;
  return share_pod(pod) ? -1 : pod.gpu.count;
}

// Open-Gpu-Share's "best" GPU selection: a share takes the fullest card that fits (first index
// among equals); whole cards the lowest-index idle ones.
std::vector<int> best_cards(const ShareNode& node, const PodRequest& pod) {
  if (pod.gpu.kind == GpuAskKind::None) return {};
  if (!share_pod(pod)) return lowest_idle_cards(node, pod.gpu.count);
  int best = -1;
  for (int g = 0; g < static_cast<int>(node.cards.size()); ++g)
    if (card_fits(node, g, pod.gpu) && (best < 0 || card_free_milli(node, g) < card_free_milli(node, best))) best = g;
  return {best};
}

class ArtifactPolicy final : public SharePolicy {
 public:
  ArtifactPolicy(SharePolicyKind kind, const SharePolicyContext& context)
      : kind_(kind), seed_(context.seed), tracker_(context.fragmentation), engine_(context.seed ^ kDrawStream) {}

  std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) override {
    if (ranks_.size() != cluster.nodes.size()) ranks_ = artifact_node_ranks(cluster.nodes.size(), seed_);
    fitting_.clear();
    scores_.clear();
    for (int n = 0; n < static_cast<int>(cluster.nodes.size()); ++n) {
      const ShareNode& node = cluster.nodes[static_cast<size_t>(n)];
      if (!node_fits(node, pod)) continue;
      fitting_.push_back(n);
      scores_.push_back(score(cluster, n, pod));
    }
    if (fitting_.empty()) return std::nullopt;
    if (kind_ == SharePolicyKind::BestFit) artifact_rescale_scores(scores_);
    const int node = kind_ == SharePolicyKind::Random ? fitting_[draw(fitting_.size())] : choose();
    const ShareNode& chosen = cluster.nodes[static_cast<size_t>(node)];
    if (kind_ == SharePolicyKind::GpuClustering && pod_class(pod) != 0) ++classes_[node][pod_class(pod)];
    return SharePlacement{node, cards(cluster, chosen, node, pod)};
  }

 private:
  int score(const ShareCluster& cluster, int n, const PodRequest& pod) {
    const ShareNode& node = cluster.nodes[static_cast<size_t>(n)];
    switch (kind_) {
      case SharePolicyKind::DotProduct: return artifact_dot_product_score(node, pod);
      case SharePolicyKind::BestFit: return artifact_best_fit_raw_score(node, pod);
      case SharePolicyKind::GpuPacking: return artifact_gpu_packing_score(node, pod);
      case SharePolicyKind::GpuClustering: {
        const auto it = classes_.find(n);
        if (it == classes_.end()) return artifact_gpu_clustering_score(node, pod, 0, 0);
        const auto same = it->second.find(pod_class(pod));
        return artifact_gpu_clustering_score(node, pod, same == it->second.end() ? 0 : same->second,
                                             static_cast<int>(it->second.size()));
      }
      case SharePolicyKind::Fgd: {
        const std::optional<int64_t> growth = tracker_->placement_growth(cluster, n, pod);
        return artifact_fgd_score(static_cast<double>(growth.value_or(0)) / static_cast<double>(tracker_->weight_total()));
      }
      default: return 0;
    }
  }

  // The highest score; among equals the node first in the run's order.
  int choose() const {
    size_t best = 0;
    for (size_t i = 1; i < fitting_.size(); ++i) {
      const bool higher = scores_[i] > scores_[best];
      const bool earlier =
          scores_[i] == scores_[best] && ranks_[static_cast<size_t>(fitting_[i])] < ranks_[static_cast<size_t>(fitting_[best])];
      if (higher || earlier) best = i;
    }
    return fitting_[best];
  }

  std::vector<int> cards(const ShareCluster& cluster, const ShareNode& node, int n, const PodRequest& pod) {
    if (kind_ == SharePolicyKind::Fgd) return tracker_->least_growth_cards(cluster, n, pod);
    if (kind_ != SharePolicyKind::Random || !share_pod(pod)) return best_cards(node, pod);
    std::vector<int> fit;
    for (int g = 0; g < static_cast<int>(node.cards.size()); ++g)
      if (card_fits(node, g, pod.gpu)) fit.push_back(g);
    return {fit[draw(fit.size())]};
  }

  size_t draw(size_t n) { return static_cast<size_t>(engine_() % n); }

  SharePolicyKind kind_;
  uint64_t seed_;
  FragmentationTracker* tracker_;
  std::mt19937_64 engine_;
  std::vector<int> ranks_;
  std::vector<int> fitting_, scores_;
  std::map<int, std::map<int, int>> classes_;  // node -> GPU pod class -> pods placed
};

}  // namespace

std::vector<int> artifact_node_ranks(size_t nodes, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<int> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = nodes; i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(engine() % i)]);
  std::vector<int> rank(nodes);
  for (size_t position = 0; position < nodes; ++position) rank[static_cast<size_t>(order[position])] = static_cast<int>(position);
  return rank;
}

int artifact_dot_product_score(const ShareNode& node, const PodRequest& pod) {
  const double cpu = static_cast<double>(free_cpu(node)) / kMaxSpecCpu * (static_cast<double>(pod.cpu_milli) / kMaxSpecCpu);
  const double gpu = static_cast<double>(node.free_milli) / kMaxSpecGpu * (static_cast<double>(total_share(pod)) / kMaxSpecGpu);
  return static_cast<int>(kMaxScore * (1 - (cpu + gpu) / 2));
}

int artifact_best_fit_raw_score(const ShareNode& node, const PodRequest& pod) {
  const double left = 0.5 * static_cast<double>(free_cpu(node) - pod.cpu_milli) / kMaxSpecCpu +
                      0.5 * static_cast<double>(node.free_milli - total_share(pod)) / kMaxSpecGpu;
  return static_cast<int>((1 - left) * kMaxScore);
}

void artifact_rescale_scores(std::vector<int>& scores) {
  if (scores.empty()) return;
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const int low = *lo, range = *hi - *lo;
  for (int& s : scores) s = range == 0 ? 0 : (s - low) * kMaxScore / range;
}

int artifact_gpu_packing_score(const ShareNode& node, const PodRequest& pod) {
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

int artifact_gpu_clustering_score(const ShareNode& node, const PodRequest& pod, int same_class, int classes) {
  if (pod.gpu.kind == GpuAskKind::None) return 0;
  const int64_t used = static_cast<int64_t>(kMaxSpecGpu) - node.free_milli;
  const int base = static_cast<int>(kMaxScore / 4 * used / static_cast<int64_t>(kMaxSpecGpu));
  if (same_class > 0) return base + (classes == 1 ? kMaxScore * 3 / 4 : kMaxScore * 2 / 4);
  return base + (classes == 0 ? kMaxScore / 4 : 0);
}

int artifact_fgd_score(double growth_milli) {
  return static_cast<int>(1.0 / (1.0 + std::exp(growth_milli / 1000.0)) * kMaxScore);
}

Expected<std::unique_ptr<SharePolicy>> make_artifact_policy(SharePolicyKind kind, const SharePolicyContext& context) {
  if (kind == SharePolicyKind::Binpack || kind == SharePolicyKind::Spread)
    return Error{"policy " + std::string(enum_name(kind)) + " has no version in the FGD artifact"};
  if (kind == SharePolicyKind::FgdPack) return make_share_policy(kind, context);  // topsim's own: the same policy
  if (kind == SharePolicyKind::Fgd && !context.fragmentation)
    return Error{"policy fgd needs a fragmentation tracker (target workload)"};
  return std::unique_ptr<SharePolicy>(std::make_unique<ArtifactPolicy>(kind, context));
}

}  // namespace topsim
