#include "core/share_policies.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <map>
#include <random>

#include <utility>
#include "core/artifact_policies.h"

namespace topsim {
namespace {

// FGD paper's BestFit baseline: CPU and GPU leftovers weighted equally.
constexpr double kBestFitCpuWeight = 0.5;
constexpr double kBestFitGpuWeight = 0.5;

// What the scores read about a node, computed once per node and pod.
struct NodeView {
  const ShareNode& node;
  const PodRequest& pod;
  double cpu_free, cpu_after, cpu_capacity;  // CPU milli
  double gpu_free, gpu_after, gpu_capacity;  // GPU milli
  double pod_gpu;                            // the pod's total GPU milli
  int card_demand_milli;                     // the pod's share of one card
  bool in_use;                               // some card has a pod
};

// One candidate card (index -1 when the ask does not choose a card: CPU-only or whole cards).
struct CardView {
  int index = -1;
  double free_units = 0;   // free capacity in the ask's unit: GiB for memory shares, else milli
  double after_units = 0;  // the same after placement
  int tasks = 0;
  int demand_milli = 0;  // CardState::demand_milli
};

struct Score {
  double primary = 0;
  double secondary = 0;
};

bool better(const Score& a, const Score& b) {
  return a.primary < b.primary || (a.primary == b.primary && a.secondary < b.secondary);
}

// Asks that choose one card among several (whole single cards take the lowest idle one).
bool single_card(const GpuAsk& ask) { return ask.kind == GpuAskKind::Mem || (ask.kind == GpuAskKind::Milli && ask.count == 1); }

int card_mem(const ShareNode& node) { return node.cards.empty() ? 0 : node.cards.front().mem_total_gib; }

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

bool same_score_inputs(const CardView& a, const CardView& b) {
  return a.free_units == b.free_units && a.tasks == b.tasks && a.demand_milli == b.demand_milli;
}

Score binpack_score(const NodeView& v, const CardView& c) {
  if (v.pod.gpu.kind == GpuAskKind::None) return {v.cpu_after, 0};
  return {c.after_units, v.gpu_after};
}

Score spread_score(const NodeView& v, const CardView& c) {
  if (v.pod.gpu.kind == GpuAskKind::None) return {-v.cpu_free, 0};
  return {-c.free_units, -v.gpu_free};
}

Score best_fit_score(const NodeView& v, const CardView& c) {
  return {kBestFitCpuWeight * v.cpu_after / v.cpu_capacity + kBestFitGpuWeight * v.gpu_after / v.gpu_capacity, c.after_units};
}

Score dot_product_score(const NodeView& v, const CardView& c) {
  const double cpu = static_cast<double>(v.pod.cpu_milli) / v.cpu_capacity * v.cpu_free / v.cpu_capacity;
  const double gpu = v.pod_gpu / v.gpu_capacity * v.gpu_free / v.gpu_capacity;
  return {-(cpu + gpu), c.after_units};
}

Score gpu_packing_score(const NodeView& v, const CardView& c) {
  if (v.pod.gpu.kind == GpuAskKind::None) return {v.node.pods > 0 ? 0.0 : 1.0, 0};
  const double tier = c.index >= 0 && c.tasks > 0 ? 0 : v.in_use ? 1 : 2;
  return {tier, c.after_units};
}

Score gpu_clustering_score(const NodeView& v, const CardView& c) {
  if (v.pod.gpu.kind == GpuAskKind::None) return {v.node.pods > 0 ? 0.0 : 1.0, v.cpu_after};
  if (c.index < 0) {
    const bool whole_neighbours = std::any_of(v.node.cards.begin(), v.node.cards.end(),
                                              [](const CardState& card) { return card.demand_milli == kMilliPerGpu; });
    return {whole_neighbours ? 0.0 : v.in_use ? 2.0 : 1.0, v.gpu_after};
  }
  const double tier = c.tasks > 0 && c.demand_milli == v.card_demand_milli ? 0 : c.tasks == 0 ? 1 : 2;
  return {tier, c.after_units};
}

using ScoreFn = Score (*)(const NodeView&, const CardView&);

// Policies that minimise a score over every (node, card) candidate. Cards of one node whose
// score inputs are equal score equally, so only the lowest-index one of them is scored.
class ScoredPolicy final : public SharePolicy {
 public:
  explicit ScoredPolicy(ScoreFn score) : score_(score) {}

