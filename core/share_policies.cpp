// The table of share policies: one entry per policy file (core/share_policies/*.cpp), each with
// topsim's version and, where the FGD artifact has one, the artifact's.
#include "core/share_policies.h"

#include <numeric>
#include <random>

#include "core/artifact_policies.h"
#include "core/share_policies/policy_support.h"

namespace topsim {
namespace {

const share_policy::Entry* const kPolicies[] = {
    &share_policy::kBinpack,    &share_policy::kSpread,     &share_policy::kBestFit,
    &share_policy::kDotProduct, &share_policy::kGpuPacking, &share_policy::kGpuClustering,
    &share_policy::kRandom,     &share_policy::kFgd,        &share_policy::kFgdPack,
};

const share_policy::Entry& entry(SharePolicyKind kind) {
  for (const share_policy::Entry* e : kPolicies)
    if (e->kind == kind) return *e;
  return share_policy::kBinpack;  // unreachable: every kind has a file (tests/core/test_gpu_share.cpp)
}

// The error when `kind` needs what `context` lacks.
std::optional<Error> missing(const share_policy::Entry& e, const SharePolicyContext& context) {
  if (e.needs_fragmentation && !context.fragmentation)
    return Error{"policy " + std::string(enum_name(e.kind)) + " needs a fragmentation tracker (target workload)"};
  return std::nullopt;
}

}  // namespace

Expected<SharePolicyKind> card_placement_from_labels(const std::map<std::string, std::string>& labels) {
  const auto it = labels.find(std::string(kCardPlacementLabel));
  if (it == labels.end() || it->second == "spread") return SharePolicyKind::Spread;
  if (it->second == "binpack") return SharePolicyKind::Binpack;
  return Error{std::string(kCardPlacementLabel) + "=" + it->second + ": unknown card placement (expected binpack or spread)"};
}

Expected<std::unique_ptr<SharePolicy>> make_share_policy(SharePolicyKind kind, const SharePolicyContext& context) {
  const share_policy::Entry& e = entry(kind);
  if (auto error = missing(e, context)) return *error;
  return e.make(context);
}

bool has_artifact_version(SharePolicyKind kind) { return entry(kind).make_artifact != nullptr; }

Expected<std::unique_ptr<SharePolicy>> make_artifact_policy(SharePolicyKind kind, const SharePolicyContext& context) {
  const share_policy::Entry& e = entry(kind);
  if (!e.make_artifact) return Error{"policy " + std::string(enum_name(kind)) + " has no version in the FGD artifact"};
  if (auto error = missing(e, context)) return *error;
  return e.make_artifact(context);
}

std::vector<int> artifact_node_ranks(size_t nodes, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<int> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = nodes; i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(engine() % i)]);
  std::vector<int> rank(nodes);
  for (size_t position = 0; position < nodes; ++position) rank[static_cast<size_t>(order[position])] = static_cast<int>(position);
  return rank;
}

}  // namespace topsim
