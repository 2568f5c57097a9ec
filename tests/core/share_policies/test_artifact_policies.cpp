// The FGD artifact's policies (core/artifact_policies.h) on hand-built nodes: each score's
// integer rule, the seeded tie order, and topsim's fgd-pack.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "core/artifact_policies.h"
#include "core/fragmentation.h"
#include "core/gpu_share.h"

using namespace topsim;

namespace {

PodRequest pod_of(int milli, int cards, int64_t cpu_milli = 0) {
  PodRequest pod;
  pod.cpu_milli = cpu_milli;
  if (cards > 0) pod.gpu = GpuAsk::milli_share(milli, cards);
  return pod;
}

// A milli-mode node with `cards` cards, the given thousandths already used on the first ones.
ShareNode node_of(int cards, std::vector<int> used = {}, int64_t cpu_milli = 96000) {
  ShareNode node = make_share_node("n", NodeMode::Milli, 0, cards, 0, cpu_milli, 1 << 20);
  for (size_t g = 0; g < used.size(); ++g)
    if (used[g] > 0) apply_placement(node, pod_of(used[g], 1), {static_cast<int>(g)});
  return node;
}

std::optional<SharePlacement> place(SharePolicyKind kind, const ShareCluster& cluster, const PodRequest& pod, uint64_t seed = 1) {
  auto policy = make_artifact_policy(kind, SharePolicyContext{seed, nullptr});
  REQUIRE(policy.ok());
  return (*policy)->place(cluster, pod);
}

}  // namespace

TEST_CASE("core::artifact tie order: a seeded permutation of the nodes", "[core][artifact]") {
  const std::vector<int> ranks = artifact_node_ranks(50, 7);
  CHECK(std::set<int>(ranks.begin(), ranks.end()).size() == 50);
  CHECK(*std::max_element(ranks.begin(), ranks.end()) == 49);
  CHECK(ranks == artifact_node_ranks(50, 7));
  CHECK(ranks != artifact_node_ranks(50, 8));
  SECTION("equal scores go to the node first in the run's order, not to the lowest index") {
    ShareCluster cluster;
    cluster.nodes = {node_of(8), node_of(8), node_of(8)};
    std::set<int> chosen;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
      const auto placement = place(SharePolicyKind::GpuPacking, cluster, pod_of(500, 1), seed);
      REQUIRE(placement);
      const std::vector<int> r = artifact_node_ranks(3, seed);
      CHECK(r[static_cast<size_t>(placement->node)] == 0);
      chosen.insert(placement->node);
    }
    CHECK(chosen.size() == 3);
  }
}

TEST_CASE("core::artifact dot-product: the smallest product, normalised by the largest node spec", "[core][artifact]") {
  // 8 idle cards, 96 free cores; pod 8 cores + half a card:
  // 100 x (1 - (0.75 x 0.0625 + 1 x 0.0625) / 2) = 94.53 -> 94; on 2 idle cards 96.875 -> 96.
  CHECK(artifact_dot_product_score(node_of(8), pod_of(500, 1, 8000)) == 94);
  CHECK(artifact_dot_product_score(node_of(2), pod_of(500, 1, 8000)) == 96);
  ShareCluster cluster;
  cluster.nodes = {node_of(8), node_of(2)};
  const auto placement = place(SharePolicyKind::DotProduct, cluster, pod_of(500, 1, 8000));
  REQUIRE(placement);
  CHECK(placement->node == 1);
  SECTION("the card: the fullest that fits") {
    cluster.nodes = {node_of(4, {0, 600, 300})};
    const auto on = place(SharePolicyKind::DotProduct, cluster, pod_of(300, 1));
    REQUIRE(on);
    CHECK(on->cards == std::vector<int>{1});
  }
}

TEST_CASE("core::artifact best-fit: absolute leftovers, rescaled min-max to 0..100", "[core][artifact]") {
  // 64 free cores, 2 idle cards, a whole-card pod without CPU: 1 - (0.25 + 0.0625) = 0.6875 -> 68.
  CHECK(artifact_best_fit_raw_score(node_of(2, {}, 64000), pod_of(1000, 1)) == 68);
  std::vector<int> scores = {68, 50, 59};
  artifact_rescale_scores(scores);
  CHECK(scores == std::vector<int>{100, 0, 50});
  std::vector<int> equal = {7, 7};
  artifact_rescale_scores(equal);
  CHECK(equal == std::vector<int>{0, 0});
}

TEST_CASE("core::artifact gpu-packing: shared card, then idle card on a used node, then idle node", "[core][artifact]") {
  CHECK(artifact_gpu_packing_score(node_of(8), pod_of(200, 1)) == 25);              // max(33 - 8, 8)
  CHECK(artifact_gpu_packing_score(node_of(2), pod_of(200, 1)) == 31);              // max(33 - 2, 2)
  CHECK(artifact_gpu_packing_score(node_of(8, {700}), pod_of(200, 1)) == 97);       // 100 - 30 / 10
  CHECK(artifact_gpu_packing_score(node_of(8, {700}), pod_of(1000, 1)) == 49);      // 50 - 1 idle card taken
  CHECK(artifact_gpu_packing_score(node_of(8, {700}), pod_of(1000, 2)) == 48);      // 50 - 2
  CHECK(artifact_gpu_packing_score(node_of(8, {700, 100}), pod_of(200, 1)) == 97);  // the fullest card that fits
  CHECK(artifact_gpu_packing_score(node_of(8, {900, 500}), pod_of(50, 1)) == 99);   // 100 - 10 / 10
  CHECK(artifact_gpu_packing_score(node_of(8, {700}), pod_of(0, 0, 4000)) == 0);    // CPU-only
}