  std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) override {
    int best_node = -1, best_card = -1;
    Score best;
    std::vector<CardView> seen;
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
      seen.clear();
      for (int g = 0; g < static_cast<int>(node.cards.size()); ++g) {
        if (!card_fits(node, g, pod.gpu)) continue;
        const CardView card = card_view(view, g);
        if (std::any_of(seen.begin(), seen.end(), [&](const CardView& s) { return same_score_inputs(s, card); })) continue;
        seen.push_back(card);
        consider(card);
      }
    }
    if (best_node < 0) return std::nullopt;
    return finish(cluster, pod, best_node, best_card);
  }

  static SharePlacement finish(const ShareCluster& cluster, const PodRequest& pod, int node, int card) {
    SharePlacement placement{node, {}};
    if (card >= 0)
      placement.cards = {card};
    else if (pod.gpu.kind != GpuAskKind::None)
      placement.cards = lowest_idle_cards(cluster.nodes[static_cast<size_t>(node)], pod.gpu.count);
    return placement;
  }

 private:
  ScoreFn score_;
};

class RandomPolicy final : public SharePolicy {
 public:
  explicit RandomPolicy(uint64_t seed) : engine_(seed) {}

  std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) override {
    std::vector<int> fitting;
    for (int n = 0; n < static_cast<int>(cluster.nodes.size()); ++n) {
      if (node_fits(cluster.nodes[static_cast<size_t>(n)], pod)) fitting.push_back(n);
    }
    if (fitting.empty()) return std::nullopt;
    const int node = fitting[draw(fitting.size())];
    if (!single_card(pod.gpu)) return ScoredPolicy::finish(cluster, pod, node, -1);
    const ShareNode& chosen = cluster.nodes[static_cast<size_t>(node)];
    std::vector<int> cards;
    for (int g = 0; g < static_cast<int>(chosen.cards.size()); ++g) {
      if (card_fits(chosen, g, pod.gpu)) cards.push_back(g);
    }
    return SharePlacement{node, {cards[draw(cards.size())]}};
  }

 private:
  size_t draw(size_t n) { return static_cast<size_t>(engine_() % n); }
  std::mt19937_64 engine_;
};

// FGD: the node where the pod grows the cluster's fragmentation least, ties to the lowest
// index. A node's growth for a pod depends on that node alone, so for each pod shape the
// growths live in a min-tree over the nodes and a query re-evaluates only the nodes changed
// since that shape's last query (the tracker's change log): the answer of a scan of every
// node, at the cost of the changes in between.
class FgdPolicy final : public SharePolicy {
 public:
  explicit FgdPolicy(FragmentationTracker& tracker) : tracker_(&tracker) {}

