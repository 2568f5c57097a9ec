// The FGD experiment's policies as the paper's artifact implements them
// (hkust-adsl/kubernetes-scheduler-simulator, the score plugins of pkg/simulator/plugin/ run by
// kube-scheduler with one score plugin enabled): integer node scores 0..100, the highest wins,
// ties go to the node that comes first in a per-run random order of the nodes (the artifact
// prefixes every node name with its index in a seeded permutation and kube-scheduler's
// selectHost keeps the lexicographically smallest name among equal scores). The card then comes
// from the plugin's GPU selection. docs/fill-scenarios.md ("Artifact protocol") cites each rule.
//
// Scores of a fitting node n for pod p (cpu in thousandths of a core, gpu in thousandths of a
// card; free_gpu = the node's free share over all cards, req_gpu = count x per-card share):
// - dot-product (DotProductScore, merge/max): 100 x (1 - (free_cpu req_cpu / 128000^2 +
//   free_gpu req_gpu / 8000^2) / 2), truncated: the smallest alignment with the largest node
//   spec (128 cores, 8 cards) wins. Card: the fullest that fits ("best").
// - best-fit (BestFitScore): raw = 100 x (1 - 0.5 (free_cpu - req_cpu) / 128000 - 0.5 (free_gpu -
//   req_gpu) / 8000), truncated, then rescaled over the fitting nodes to (raw - lo) x 100 /
//   (hi - lo) in integers (all 0 when hi = lo). Card: "best".
// - gpu-packing (GpuPackingScore): CPU-only pods 0. A node with every card idle:
//   max(33 - idle cards, idle cards). Otherwise the pod's cards are taken fullest first; if any
//   of them is idle: max(50 - idle cards taken, 33); else max(100 - sum(floor(free x 100 /
//   1000)) / 10, 50). Card: "best".
// - gpu-clustering (GpuClusteringScore): pod classes "share" (one card, share < 1000) and
//   "k whole cards"; CPU-only pods 0. With b = 25 x (8000 - free_gpu) / 8000 (integers): the
//   node runs only pods of the pod's class: 75 + b; runs that class among others: 50 + b; runs
//   no GPU pod: 25 + b; runs only other classes: b. Card: "best". The classes of a node are
//   those of the pods this policy placed there (fill experiments: nothing departs).
// - random (RandomScore): a uniformly drawn fitting node; card: a uniformly drawn fitting one.
// - fgd (FGDScore): floor(100 x sigmoid(-growth / 1000)), growth = the node's fragmentation
//   growth F_n(M) after - before in thousandths of a GPU with popularities p_m (the card choice
//   with the least growth: the highest score). Card: that choice.
// Every policy considers only the nodes where `node_fits` holds (the artifact's filters: CPU,
// memory, GPU type, cards).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/share_policies.h"
#include "util/expected.h"

namespace topsim {

// The node order of ties for a run: rank[n] = position of node n in a uniform permutation drawn
// with std::mt19937_64(seed) (Fisher-Yates from the back, draw = engine() % (i + 1)).
std::vector<int> artifact_node_ranks(size_t nodes, uint64_t seed);

// The integer scores (exposed for tests). Each REQUIRES node_fits(node, pod).
int artifact_dot_product_score(const ShareNode& node, const PodRequest& pod);
int artifact_best_fit_raw_score(const ShareNode& node, const PodRequest& pod);
// BestFit's min-max rescale of raw scores, in place.
void artifact_rescale_scores(std::vector<int>& scores);
int artifact_gpu_packing_score(const ShareNode& node, const PodRequest& pod);
// `same_class`: pods of the pod's class on the node; `classes`: distinct GPU pod classes there.
int artifact_gpu_clustering_score(const ShareNode& node, const PodRequest& pod, int same_class, int classes);
// FGD's score of a growth in thousandths of a GPU (popularity-weighted).
int artifact_fgd_score(double growth_milli);

// The artifact's version of `kind` (the six above; binpack and spread have none: error).
// `context.seed` seeds the tie order (and random's draws); fgd needs `context.fragmentation`.
Expected<std::unique_ptr<SharePolicy>> make_artifact_policy(SharePolicyKind kind, const SharePolicyContext& context);

}  // namespace topsim
