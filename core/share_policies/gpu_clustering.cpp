// gpu-clustering (FGD baseline): group tasks of equal per-card share: first a card whose pods all
// ask the same share as this one, then an idle card, then any card; whole-GPU pods prefer nodes
// already running whole-GPU pods, then idle nodes; within a tier the fullest card. The
// artifact's GpuClusteringScore: pod classes "share" (one card, share < 1000) and "k whole
// cards"; CPU-only pods 0. With b = 25 x (8000 - free_gpu) / 8000 (integers): the node runs only
// pods of the pod's class: 75 + b; that class among others: 50 + b; no GPU pod: 25 + b; only
// other classes: b. The classes of a node are those of the pods this policy placed there (fill
// experiments: nothing departs).
#include <algorithm>
#include <map>

#include "core/share_policies/policy_support.h"

namespace topsim {

int artifact_gpu_clustering_score(const ShareNode& node, const PodRequest& pod, int same_class, int classes) {
  using namespace share_policy;
  if (pod.gpu.kind == GpuAskKind::None) return 0;
  const int64_t used = static_cast<int64_t>(kMaxSpecGpu) - node.free_milli;
  const int base = static_cast<int>(kMaxScore / 4 * used / static_cast<int64_t>(kMaxSpecGpu));
  if (same_class > 0) return base + (classes == 1 ? kMaxScore * 3 / 4 : kMaxScore * 2 / 4);
  return base + (classes == 0 ? kMaxScore / 4 : 0);
}

namespace share_policy {
namespace {

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

// GpuClustering's pod class: 0 CPU-only, -1 a share of one card, k for k whole cards.
int pod_class(const PodRequest& pod) {
  if (pod.gpu.kind == GpuAskKind::None) return 0;
  return share_pod(pod) ? -1 : pod.gpu.count;
}

class ArtifactGpuClustering final : public ArtifactPolicy {
 public:
  using ArtifactPolicy::ArtifactPolicy;

 private:
  int score(const ShareCluster& cluster, int n, const PodRequest& pod) override {
    const ShareNode& node = cluster.nodes[static_cast<size_t>(n)];
    const auto it = classes_.find(n);
    if (it == classes_.end()) return artifact_gpu_clustering_score(node, pod, 0, 0);
    const auto same = it->second.find(pod_class(pod));
    return artifact_gpu_clustering_score(node, pod, same == it->second.end() ? 0 : same->second,
                                         static_cast<int>(it->second.size()));
  }
  void placed(int node, const PodRequest& pod) override {
    if (pod_class(pod) != 0) ++classes_[node][pod_class(pod)];
  }

  std::map<int, std::map<int, int>> classes_;  // node -> GPU pod class -> pods placed
};

}  // namespace

const Entry kGpuClustering{SharePolicyKind::GpuClustering,
                           [](const SharePolicyContext&) { return make_scored_policy(gpu_clustering_score); },
                           make_artifact<ArtifactGpuClustering>};

}  // namespace share_policy
}  // namespace topsim
