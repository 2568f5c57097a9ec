// best-fit (FGD baseline): the least weighted CPU + GPU leftover on the node after placement
// (0.5 / 0.5, the FGD paper's BestFit), then the fullest card. The artifact's BestFitScore:
// raw = 100 x (1 - 0.5 (free_cpu - req_cpu) / 128000 - 0.5 (free_gpu - req_gpu) / 8000),
// truncated, then rescaled over the fitting nodes to (raw - lo) x 100 / (hi - lo) in integers.
#include <algorithm>

#include "core/share_policies/policy_support.h"

namespace topsim {

int artifact_best_fit_raw_score(const ShareNode& node, const PodRequest& pod) {
  using namespace share_policy;
  const double left = 0.5 * static_cast<double>(free_cpu(node) - pod.cpu_milli) / kMaxSpecCpu +
                      0.5 * static_cast<double>(node.free_milli - total_share(pod)) / kMaxSpecGpu;
  return static_cast<int>((1 - left) * kMaxScore);
}

void artifact_rescale_scores(std::vector<int>& scores) {
  if (scores.empty()) return;
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const int low = *lo, range = *hi - *lo;
  for (int& s : scores) s = range == 0 ? 0 : (s - low) * share_policy::kMaxScore / range;
}

namespace share_policy {
namespace {

// FGD paper's BestFit baseline: CPU and GPU leftovers weighted equally.
constexpr double kCpuWeight = 0.5;
constexpr double kGpuWeight = 0.5;

Score best_fit_score(const NodeView& v, const CardView& c) {
  return {kCpuWeight * v.cpu_after / v.cpu_capacity + kGpuWeight * v.gpu_after / v.gpu_capacity, c.after_units};
}

// The raw scores, rescaled over the fitting nodes before the choice.
class ArtifactBestFit final : public NodeScoredArtifactPolicy<artifact_best_fit_raw_score> {
 public:
  using NodeScoredArtifactPolicy::NodeScoredArtifactPolicy;

 private:
  void adjust(std::vector<int>& scores) const override { artifact_rescale_scores(scores); }
};

}  // namespace

const Entry kBestFit{SharePolicyKind::BestFit, [](const SharePolicyContext&) { return make_scored_policy(best_fit_score); },
                     make_artifact<ArtifactBestFit>};

}  // namespace share_policy
}  // namespace topsim
