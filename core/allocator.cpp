#include "core/allocator.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace topsim {

struct Allocator::Score {
  int64_t bus_mbps = -1;
  int64_t next_mbps = 0;
  int64_t leftover_mbps = 0;
  int numa_span = 0;
  GpuSet set;
};

namespace {

constexpr uint32_t kUnknown = ~0u;

// True when the sorted id list of `a` is lexicographically smaller than that of `b`
// (REQUIRES: equal sizes): the lowest id in which they differ belongs to `a`.
bool lower_ids(const GpuSet& a, const GpuSet& b) {
  const GpuSet diff = a ^ b;
  const size_t first = diff._Find_first();
  return first < diff.size() && a.test(first);
}

bool better(const Allocator::Score& a, const Allocator::Score& b) {
  if (a.bus_mbps != b.bus_mbps) return a.bus_mbps > b.bus_mbps;
  if (a.next_mbps != b.next_mbps) return a.next_mbps > b.next_mbps;
  if (a.leftover_mbps != b.leftover_mbps) return a.leftover_mbps > b.leftover_mbps;
  if (a.numa_span != b.numa_span) return a.numa_span < b.numa_span;
  return lower_ids(a.set, b.set);
}

int64_t to_mbps(double gbps) { return std::llround(gbps * 1000.0); }

// Calls `visit(mask)` for every subset of `pool` with `size` bits that contains `required`
// (pool, required: bitmasks over at most 32 GPUs), in increasing order of the chosen positions.
template <class Visit>
void for_each_subset(uint32_t pool, uint32_t required, int size, const Visit& visit) {
  const uint32_t optional = pool & ~required;
  const int need = size - __builtin_popcount(required);
  std::vector<int> positions;
  for (int i = 0; i < 32; ++i)
    if (optional & (1u << i)) positions.push_back(i);
  const int m = static_cast<int>(positions.size());
  if (need < 0 || need > m) return;
  if (need == 0) {
    visit(required);
    return;
  }
  for (uint64_t combo = (1ull << need) - 1; combo < (1ull << m);) {
    uint32_t mask = required;
    for (int i = 0; i < m; ++i)
      if (combo & (1ull << i)) mask |= 1u << positions[i];
    visit(mask);
    const uint64_t low = combo & -combo, ripple = combo + low;  // Gosper's hack: next combination
    combo = (((ripple ^ combo) >> 2) / low) | ripple;
  }
}

uint32_t small_mask(const GpuSet& set) { return static_cast<uint32_t>(set.to_ulong()); }

}  // namespace

std::string describe(const PlacementConstraints& c) {
  std::vector<std::string> parts;
  if (c.same_numa) parts.push_back("same-numa");
  if (c.require_nvlink) parts.push_back("require-nvlink");
  if (c.max_link_class)
    parts.push_back("max-link-class " +
                    (*c.max_link_class == LinkClass::NVLink ? std::string("NV") : link_code(*c.max_link_class)));
  if (c.min_bandwidth_gbps > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "min-bandwidth %.1f GB/s", c.min_bandwidth_gbps);
    parts.push_back(buf);
  }
  return parts.empty() ? "no constraints" : join(parts, ", ");
}

Status apply_annotations(const std::map<std::string, std::string>& annotations, PlacementRequest& request) {
  const std::string prefix = "gpu.topology/";
  for (const auto& [key, value] : annotations) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string name = key.substr(prefix.size());
    if (name == "policy") {
      if (value == "single-numa")
        request.constraints.same_numa = true;
      else if (value == "nvlink")
        request.constraints.require_nvlink = true;
      else if (value == "spread")
        request.policy = PlacementPolicy::Spread;
      else if (value != "best-effort")
        return Error{key + ": '" + value + "' is not one of single-numa, nvlink, best-effort, spread"};
    } else if (name == "min-bandwidth") {
      char* end = nullptr;
      const double gbps = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(gbps >= 0) || !std::isfinite(gbps))
        return Error{key + ": '" + value + "' is not a bandwidth in GB/s (a number >= 0)"};
      request.constraints.min_bandwidth_gbps = gbps;
    } else if (name == "require-nvlink") {
      if (value != "true" && value != "false") return Error{key + ": '" + value + "' is not true or false"};
      request.constraints.require_nvlink = value == "true";
    } else if (name != "multi-node-policy" && name != "max-nodes" && name != "min-gpus-per-node") {
      return Error{key +
                   ": unknown annotation (known: policy, min-bandwidth, require-nvlink, multi-node-policy, "
                   "max-nodes, min-gpus-per-node)"};
    }
  }
  return {};
}

