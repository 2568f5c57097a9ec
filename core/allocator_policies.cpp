// The non-best-fit policies, the device-plugin model, and the request entry point with its
// validation and constraint fallback.
#include <algorithm>
#include <functional>
#include <numeric>

#include "core/allocator.h"
#include "util/digest.h"

namespace topsim {
namespace {

using Key = std::vector<int64_t>;

void append_ids(Key& key, const std::vector<int>& ids) { key.insert(key.end(), ids.begin(), ids.end()); }

// Free GPUs of every NUMA node (index = NUMA index).
std::vector<std::vector<int>> free_by_numa(const Topology& t, const GpuSet& free) {
  std::vector<std::vector<int>> groups(t.model().numa_nodes.size());
  for (int id : to_ids(free)) groups[t.gpu_numa(id)].push_back(id);
  return groups;
}

// Ranking key of `set` under a policy; smaller is preferred.
Key policy_key(const Topology& t, PlacementPolicy policy, const GpuSet& free, const GpuSet& set) {
  const std::vector<int> ids = to_ids(set);
  std::vector<int> per_numa(t.model().numa_nodes.size(), 0);
  for (int id : ids) ++per_numa[t.gpu_numa(id)];
  const int span = static_cast<int>(std::count_if(per_numa.begin(), per_numa.end(), [](int c) { return c > 0; }));
  Key key;
  if (policy == PlacementPolicy::FirstFit) {
    key.push_back(span);
    std::vector<int64_t> ordered;
    for (int id : ids) ordered.push_back(int64_t{t.gpu_numa(id)} * 1024 + id);
    std::sort(ordered.begin(), ordered.end());
    key.insert(key.end(), ordered.begin(), ordered.end());
  } else if (policy == PlacementPolicy::Pack) {
    const GpuSet left = free & ~set;
    int64_t numa_left = 0, switch_left = 0;
    for (int g : to_ids(left)) {
      if (per_numa[t.gpu_numa(g)] > 0) ++numa_left;
      for (int id : ids)
        if (t.model().gpus[id].bridge == t.model().gpus[g].bridge) {
          ++switch_left;
          break;
        }
    }
    key = {span, numa_left, switch_left};
    append_ids(key, ids);
  } else {  // Spread
    key = {-span, *std::max_element(per_numa.begin(), per_numa.end())};
    append_ids(key, ids);
  }
  return key;
}

// Greedy construction for nodes above the enumeration limit.
std::vector<int> greedy_policy_choice(const Topology& t, PlacementPolicy policy, const GpuSet& free,
                                      const std::vector<int>& required, int size) {
  auto groups = free_by_numa(t, free & ~to_gpu_set(required));
  std::vector<int> chosen = required;
  const int need = size - static_cast<int>(required.size());
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  if (policy == PlacementPolicy::Spread) {
    for (size_t round = 0; static_cast<int>(chosen.size()) < size; ++round)
      for (size_t n : order)
        if (round < groups[n].size() && static_cast<int>(chosen.size()) < size) chosen.push_back(groups[n][round]);
    return chosen;
  }
  if (policy == PlacementPolicy::Pack)  // the fullest NUMA node that still fits, else the largest first
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return groups[a].size() < groups[b].size(); });
  for (size_t n : order)
    if (static_cast<int>(groups[n].size()) >= need) {
      chosen.insert(chosen.end(), groups[n].begin(), groups[n].begin() + need);
      return chosen;
    }
  if (policy == PlacementPolicy::Pack) std::reverse(order.begin(), order.end());
  for (size_t n : order)
    for (int id : groups[n])
      if (static_cast<int>(chosen.size()) < size) chosen.push_back(id);
  return chosen;
}

// --- device-plugin: go-gpuallocator "besteffort" -------------------------------------------

int plugin_pair_score(const Topology& t, int a, int b) {
  if (a < 0 || b < 0 || a == b) return 0;
  const PairLink& link = t.gpu_pair(a, b);
  static constexpr int kPcieScore[] = {0, 0, 50, 40, 30, 20, 10};  // by LinkClass: PIX 50 ... SYS 10
  int score = kPcieScore[static_cast<int>(link.pcie_cls)];
  if (link.cls == LinkClass::NVLink && !link.via_nvswitch) score += 100 * link.nvlinks;
  return score;
}

int plugin_set_score(const Topology& t, const std::vector<int>& set) {
  int score = 0;
  for (size_t i = 0; i < set.size(); ++i)
    for (size_t j = i + 1; j < set.size(); ++j) score += plugin_pair_score(t, set[i], set[j]);
  return score;
}

// Sets of `size` positions of `devices` in lexicographic order of positions.
void plugin_sets(const std::vector<int>& devices, int size, const std::function<void(const std::vector<int>&)>& visit) {
  const int n = static_cast<int>(devices.size());
  if (size <= 0 || size > n) return;
  std::vector<int> idx(size);
  std::iota(idx.begin(), idx.end(), 0);
  std::vector<int> set(size);
  while (true) {
    for (int i = 0; i < size; ++i) set[i] = devices[idx[i]];
    visit(set);
    int level = size - 1;
    while (level >= 0 && idx[level] == n - size + level) --level;
    if (level < 0) return;
    ++idx[level];
    for (int i = level + 1; i < size; ++i) idx[i] = idx[i - 1] + 1;
  }
}

