#include "sim/workload/tenant_mix.h"

#include <cmath>
#include <set>

#include "sim/seeds.h"
#include "sim/tenant_names.h"

namespace topsim {

Status validate_share_mix(const std::vector<NamedShare>& mix, std::string_view what, size_t limit) {
  const std::string prefix = std::string(what) + ": ";
  if (mix.size() > limit) return Error{prefix + too_many_names(what, limit)};
  std::set<std::string> seen;
  double total = 0;
  for (const NamedShare& share : mix) {
    if (share.name.empty()) return Error{prefix + "a name must not be empty"};
    if (!seen.insert(share.name).second) return Error{prefix + "'" + share.name + "' is given twice"};
    if (!std::isfinite(share.weight) || share.weight < 0)
      return Error{prefix + "the share of '" + share.name + "' must be a finite number >= 0"};
    total += share.weight;
  }
  if (!mix.empty() && !(total > 0)) return Error{prefix + "shares must not all be 0"};
  return Status::success();
}

TenantDraw::TenantDraw(const std::vector<NamedShare>& tenants, const std::vector<NamedShare>& classes, uint64_t seed,
                       uint32_t jobs)
    : queues_(stream(tenants, seed ^ kTenantStream, jobs)), classes_(stream(classes, seed ^ kPriorityClassStream, jobs)) {}

TenantDraw::Stream TenantDraw::stream(const std::vector<NamedShare>& mix, uint64_t seed, uint32_t jobs) {
  Stream out;
  out.rng.seed(seed);
  if (mix.empty()) return out;
  std::vector<double> weights;
  size_t positive = 0;
  for (const NamedShare& share : mix) weights.push_back(share.weight), positive += share.weight > 0 ? 1 : 0;
  out.pick.emplace(weights);
  // The order the jobs first draw each name: the same draws, replayed until every name with a
  // share has come up or the jobs run out (a name no job draws is left out).
  constexpr uint32_t kUnseen = 0xFFFFFFFF;
  out.index_of.assign(mix.size(), kUnseen);
  std::mt19937_64 replay(seed);
  for (uint32_t job = 0; job < jobs && out.names.size() < positive; ++job) {
    const size_t entry = out.pick->pick(replay);
    if (out.index_of[entry] != kUnseen) continue;
    out.index_of[entry] = static_cast<uint32_t>(out.names.size());
    out.names.push_back(mix[entry].name);
  }
  return out;
}

void TenantDraw::assign(JobSpec& job) {
  if (queues_.pick) job.queue = static_cast<uint16_t>(queues_.index_of[queues_.pick->pick(queues_.rng)]);
  if (classes_.pick) job.priority_class = static_cast<uint8_t>(classes_.index_of[classes_.pick->pick(classes_.rng)]);
}

}  // namespace topsim
