// Node and card selection for pods on shared-GPU nodes: the policies compared by the FGD
// experiment ("Beware of Fragmentation", USENIX ATC '23) plus the gpushare scheduler
// extender's binpack and spread.
//
// A policy is a decision: `place(cluster, pod)` returns the node and cards (or nothing when no
// node fits) and never modifies the cluster; the caller applies the placement (and, for `fgd`,
// tells the FragmentationTracker). Every policy considers only nodes where `node_fits` holds,
// and breaks ties by the lowest node index, then the lowest card index, unless its file says
// otherwise. Multi-GPU pods and whole-GPU pods take the lowest-index idle cards of the chosen
// node (idle cards are interchangeable without topology).
//
// One file per policy, core/share_policies/<name>.cpp, states its score (and the FGD artifact's
// version of it, core/artifact_policies.h); the table in core/share_policies.cpp lists them:
// binpack, spread, best-fit, dot-product, gpu-packing, gpu-clustering, random, fgd, fgd-pack.
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
