// Node and card selection for pods on shared-GPU nodes: the policies compared by the FGD
// experiment ("Beware of Fragmentation", USENIX ATC '23) plus the gpushare scheduler
// extender's binpack and spread.
//
// A policy is a decision: `place(cluster, pod)` returns the node and cards (or nothing when no
// node fits) and never modifies the cluster; the caller applies the placement (and, for `fgd`,
// tells the FragmentationTracker). Every policy considers only nodes where `node_fits` holds,
// and breaks ties by the lowest node index, then the lowest card index. Multi-GPU pods and
// whole-GPU pods take the lowest-index idle cards of the chosen node (idle cards are
// interchangeable without topology). Scores, each minimised lexicographically:
// - binpack: (free share left on the chosen card, free GPU share left on the node) — the
//   fullest card that still fits, as the gpushare extender's binpack; memory shares measure the
//   card in GiB, others in thousandths. CPU-only pods: the least free CPU left.
// - spread: the opposite — the card, then the node, with the most free share (CPU-only pods:
//   most free CPU).
// - best-fit (FGD baseline): 0.5 x free CPU fraction + 0.5 x free GPU fraction left on the
//   node after placement, then the fullest card.
// - dot-product (FGD baseline, Tetris-like): the largest alignment
//   (cpu_req / cpu_cap) x (cpu_free / cpu_cap) + (gpu_req / gpu_cap) x (gpu_free / gpu_cap)
//   with the node's free resources before placement, then the fullest card.
// - gpu-packing (FGD baseline): first a card already shared that fits, then an idle card on a
//   node with GPUs in use, then an idle node; within a tier the fullest card.
// - gpu-clustering (FGD baseline): group tasks of equal per-card share: first a card whose pods
//   all ask the same share as this one, then an idle card, then any card; whole-GPU pods prefer
//   nodes already running whole-GPU pods, then idle nodes. Within a tier the fullest card.
// - random (FGD baseline): a uniformly drawn fitting node, then a uniformly drawn fitting card,
//   from a std::mt19937_64 seeded with `SharePolicyContext::seed` (draw = engine() % n).
// - fgd: the node and card whose placement grows the cluster fragmentation F least
//   (FragmentationTracker::placement_growth; a share tries every card of the node).
// - fgd-pack (topsim's): FGD's growth scored as the FGD artifact scores it, an integer
//   floor(100 x sigmoid(-growth / 1000)) (artifact_fgd_score: every growth within about 40
//   thousandths of a GPU of another scores the same, large falls and rises saturate), the
//   highest score wins; among equal scores gpu-packing's tier of the card fgd chose (a card
//   already shared, then an idle card of a node in use, then an idle node), then a seeded
//   random order of the nodes (artifact_node_ranks with `SharePolicyContext::seed`, as the
//   artifact's ties). Exact growths (fgd) chase small differences in F that do not last; the
//   coarse score leaves those choices to packing, which keeps idle nodes whole for the
//   multi-GPU pods that come later, and the random order spreads the rest over node types
//   (docs/fill-scenarios.md measures each part). Cost: fgd's scan without its min-tree (every
//   node's growth per pod, memoised by node state) plus the growth's cards of each tied node.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fragmentation.h"
#include "core/gpu_share.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

enum class SharePolicyKind { Binpack, Spread, BestFit, DotProduct, GpuPacking, GpuClustering, Random, Fgd, FgdPack };
template <>
struct EnumNames<SharePolicyKind> {
  static constexpr std::array<EnumName<SharePolicyKind>, 9> table{{{SharePolicyKind::Binpack, "binpack"},
                                                                   {SharePolicyKind::Spread, "spread"},
                                                                   {SharePolicyKind::BestFit, "best-fit"},
                                                                   {SharePolicyKind::DotProduct, "dot-product"},
                                                                   {SharePolicyKind::GpuPacking, "gpu-packing"},
                                                                   {SharePolicyKind::GpuClustering, "gpu-clustering"},
                                                                   {SharePolicyKind::Random, "random"},
                                                                   {SharePolicyKind::Fgd, "fgd"},
                                                                   {SharePolicyKind::FgdPack, "fgd-pack"}}};
};

// Brief section 3: node label `ack.node.gpu.placement=binpack` picks cards by bin-packing, any
// other node spreads. Returns Binpack for "binpack", Spread for "spread" or an absent label;
// other values are errors naming the label.
inline constexpr std::string_view kCardPlacementLabel = "ack.node.gpu.placement";
Expected<SharePolicyKind> card_placement_from_labels(const std::map<std::string, std::string>& labels);

struct SharePolicyContext {
  uint64_t seed = 0;                              // random: engine seed; fgd-pack: tie order; default 0
  FragmentationTracker* fragmentation = nullptr;  // fgd: required (kept in sync by the caller)
};

class SharePolicy {
 public:
  virtual ~SharePolicy() = default;
  // The chosen node and cards, or nullopt when no node fits. Does not modify `cluster`.
  // REQUIRES: validate_request(pod, ...) succeeded.
  virtual std::optional<SharePlacement> place(const ShareCluster& cluster, const PodRequest& pod) = 0;
};

// Error when `fgd` is asked without a tracker.
Expected<std::unique_ptr<SharePolicy>> make_share_policy(SharePolicyKind kind, const SharePolicyContext& context);

}  // namespace topsim
