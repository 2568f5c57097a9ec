// INTERNAL to core's share policies (core/share_policies/*.cpp, one file per policy, and the
// table in core/share_policies.cpp): what a policy file needs to state its scores and nothing
// else — the views of a node and a card that scores read, the two scans (topsim's lexicographic
// minimum over every fitting node and card; the FGD artifact's highest integer node score with
// seeded ties), and the registration entry.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "core/artifact_policies.h"
#include "core/share_policies.h"

namespace topsim::share_policy {

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

// Minimised lexicographically: primary, then secondary.
struct Score {
  double primary = 0;
  double secondary = 0;
};
bool better(const Score& a, const Score& b);

// Asks that choose one card among several (whole single cards take the lowest idle one).
bool single_card(const GpuAsk& ask);
NodeView node_view(const ShareNode& node, const PodRequest& pod);
CardView card_view(const NodeView& view, int index);

using ScoreFn = Score (*)(const NodeView&, const CardView&);
// topsim's scan: the (node, card) of least score among the fitting ones; ties to the lowest node,
// then card index. Cards of one node whose score inputs are equal score equally, so only the
// lowest-index one of them is scored. Multi-card and whole-card asks take the lowest idle cards.
std::unique_ptr<SharePolicy> make_scored_policy(ScoreFn score);
// The placement of `pod` on `node` with `card` (-1: the lowest idle cards its ask needs).
SharePlacement finish_placement(const ShareCluster& cluster, const PodRequest& pod, int node, int card);

// The FGD artifact's scan (core/artifact_policies.h): integer scores of the fitting nodes, the
// highest wins, equals in the run's seeded node order. A policy file overrides `score` and, where
// its plugin differs, the hooks.
class ArtifactPolicy : public SharePolicy {
 public:
  explicit ArtifactPolicy(const SharePolicyContext& context);
  std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) final;

 protected:
  // REQUIRES: node_fits(cluster.nodes[node], pod).
  virtual int score(const ShareCluster& cluster, int node, const PodRequest& pod) = 0;
  // The scores of every fitting node, before the choice (BestFit rescales them).
  virtual void adjust(std::vector<int>& scores) const { (void)scores; }
  // The chosen node among `fitting` (positions into `scores`); default: the highest score, ties
  // to the node first in the run's order.
  virtual int choose(const std::vector<int>& fitting, const std::vector<int>& scores);
  // The cards on the chosen node; default: Open-Gpu-Share's "best" selection (best_cards).
  virtual std::vector<int> cards(const ShareCluster& cluster, int node, const PodRequest& pod);
  // After a placement (GpuClustering keeps the classes it placed per node).
  virtual void placed(int node, const PodRequest& pod) { (void)node, (void)pod; }

  const SharePolicyContext& context() const { return context_; }

 private:
  SharePolicyContext context_;
  std::vector<int> ranks_;  // the run's node order (artifact_node_ranks)
  std::vector<int> fitting_, scores_;
};

// An artifact policy whose score reads the node alone (dot-product, best-fit, gpu-packing).
template <int (*NodeScore)(const ShareNode&, const PodRequest&)>
class NodeScoredArtifactPolicy : public ArtifactPolicy {
 public:
  using ArtifactPolicy::ArtifactPolicy;

 protected:
  int score(const ShareCluster& cluster, int node, const PodRequest& pod) override {
    return NodeScore(cluster.nodes[static_cast<size_t>(node)], pod);
  }
};

// The factory of an artifact policy class.
template <class Policy>
std::unique_ptr<SharePolicy> make_artifact(const SharePolicyContext& context) {
  return std::make_unique<Policy>(context);
}

// The artifact's normalisers (pkg/type/open-gpu-share/utils/const.go: MaxSpecCpu, MaxSpecGpu)
// and kube-scheduler's score range.
inline constexpr double kMaxSpecCpu = 128000;
inline constexpr double kMaxSpecGpu = 8000;
inline constexpr int kMaxScore = 100;

int64_t free_cpu(const ShareNode& node);
int card_share(const PodRequest& pod);       // thousandths of one card
int64_t total_share(const PodRequest& pod);  // thousandths over all its cards
bool share_pod(const PodRequest& pod);       // one card, less than all of it
// Open-Gpu-Share's "best" GPU selection: a share takes the fullest card that fits (first index
// among equals); whole cards the lowest-index idle ones.
std::vector<int> best_cards(const ShareNode& node, const PodRequest& pod);
// A uniform draw in [0, n): engine() % n, as the artifact's Go code draws.
size_t draw_index(std::mt19937_64& engine, size_t n);

// gpu-packing's score (core/share_policies/gpu_packing.cpp), whose tier fgd-pack's ties read.
Score gpu_packing_score(const NodeView& view, const CardView& card);

// One policy: its kind, topsim's version and the artifact's (null: none), each a factory.
// REQUIRES of a factory: what its policy needs of `context` (fgd: a tracker) was checked.
struct Entry {
  SharePolicyKind kind;
  std::unique_ptr<SharePolicy> (*make)(const SharePolicyContext& context);
  std::unique_ptr<SharePolicy> (*make_artifact)(const SharePolicyContext& context);  // may be null
  bool needs_fragmentation = false;
};

// The entries, one per policy file (the table in core/share_policies.cpp lists them).
extern const Entry kBinpack, kSpread, kBestFit, kDotProduct, kGpuPacking, kGpuClustering, kRandom, kFgd, kFgdPack;

}  // namespace topsim::share_policy