Allocator::Allocator(const Topology& topology) : topology_(&topology), rings_(topology), gpu_count_(topology.gpu_count()) {
  pair_mbps_.assign(static_cast<size_t>(gpu_count_) * gpu_count_, 0);
  for (int a = 0; a < gpu_count_; ++a)
    for (int b = 0; b < gpu_count_; ++b)
      if (a != b) pair_mbps_[a * gpu_count_ + b] = to_mbps(topology.gpu_pair(a, b).bandwidth_gbps);
  if (small()) {
    const size_t masks = size_t{1} << gpu_count_;
    bus_memo_.assign(masks, RingSummary{});
    next_memo_.assign(masks * (gpu_count_ + 1), -1);
    answer_memo_.assign(masks * (gpu_count_ + 1), kUnknown);
    global_best_.assign(gpu_count_ + 1, -1);
    // Connectivity and NUMA span of every mask, each from the mask without its lowest GPU.
    connectivity_table_.assign(masks, 0);
    numa_span_table_.assign(masks, 0);
    std::vector<uint64_t> numa_bits(masks, 0);
    for (uint32_t mask = 1; mask < masks; ++mask) {
      const int low = __builtin_ctz(mask);
      const uint32_t rest = mask & (mask - 1);
      int64_t added = 0;
      for (uint32_t m = rest; m; m &= m - 1) added += pair_mbps_[low * gpu_count_ + __builtin_ctz(m)];
      connectivity_table_[mask] = connectivity_table_[rest] + added;
      numa_bits[mask] = numa_bits[rest] | (uint64_t{1} << (topology.gpu_numa(low) & 63));
      numa_span_table_[mask] = static_cast<uint8_t>(__builtin_popcountll(numa_bits[mask]));
    }
  }
}

const RingPlan& Allocator::plan(const GpuSet& set) const {
  auto it = plan_memo_.find(set);
  if (it == plan_memo_.end()) it = plan_memo_.emplace(set, rings_.plan(to_ids(set))).first;
  return it->second;
}

int64_t Allocator::global_best_mbps(int size) const {
  int64_t& best = global_best_[size];
  if (best < 0) {
    best = 0;
    for_each_subset(small_mask(all_gpus(gpu_count_)), 0, size,
                    [&](uint32_t mask) { best = std::max(best, bus_mbps(GpuSet(mask))); });
  }
  return best;
}

Allocator::RingSummary Allocator::fresh_ring_summary(const GpuSet& set) const {
  const RingPlan plan = rings_.plan(to_ids(set));
  return {to_mbps(plan.bus_bandwidth_gbps), plan.nvlink_only};
}

Allocator::RingSummary Allocator::ring_summary(const GpuSet& set) const {
  if (small()) {
    RingSummary& slot = bus_memo_[small_mask(set)];
    if (slot.mbps < 0) slot = fresh_ring_summary(set);
    return slot;
  }
  auto it = large_bus_memo_.find(set);
  if (it == large_bus_memo_.end()) it = large_bus_memo_.emplace(set, fresh_ring_summary(set)).first;
  return it->second;
}

int64_t Allocator::best_next_mbps(uint32_t leftover, int size) const {
  const int count = __builtin_popcount(leftover);
  if (size < 2 || count < size) return 0;  // a single GPU needs no bandwidth
  if (count == size) return bus_mbps(GpuSet(leftover));
  int64_t& slot = next_memo_[static_cast<size_t>(leftover) * (gpu_count_ + 1) + size];
  if (slot >= 0) return slot;
  // Branch and bound: no subset beats the best `size` GPUs of the whole node.
  const int64_t bound = global_best_mbps(size);
  int64_t best = 0;
  for (uint32_t rest = leftover; rest && best < bound; rest &= rest - 1)
    best = std::max(best, best_next_mbps(leftover & ~(rest & -rest), size));
  return slot = best;
}

int64_t Allocator::connectivity_mbps(const GpuSet& set) const {
  if (small()) return connectivity_table_[small_mask(set)];
  const std::vector<int> ids = to_ids(set);
  int64_t total = 0;
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t j = i + 1; j < ids.size(); ++j) total += pair_mbps_[ids[i] * gpu_count_ + ids[j]];
  return total;
}

int Allocator::numa_span(const GpuSet& set) const {
  if (small()) return numa_span_table_[small_mask(set)];
  uint64_t numa_bits = 0;
  for (int id : to_ids(set)) numa_bits |= uint64_t{1} << (topology_->gpu_numa(id) & 63);
  return __builtin_popcountll(numa_bits);
}

Allocator::Score Allocator::fresh_score(const GpuSet& free, const GpuSet& set) const {
  const GpuSet leftover = free & ~set;
  const int size = static_cast<int>(set.count());
  Score s;
  s.bus_mbps = fresh_ring_summary(set).mbps;
  if (size >= 2)
    for_each_subset(small_mask(leftover), 0, size,
                    [&](uint32_t next) { s.next_mbps = std::max(s.next_mbps, fresh_ring_summary(GpuSet(next)).mbps); });
  s.leftover_mbps = connectivity_mbps(leftover);
  s.numa_span = numa_span(set);
  s.set = set;
  return s;
}