TEST_CASE("core::artifact gpu-clustering: tiers by the classes of the node's pods", "[core][artifact]") {
  // 2 cards, one holding a share of 500: 1500 free, b = 25 x 6500 / 8000 = 20.
  const ShareNode used = node_of(2, {500});
  CHECK(artifact_gpu_clustering_score(used, pod_of(300, 1), 1, 1) == 95);
  CHECK(artifact_gpu_clustering_score(used, pod_of(300, 1), 1, 2) == 70);
  CHECK(artifact_gpu_clustering_score(used, pod_of(1000, 1), 0, 1) == 20);
  CHECK(artifact_gpu_clustering_score(node_of(8), pod_of(300, 1), 0, 0) == 25);
  CHECK(artifact_gpu_clustering_score(used, pod_of(0, 0, 1000), 0, 1) == 0);
  SECTION("the policy remembers the classes it placed: shares gather on the node of shares") {
    ShareCluster cluster;
    cluster.nodes = {node_of(8), node_of(8)};
    auto policy = make_artifact_policy(SharePolicyKind::GpuClustering, SharePolicyContext{3, nullptr});
    REQUIRE(policy.ok());
    const auto first = (*policy)->place(cluster, pod_of(300, 1));
    REQUIRE(first);
    apply_placement(cluster.nodes[static_cast<size_t>(first->node)], pod_of(300, 1), first->cards);
    const auto second = (*policy)->place(cluster, pod_of(400, 1));
    REQUIRE(second);
    CHECK(second->node == first->node);
    apply_placement(cluster.nodes[static_cast<size_t>(second->node)], pod_of(400, 1), second->cards);
    const auto whole = (*policy)->place(cluster, pod_of(1000, 2));
    REQUIRE(whole);
    CHECK(whole->node != first->node);  // the idle node (25) beats a node of other classes (b = 2)
  }
}

TEST_CASE("core::artifact fgd: the growth through a sigmoid, truncated to an integer", "[core][artifact]") {
  CHECK(artifact_fgd_score(0) == 50);
  CHECK(artifact_fgd_score(1000) == 26);   // 100 / (1 + e) = 26.9
  CHECK(artifact_fgd_score(-1000) == 73);  // 73.1
  CHECK(artifact_fgd_score(40) == 49);     // growths 1..40 thousandths all score 49: ties
  CHECK(artifact_fgd_score(1) == 49);
  CHECK(artifact_fgd_score(100) == 47);
}

TEST_CASE("core::artifact random and unsupported policies", "[core][artifact]") {
  CHECK_FALSE(make_artifact_policy(SharePolicyKind::Binpack, SharePolicyContext{}).ok());
  CHECK_FALSE(make_artifact_policy(SharePolicyKind::Fgd, SharePolicyContext{}).ok());
  ShareCluster cluster;
  cluster.nodes = {node_of(8), node_of(8, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}), node_of(8)};
  std::set<int> chosen;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto placement = place(SharePolicyKind::Random, cluster, pod_of(500, 1), seed);
    REQUIRE(placement);
    chosen.insert(placement->node);
  }
  CHECK(chosen == std::set<int>{0, 2});  // only fitting nodes, both drawn
}

TEST_CASE("core::fgd-pack: the artifact's FGD score, ties packed, then in a seeded order", "[core][artifact]") {
  // Target workload: whole single cards only. Placing a whole card anywhere leaves F at 0
  // (every remaining card is usable), so every node scores 50; fgd takes node 0 (an idle
  // node), fgd-pack the node already in use (gpu-packing's tier).
  const TargetWorkload workload = derive_target_workload({TaskSpec{0, 1000, 1, 0}}, 1.0);
  ShareCluster cluster;
  cluster.nodes = {node_of(4), node_of(4, {1000})};
  FragmentationTracker tracker(workload, cluster);
  auto fgd = make_share_policy(SharePolicyKind::Fgd, SharePolicyContext{0, &tracker});
  auto pack = make_share_policy(SharePolicyKind::FgdPack, SharePolicyContext{0, &tracker});
  REQUIRE(fgd.ok());
  REQUIRE(pack.ok());
  const auto by_fgd = (*fgd)->place(cluster, pod_of(1000, 1));
  const auto by_pack = (*pack)->place(cluster, pod_of(1000, 1));
  REQUIRE(by_fgd);
  REQUIRE(by_pack);
  CHECK(by_fgd->node == 0);
  CHECK(by_pack->node == 1);
  CHECK(by_pack->cards == std::vector<int>{1});
  CHECK_FALSE(make_share_policy(SharePolicyKind::FgdPack, SharePolicyContext{}).ok());
  SECTION("within one tier, the node first in the seeded order") {
    ShareCluster idle;
    idle.nodes = {node_of(4), node_of(4), node_of(4)};
    FragmentationTracker idle_tracker(workload, idle);
    std::set<int> chosen;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
      auto policy = make_share_policy(SharePolicyKind::FgdPack, SharePolicyContext{seed, &idle_tracker});
      REQUIRE(policy.ok());
      const auto placement = (*policy)->place(idle, pod_of(1000, 1));
      REQUIRE(placement);
      CHECK(artifact_node_ranks(3, seed)[static_cast<size_t>(placement->node)] == 0);
      chosen.insert(placement->node);
    }
    CHECK(chosen.size() == 3);
  }
}