// Partitions of `devices` (-1 = padding) into sets of `size`, first element of each set in
// increasing order, sets holding some but not all of the padding skipped (as the original).
void plugin_partitions(std::vector<int> devices, int size,
                       const std::function<void(const std::vector<std::vector<int>>&)>& visit) {
  if (size == 1) {
    for (int d : devices) visit({{d}});
    return;
  }
  while (devices.size() % size != 0) devices.push_back(-1);
  const int padding = static_cast<int>(std::count(devices.begin(), devices.end(), -1));
  std::vector<std::vector<int>> accum;
  std::function<void(const std::vector<int>&)> recurse = [&](const std::vector<int>& rest) {
    if (static_cast<int>(rest.size()) == size) {
      accum.push_back(rest);
      visit(accum);
      accum.pop_back();
      return;
    }
    plugin_sets(std::vector<int>(rest.begin() + 1, rest.end()), size - 1, [&](const std::vector<int>& tail) {
      std::vector<int> set{rest.front()};
      set.insert(set.end(), tail.begin(), tail.end());
      const int pads = static_cast<int>(std::count(set.begin(), set.end(), -1));
      if (pads != 0 && pads != padding) return;
      std::vector<int> remaining;
      for (int d : rest)
        if (std::find(set.begin(), set.end(), d) == set.end()) remaining.push_back(d);
      accum.push_back(set);
      recurse(remaining);
      accum.pop_back();
    });
  };
  recurse(devices);
}

bool holds_all(const std::vector<int>& set, const std::vector<int>& required) {
  return std::all_of(required.begin(), required.end(), [&](int r) { return std::find(set.begin(), set.end(), r) != set.end(); });
}

bool has_padding(const std::vector<int>& set) { return std::find(set.begin(), set.end(), -1) != set.end(); }

}  // namespace

std::optional<GpuSet> Allocator::ranked_small(const GpuSet& free, const PlacementRequest& r) const {
  std::optional<GpuSet> best;
  Key best_key;
  const uint32_t pool = static_cast<uint32_t>(free.to_ulong());
  const uint32_t required = static_cast<uint32_t>(to_gpu_set(r.must_include).to_ulong());
  // Enumerate every candidate in increasing position order and keep the smallest key.
  std::vector<int> positions;
  for (int i = 0; i < gpu_count_; ++i)
    if ((pool & ~required) & (1u << i)) positions.push_back(i);
  const int need = r.gpus - static_cast<int>(r.must_include.size());
  plugin_sets(positions, need, [&](const std::vector<int>& extra) {
    GpuSet set = to_gpu_set(r.must_include) | to_gpu_set(extra);
    if (!meets(set, r.constraints)) return;
    Key key = policy_key(*topology_, r.policy, free, set);
    if (!best || key < best_key) {
      best = set;
      best_key = std::move(key);
    }
  });
  if (need == 0 && meets(to_gpu_set(r.must_include), r.constraints)) best = to_gpu_set(r.must_include);
  return best;
}

std::optional<GpuSet> Allocator::ranked_large(const GpuSet& free, const PlacementRequest& r) const {
  const GpuSet set = to_gpu_set(greedy_policy_choice(*topology_, r.policy, free, r.must_include, r.gpus));
  if (!meets(set, r.constraints)) return std::nullopt;
  return set;
}

size_t Allocator::PluginKeyHash::operator()(const PluginKey& k) const {
  Digest64 d;
  for (size_t shift = 0; shift < kMaxGpusPerNode; shift += 64) d.add_word(((k.free >> shift) & GpuSet(~uint64_t{0})).to_ullong());
  d.add_word(static_cast<uint64_t>(k.gpus));
  for (int id : k.required) d.add_word(static_cast<uint64_t>(id));
  return static_cast<size_t>(d.value());
}

std::optional<GpuSet> Allocator::device_plugin(const GpuSet& free, const PlacementRequest& r) const {
  PluginKey memo_key{free, r.gpus, r.must_include};  // no allocation for the usual request (none required)
  std::sort(memo_key.required.begin(), memo_key.required.end());
  if (auto it = device_plugin_memo_.find(memo_key); it != device_plugin_memo_.end()) return it->second;
  const std::vector<int>& required = memo_key.required;
  std::vector<std::vector<int>> best_partition;
  int best_score = 0;
  bool found = false;
  plugin_partitions(to_ids(free), r.gpus, [&](const std::vector<std::vector<int>>& partition) {
    const bool usable = std::any_of(partition.begin(), partition.end(),
                                    [&](const std::vector<int>& s) { return holds_all(s, required) && !has_padding(s); });
    if (!usable) return;
    int score = 0;
    for (const auto& s : partition) score += plugin_set_score(*topology_, s);
    if (!found || score > best_score) {
      best_partition = partition;
      best_score = score;
      found = true;
    }
  });
  std::optional<GpuSet> best;
  int best_set_score = 0;
  for (const auto& s : best_partition) {
    if (!holds_all(s, required) || has_padding(s)) continue;
    const int score = plugin_set_score(*topology_, s);
    if (!best || score > best_set_score) {
      best = to_gpu_set(s);
      best_set_score = score;
    }
  }
  if (best) device_plugin_memo_.emplace(std::move(memo_key), *best);
  return best;
}

