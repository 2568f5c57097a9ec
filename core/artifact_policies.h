// The FGD experiment's policies as the paper's artifact implements them
// (hkust-adsl/kubernetes-scheduler-simulator, the score plugins of pkg/simulator/plugin/ run by
// kube-scheduler with one score plugin enabled): integer node scores 0..100, the highest wins,
// ties go to the node that comes first in a per-run random order of the nodes (the artifact
// prefixes every node name with its index in a seeded permutation and kube-scheduler's
// selectHost keeps the lexicographically smallest name among equal scores). The card then comes
// from the plugin's GPU selection. docs/fill-scenarios.md ("Artifact protocol") cites each rule.
//
// Each policy's file (core/share_policies/<name>.cpp) states its artifact score beside topsim's;
// every policy considers only the nodes where `node_fits` holds (the artifact's filters: CPU,
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

// The artifact's version of `kind` (random, dot-product, best-fit, gpu-packing, gpu-clustering,
// fgd, and fgd-pack as it is; binpack and spread have none: error).
// `context.seed` seeds the tie order (and random's draws); fgd needs `context.fragmentation`.
bool has_artifact_version(SharePolicyKind kind);
Expected<std::unique_ptr<SharePolicy>> make_artifact_policy(SharePolicyKind kind, const SharePolicyContext& context);

}  // namespace topsim
