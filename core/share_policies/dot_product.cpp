// dot-product (FGD baseline, Tetris-like): the largest alignment (cpu_req / cpu_cap) x
// (cpu_free / cpu_cap) + (gpu_req / gpu_cap) x (gpu_free / gpu_cap) with the node's free
// resources before placement, then the fullest card. The artifact's DotProductScore (merge/max):
// 100 x (1 - (free_cpu req_cpu / 128000^2 + free_gpu req_gpu / 8000^2) / 2), truncated: the
// smallest alignment with the largest node spec wins.
#include "core/share_policies/policy_support.h"

namespace topsim {

int artifact_dot_product_score(const ShareNode& node, const PodRequest& pod) {
  using namespace share_policy;
  const double cpu = static_cast<double>(free_cpu(node)) / kMaxSpecCpu * (static_cast<double>(pod.cpu_milli) / kMaxSpecCpu);
  const double gpu = static_cast<double>(node.free_milli) / kMaxSpecGpu * (static_cast<double>(total_share(pod)) / kMaxSpecGpu);
  return static_cast<int>(kMaxScore * (1 - (cpu + gpu) / 2));
}

namespace share_policy {
namespace {

Score dot_product_score(const NodeView& v, const CardView& c) {
  const double cpu = static_cast<double>(v.pod.cpu_milli) / v.cpu_capacity * v.cpu_free / v.cpu_capacity;
  const double gpu = v.pod_gpu / v.gpu_capacity * v.gpu_free / v.gpu_capacity;
  return {-(cpu + gpu), c.after_units};
}

}  // namespace

const Entry kDotProduct{SharePolicyKind::DotProduct,
                        [](const SharePolicyContext&) { return make_scored_policy(dot_product_score); },
                        make_artifact<NodeScoredArtifactPolicy<artifact_dot_product_score>>};

}  // namespace share_policy
}  // namespace topsim