  std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) override {
    GrowthTree& tree = trees_[shape_of(pod)];
    refresh(tree, cluster, pod);
    const auto [growth, best_node] = tree.slots[1];
    if (growth == kNoFit) return std::nullopt;
    return SharePlacement{best_node, tracker_->least_growth_cards(cluster, best_node, pod)};
  }

 private:
  static constexpr int64_t kNoFit = INT64_MAX;
  using Shape = std::array<int64_t, 9>;
  using Slot = std::pair<int64_t, int>;  // (growth, node): the least is the choice
  struct GrowthTree {
    std::vector<Slot> slots;  // 1-based heap layout: leaves at [leaves, 2 x leaves)
    size_t leaves = 0;
    uint64_t synced = 0;  // change log position evaluated up to
    bool built = false;
  };

  static Shape shape_of(const PodRequest& pod) {
    return {pod.cpu_milli, pod.memory_mib,         static_cast<int64_t>(pod.gpu.kind),
            pod.gpu.count, pod.gpu.mem_gib,        pod.gpu.core_percent.value_or(-1),
            pod.gpu.milli, pod.gpu.topology_aware, pod.gpu_type_mask};
  }

  void set(GrowthTree& tree, const ShareCluster& cluster, const PodRequest& pod, int node) {
    const std::optional<int64_t> growth = tracker_->placement_growth(cluster, node, pod);
    size_t i = tree.leaves + static_cast<size_t>(node);
    tree.slots[i] = {growth.value_or(kNoFit), node};
    for (i /= 2; i >= 1; i /= 2) tree.slots[i] = std::min(tree.slots[2 * i], tree.slots[2 * i + 1]);
  }

  void refresh(GrowthTree& tree, const ShareCluster& cluster, const PodRequest& pod) {
    const size_t nodes = cluster.nodes.size();
    const uint64_t end = tracker_->change_log_end();
    if (!tree.built || tree.synced < tracker_->change_log_begin() || end - tree.synced > nodes) {
      tree.leaves = 1;
      while (tree.leaves < nodes) tree.leaves *= 2;
      tree.slots.assign(2 * tree.leaves, {kNoFit, INT_MAX});
      for (size_t n = 0; n < nodes; ++n) {
        const std::optional<int64_t> growth = tracker_->placement_growth(cluster, static_cast<int>(n), pod);
        tree.slots[tree.leaves + n] = {growth.value_or(kNoFit), static_cast<int>(n)};
      }
      for (size_t i = tree.leaves - 1; i >= 1; --i) tree.slots[i] = std::min(tree.slots[2 * i], tree.slots[2 * i + 1]);
      tree.built = true;
    } else {
      for (uint64_t p = tree.synced; p < end; ++p) set(tree, cluster, pod, tracker_->changed_node(p));
    }
    tree.synced = end;
  }

  FragmentationTracker* tracker_;
  std::map<Shape, GrowthTree> trees_;
};

// fgd-pack (share_policies.h): the artifact's integer FGD score, ties by gpu-packing's tier,
// then in the run's seeded node order.
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

ScoreFn score_function(SharePolicyKind kind) {
  switch (kind) {
    case SharePolicyKind::Binpack: return binpack_score;
    case SharePolicyKind::Spread: return spread_score;
    case SharePolicyKind::BestFit: return best_fit_score;
    case SharePolicyKind::DotProduct: return dot_product_score;
    case SharePolicyKind::GpuPacking: return gpu_packing_score;
    case SharePolicyKind::GpuClustering: return gpu_clustering_score;
    default: return nullptr;
  }
}

}  // namespace

Expected<SharePolicyKind> card_placement_from_labels(const std::map<std::string, std::string>& labels) {
  const auto it = labels.find(std::string(kCardPlacementLabel));
  if (it == labels.end() || it->second == "spread") return SharePolicyKind::Spread;
  if (it->second == "binpack") return SharePolicyKind::Binpack;
  return Error{std::string(kCardPlacementLabel) + "=" + it->second + ": unknown card placement (expected binpack or spread)"};
}

Expected<std::unique_ptr<SharePolicy>> make_share_policy(SharePolicyKind kind, const SharePolicyContext& context) {
  if (kind == SharePolicyKind::Random) return std::unique_ptr<SharePolicy>(std::make_unique<RandomPolicy>(context.seed));
  if (kind == SharePolicyKind::Fgd) {
    if (!context.fragmentation) return Error{"policy fgd needs a fragmentation tracker (target workload)"};
    return std::unique_ptr<SharePolicy>(std::make_unique<FgdPolicy>(*context.fragmentation));
  }
  if (kind == SharePolicyKind::FgdPack) {
    if (!context.fragmentation) return Error{"policy fgd-pack needs a fragmentation tracker (target workload)"};
    return std::unique_ptr<SharePolicy>(std::make_unique<FgdPackPolicy>(*context.fragmentation, context.seed));
  }
  return std::unique_ptr<SharePolicy>(std::make_unique<ScoredPolicy>(score_function(kind)));
}

}  // namespace topsim