bool Allocator::meets(const GpuSet& set, const PlacementConstraints& c) const {
  if (c.same_numa && numa_span(set) > 1) return false;
  if (c.max_link_class) {
    const std::vector<int> ids = to_ids(set);
    for (size_t i = 0; i < ids.size(); ++i)
      for (size_t j = i + 1; j < ids.size(); ++j)
        if (topology_->gpu_pair(ids[i], ids[j]).cls > *c.max_link_class) return false;
  }
  if (c.require_nvlink && set.count() > 1 && !ring_summary(set).nvlink_only) return false;
  if (c.min_bandwidth_gbps > 0 && set.count() > 1 && ring_summary(set).mbps < to_mbps(c.min_bandwidth_gbps)) return false;
  return true;
}

std::optional<GpuSet> Allocator::best_fit_small(const GpuSet& free, const PlacementRequest& r) const {
  const uint32_t pool = small_mask(free), required = small_mask(to_gpu_set(r.must_include));
  const bool plain = !r.constraints.any() && r.must_include.empty();
  uint32_t* memo = plain ? &answer_memo_[static_cast<size_t>(pool) * (gpu_count_ + 1) + r.gpus] : nullptr;
  if (memo && *memo != kUnknown) return GpuSet(*memo);
  std::optional<Score> best;
  for_each_subset(pool, required, r.gpus, [&](uint32_t mask) {
    Score s;
    s.set = GpuSet(mask);
    if (!meets(s.set, r.constraints)) return;
    s.bus_mbps = bus_mbps(s.set);
    if (beats(s, free, best)) best = s;
  });
  if (!best) return std::nullopt;
  if (memo) *memo = small_mask(best->set);
  return best->set;
}

bool Allocator::beats(Score& s, const GpuSet& free, const std::optional<Score>& incumbent) const {
  if (incumbent && s.bus_mbps < incumbent->bus_mbps) return false;  // later terms cannot matter
  const GpuSet leftover = free & ~s.set;
  const int size = static_cast<int>(s.set.count());
  s.next_mbps = small() ? best_next_mbps(small_mask(leftover), size) : 0;
  s.leftover_mbps = connectivity_mbps(leftover);
  s.numa_span = numa_span(s.set);
  return !incumbent || better(s, *incumbent);
}

GpuSet Allocator::best_fit_exhaustive(const GpuSet& free, const PlacementRequest& r) const {
  std::optional<Score> best;
  for_each_subset(small_mask(free), small_mask(to_gpu_set(r.must_include)), r.gpus, [&](uint32_t mask) {
    const GpuSet set(mask);
    if (!meets(set, r.constraints)) return;
    Score s = fresh_score(free, set);
    if (!best || better(s, *best)) best = s;
  });
  return best ? best->set : GpuSet();
}

std::optional<GpuSet> Allocator::best_fit_large(const GpuSet& free, const PlacementRequest& r) const {
  // Seeds: the required GPUs, else the lowest free GPU of every NUMA node.
  std::vector<GpuSet> seeds;
  if (!r.must_include.empty()) {
    seeds.push_back(to_gpu_set(r.must_include));
  } else {
    std::vector<bool> seen(topology_->model().numa_nodes.size(), false);
    for (int id : to_ids(free))
      if (!seen[topology_->gpu_numa(id)]) {
        seen[topology_->gpu_numa(id)] = true;
        seeds.push_back(GpuSet().set(id));
      }
  }
  std::optional<Score> best;
  for (const GpuSet& seed : seeds) {
    GpuSet set = seed;
    const int home = topology_->gpu_numa(to_ids(seed).front());
    std::vector<int64_t> weakest(gpu_count_, INT64_MAX);  // weakest pair bandwidth into the set
    for (int m : to_ids(seed))
      for (int g = 0; g < gpu_count_; ++g) weakest[g] = std::min(weakest[g], pair_mbps_[m * gpu_count_ + g]);
    while (static_cast<int>(set.count()) < r.gpus) {
      int pick = -1;
      for (int g : to_ids(free & ~set)) {
        if (pick < 0 || weakest[g] > weakest[pick] ||
            (weakest[g] == weakest[pick] && topology_->gpu_numa(g) == home && topology_->gpu_numa(pick) != home))
          pick = g;
      }
      set.set(pick);
      for (int g = 0; g < gpu_count_; ++g) weakest[g] = std::min(weakest[g], pair_mbps_[pick * gpu_count_ + g]);
    }
    if (!meets(set, r.constraints)) continue;
    Score s;
    s.set = set;
    s.bus_mbps = bus_mbps(set);
    if (beats(s, free, best)) best = s;
  }
  if (!best) return std::nullopt;
  return best->set;
}

}  // namespace topsim