std::optional<GpuSet> Allocator::search(const GpuSet& free, const PlacementRequest& r) const {
  switch (r.policy) {
    case PlacementPolicy::BestFit: return small() ? best_fit_small(free, r) : best_fit_large(free, r);
    case PlacementPolicy::DevicePlugin: return device_plugin(free, r);
    default: return small() ? ranked_small(free, r) : ranked_large(free, r);
  }
}

namespace {

Status check_request(const Topology& t, const GpuSet& free, const PlacementRequest& r) {
  const int n = t.gpu_count();
  if (r.gpus < 1) return Error{"GPU count must be at least 1, got " + std::to_string(r.gpus)};
  if (r.gpus > n)
    return Error{"node " + t.name() + " has " + std::to_string(n) + " GPUs, " + std::to_string(r.gpus) + " requested"};
  if ((free & ~all_gpus(n)).any())
    return Error{"free GPU id out of range: node " + t.name() + " has GPUs 0-" + std::to_string(n - 1)};
  GpuSet seen;
  for (int id : r.must_include) {
    if (id < 0 || id >= n)
      return Error{"must-include GPU " + std::to_string(id) + " is out of range (GPUs 0-" + std::to_string(n - 1) + ")"};
    if (seen.test(id)) return Error{"must-include GPU " + std::to_string(id) + " is listed twice"};
    if (!free.test(id)) return Error{"cannot satisfy: must-include GPU " + std::to_string(id) + " is not free"};
    seen.set(id);
  }
  if (static_cast<int>(r.must_include.size()) > r.gpus)
    return Error{"must-include lists " + std::to_string(r.must_include.size()) + " GPUs but only " + std::to_string(r.gpus) +
                 " are requested"};
  if (static_cast<int>(free.count()) < r.gpus)
    return Error{"cannot satisfy: " + std::to_string(r.gpus) + " GPUs requested, " + std::to_string(free.count()) + " free (" +
                 format_ids(to_ids(free)) + ")"};
  if (r.policy == PlacementPolicy::DevicePlugin && r.constraints.any())
    return Error{"the device-plugin policy takes no constraints (it models the NVIDIA device plugin), got " +
                 describe(r.constraints)};
  if (r.policy == PlacementPolicy::DevicePlugin && free.count() > 16)
    return Error{"the device-plugin policy enumerates partitions (exponential): at most 16 free GPUs, got " +
                 std::to_string(free.count())};
  return {};
}

// Drops the next constraint in relaxation order; returns its name, or "" when none is left.
std::string drop_one(PlacementConstraints& c) {
  if (c.min_bandwidth_gbps > 0) {
    c.min_bandwidth_gbps = 0;
    return "min-bandwidth";
  }
  if (c.max_link_class) {
    c.max_link_class.reset();
    return "max-link-class";
  }
  if (c.require_nvlink) {
    c.require_nvlink = false;
    return "require-nvlink";
  }
  if (c.same_numa) {
    c.same_numa = false;
    return "same-numa";
  }
  return "";
}

}  // namespace

std::optional<GpuSet> Allocator::search_relaxing(const GpuSet& free, const PlacementRequest& request,
                                                 std::vector<std::string>& dropped) const {
  std::optional<GpuSet> chosen = search(free, request);
  if (chosen || !request.allow_relax) return chosen;
  PlacementRequest relaxed = request;
  while (!chosen) {
    std::string name = drop_one(relaxed.constraints);
    if (name.empty()) return std::nullopt;
    dropped.push_back(std::move(name));
    chosen = search(free, relaxed);
  }
  return chosen;
}

Expected<Placement> Allocator::place(const GpuSet& free, const PlacementRequest& request) const {
  if (Status s = check_request(*topology_, free, request); !s) return s.error();
  Placement placement;
  const std::optional<GpuSet> chosen = search_relaxing(free, request, placement.relaxed);
  const auto why = [&] {
    return "no " + std::to_string(request.gpus) + " of the free GPUs (" + format_ids(to_ids(free)) + ") meet " +
           describe(request.constraints);
  };
  if (!chosen) return Error{"cannot satisfy: " + why()};
  if (!placement.relaxed.empty()) placement.fallback_reason = why();
  placement.gpus = to_ids(*chosen);
  placement.ring = plan(*chosen);
  return placement;
}

std::optional<Allocator::Choice> Allocator::choose(const GpuSet& free, const PlacementRequest& request) const {
  if (!check_request(*topology_, free, request)) return std::nullopt;
  std::vector<std::string> dropped;
  const std::optional<GpuSet> chosen = search_relaxing(free, request, dropped);
  if (!chosen) return std::nullopt;
  return Choice{*chosen, &plan(*chosen), dropped.size()};
}

}  // namespace topsim
