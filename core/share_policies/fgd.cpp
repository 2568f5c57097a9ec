// fgd (FGD, "Beware of Fragmentation", USENIX ATC '23): the node and card whose placement grows
// the cluster fragmentation F least (FragmentationTracker::placement_growth; a share tries every
// card of the node), ties to the lowest node index. The artifact's FGDScore: floor(100 x
// sigmoid(-growth / 1000)) with growth in thousandths of a GPU, popularity-weighted; the card is
// the least-growth choice.
#include <array>
#include <climits>
#include <cmath>
#include <map>

#include "core/share_policies/policy_support.h"

namespace topsim {

int artifact_fgd_score(double growth_milli) {
  return static_cast<int>(1.0 / (1.0 + std::exp(growth_milli / 1000.0)) * share_policy::kMaxScore);
}

namespace share_policy {
namespace {

// A node's growth for a pod depends on that node alone, so for each pod shape the growths live
// in a min-tree over the nodes and a query re-evaluates only the nodes changed since that
// shape's last query (the tracker's change log): the answer of a scan of every node, at the
// cost of the changes in between.
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

class ArtifactFgd final : public ArtifactPolicy {
 public:
  using ArtifactPolicy::ArtifactPolicy;

 private:
  int score(const ShareCluster& cluster, int n, const PodRequest& pod) override {
    FragmentationTracker& tracker = *context().fragmentation;
    const std::optional<int64_t> growth = tracker.placement_growth(cluster, n, pod);
    return artifact_fgd_score(static_cast<double>(growth.value_or(0)) / static_cast<double>(tracker.weight_total()));
  }
  std::vector<int> cards(const ShareCluster& cluster, int node, const PodRequest& pod) override {
    return context().fragmentation->least_growth_cards(cluster, node, pod);
  }
};

}  // namespace

const Entry kFgd{
    SharePolicyKind::Fgd,
    [](const SharePolicyContext& c) -> std::unique_ptr<SharePolicy> { return std::make_unique<FgdPolicy>(*c.fragmentation); },
    make_artifact<ArtifactFgd>, true};

}  // namespace share_policy
}  // namespace topsim
