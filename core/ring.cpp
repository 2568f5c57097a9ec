#include "core/ring.h"

#include "core/hardware.h"
#include "core/nccl_algo.h"

#include <algorithm>
#include <limits>

namespace topsim {
namespace {

constexpr int kMaxChannels = 16;       // NCCL ring search keeps at most MAXCHANNELS/2 rings
constexpr int kExactRingMaxGpus = 10;  // dynamic programming over subsets up to this size
constexpr double kMinChannelFraction = 0.01;

// Bottleneck of the closed ring `order` under per-hop capacities `cap(a, b)`.
template <class Cap>
double ring_bottleneck(const std::vector<int>& order, const Cap& cap) {
  double bottleneck = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < order.size(); ++i) bottleneck = std::min(bottleneck, cap(order[i], order[(i + 1) % order.size()]));
  return bottleneck;
}

// Exact widest ring by dynamic programming over subsets (Held-Karp with min/max); local ids.
template <class Cap>
std::vector<int> exact_widest_ring(int n, const Cap& cap) {
  const int full = (1 << n) - 1;
  std::vector<double> best(static_cast<size_t>(full + 1) * n, -1.0);
  std::vector<int8_t> parent(best.size(), -1);
  auto at = [n](int mask, int last) { return static_cast<size_t>(mask) * n + last; };
  for (int j = 1; j < n; ++j) best[at(1 | (1 << j), j)] = cap(0, j);
  for (int mask = 1; mask <= full; mask += 2) {
    for (int j = 1; j < n; ++j) {
      const double here = best[at(mask, j)];
      if (here < 0) continue;
      for (int k = 1; k < n; ++k) {
        if (mask & (1 << k)) continue;
        const double width = std::min(here, cap(j, k));
        double& slot = best[at(mask | (1 << k), k)];
        if (width > slot) {
          slot = width;
          parent[at(mask | (1 << k), k)] = static_cast<int8_t>(j);
        }
      }
    }
  }
  int last = -1;
  double width = 0;
  for (int j = 1; j < n; ++j) {
    const double closed = std::min(best[at(full, j)], cap(j, 0));
    if (closed > width) {
      width = closed;
      last = j;
    }
  }
  if (last < 0) return {};
  std::vector<int> order;
  for (int mask = full; last > 0;) {
    order.push_back(last);
    const int prev = parent[at(mask, last)];
    mask &= ~(1 << last);
    last = prev;
  }
  order.push_back(0);
  std::reverse(order.begin(), order.end());
  return order;
}

// Nearest-widest-neighbour ring improved by 2-opt segment reversals; local ids.
template <class Cap>
std::vector<int> heuristic_widest_ring(int n, const Cap& cap) {
  std::vector<int> order{0};
  std::vector<bool> used(n, false);
  used[0] = true;
  for (int step = 1; step < n; ++step) {
    int next = -1;
    for (int k = 0; k < n; ++k)
      if (!used[k] && (next < 0 || cap(order.back(), k) > cap(order.back(), next))) next = k;
    used[next] = true;
    order.push_back(next);
  }
  double width = ring_bottleneck(order, cap);
  for (bool improved = true; improved;) {
    improved = false;
    for (int i = 1; i < n - 1 && !improved; ++i)
      for (int j = i + 1; j < n && !improved; ++j) {
        std::reverse(order.begin() + i, order.begin() + j + 1);
        const double candidate = ring_bottleneck(order, cap);
        if (candidate > width) {
          width = candidate;
          improved = true;
        } else
          std::reverse(order.begin() + i, order.begin() + j + 1);
      }
  }
  return width > 0 ? order : std::vector<int>{};
}

// Rings over single links: `lanes[i * n + j]` links from local GPU i to j. Every ring hop takes
// one link; the packer finds the largest multiset of Hamiltonian rings the links carry.
class LinkRingPacker {
 public:
  LinkRingPacker(int n, std::vector<int> lanes) : n_(n), lanes_(std::move(lanes)) {}

  std::vector<std::vector<int>> pack(int max_rings) {
    if (n_ > kExactPackMaxGpus) return greedy(max_rings);
    enumerate_cycles();
    for (int target = std::min(max_rings, lane_bound()); target > 0; --target) {
      chosen_.clear();
      steps_ = 0;
      if (place(target, 0)) return rings_of(chosen_);
      if (steps_ > kStepBudget) return greedy(max_rings);
    }
    return {};
  }

 private:
  static constexpr int kExactPackMaxGpus = 8;  // 7! = 5,040 directed rings at most
  static constexpr long kStepBudget = 200000;

  int lane(int i, int j) const { return lanes_[i * n_ + j]; }
  // Rings the links left could still carry at most: every ring leaves and enters every GPU once.
  int lane_bound() const {
    int bound = 1 << 30;
    for (int i = 0; i < n_; ++i) {
      int out = 0, in = 0;
      for (int j = 0; j < n_; ++j) out += lane(i, j), in += lane(j, i);
      bound = std::min({bound, out, in});
    }
    return bound;
  }

  // Every directed Hamiltonian ring starting at 0 over links with lanes, widest first.
  void enumerate_cycles() {
    std::vector<int> path{0};
    std::vector<bool> used(n_, false);
    used[0] = true;
    extend(path, used);
    auto width = [this](const std::vector<int>& c) {
      int w = 1 << 30;
      for (size_t i = 0; i < c.size(); ++i) w = std::min(w, lane(c[i], c[(i + 1) % c.size()]));
      return w;
    };
    std::stable_sort(cycles_.begin(), cycles_.end(), [&](const auto& a, const auto& b) { return width(a) > width(b); });
  }
  void extend(std::vector<int>& path, std::vector<bool>& used) {
    if (static_cast<int>(path.size()) == n_) {
      if (lane(path.back(), 0) > 0) cycles_.push_back(path);
      return;
    }
    for (int k = 1; k < n_; ++k) {
      if (used[k] || lane(path.back(), k) == 0) continue;
      used[k] = true;
      path.push_back(k);
      extend(path, used);
      path.pop_back();
      used[k] = false;
    }
  }
  bool fits(const std::vector<int>& c) const {
    for (size_t i = 0; i < c.size(); ++i)
      if (lane(c[i], c[(i + 1) % c.size()]) == 0) return false;
    return true;
  }
  void take(const std::vector<int>& c, int delta) {
    for (size_t i = 0; i < c.size(); ++i) lanes_[c[i] * n_ + c[(i + 1) % c.size()]] -= delta;
  }
  // Places `left` more rings, choosing ring indices >= `from` (a multiset, no reorderings).
  bool place(int left, size_t from) {
    if (left == 0) return true;
    if (lane_bound() < left) return false;
    for (size_t c = from; c < cycles_.size(); ++c) {
      if (++steps_ > kStepBudget) return false;
      if (!fits(cycles_[c])) continue;
      take(cycles_[c], 1);
      chosen_.push_back(c);
      if (place(left - 1, c)) return true;
      chosen_.pop_back();
      take(cycles_[c], -1);
    }
    return false;
  }
  std::vector<std::vector<int>> rings_of(const std::vector<size_t>& chosen) const {
    std::vector<std::vector<int>> rings;
    for (size_t c : chosen) rings.push_back(cycles_[c]);
    return rings;
  }
  // Beyond exact packing: the widest ring over the remaining links, again and again.
  std::vector<std::vector<int>> greedy(int max_rings) {
    std::vector<std::vector<int>> rings;
    auto cap = [this](int i, int j) { return static_cast<double>(lane(i, j)); };
    while (static_cast<int>(rings.size()) < max_rings) {
      std::vector<int> ring = n_ <= kExactRingMaxGpus ? exact_widest_ring(n_, cap) : heuristic_widest_ring(n_, cap);
      if (ring.empty() || !fits(ring)) break;
      take(ring, 1);
      rings.push_back(ring);
    }
    return rings;
  }

  int n_;
  std::vector<int> lanes_;
  std::vector<std::vector<int>> cycles_;
  std::vector<size_t> chosen_;
  long steps_ = 0;
};

}  // namespace

RingModel::RingModel(const Topology& topology) : topology_(&topology) { route_hops(); }

void RingModel::route_hops() {
  const Topology& t = *topology_;
  const int n = t.gpu_count();
  hops_.assign(static_cast<size_t>(n) * n, Hop{});
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const PairLink& link = t.gpu_pair(a, b);
      Hop& h = hops_[a * n + b];
      h.nvlink = link.cls == LinkClass::NVLink;
      h.route = t.gpu_route(a, b);
      if (!h.nvlink) {
        const auto& numa = t.model().numa_nodes;
        const bool intel = is_intel(numa[t.gpu_numa(a)].cpu) || is_intel(numa[t.gpu_numa(b)].cpu);
        if (link.cls >= LinkClass::PHB && intel) h.cost_factor = kIntelP2pOverhead;
      }
    }
}

double RingModel::hop_capacity(int a, int b, const std::vector<double>& residual, bool nvlink_only) const {
  const Hop& h = hop(a, b);
  if (nvlink_only && !h.nvlink) return 0;
  double cap = std::numeric_limits<double>::infinity();
  for (int e : h.route) cap = std::min(cap, residual[e]);
  return cap / h.cost_factor;
}

std::vector<int> RingModel::widest_ring(const std::vector<int>& gpus, const std::vector<double>& residual,
                                        bool nvlink_only) const {
  const int n = static_cast<int>(gpus.size());
  std::vector<double> capacity(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) capacity[i * n + j] = hop_capacity(gpus[i], gpus[j], residual, nvlink_only);
  auto cap = [&capacity, n](int i, int j) { return capacity[i * n + j]; };
  std::vector<int> local = n <= kExactRingMaxGpus ? exact_widest_ring(n, cap) : heuristic_widest_ring(n, cap);
  for (int& i : local) i = gpus[i];
  return local;
}

bool RingModel::all_through_nvswitch(const std::vector<int>& gpus) const {
  for (size_t i = 0; i < gpus.size(); ++i)
    for (size_t j = i + 1; j < gpus.size(); ++j)
      if (!topology_->gpu_pair(gpus[i], gpus[j]).via_nvswitch) return false;
  return true;
}

bool RingModel::any_through_nvswitch(const std::vector<int>& gpus) const {
  for (size_t i = 0; i < gpus.size(); ++i)
    for (size_t j = i + 1; j < gpus.size(); ++j)
      if (topology_->gpu_pair(gpus[i], gpus[j]).via_nvswitch) return true;
  return false;
}

std::vector<std::vector<int>> RingModel::link_rings(const std::vector<int>& gpus) const {
  const int n = static_cast<int>(gpus.size());
  std::vector<int> lanes(static_cast<size_t>(n) * n, 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const PairLink& link = topology_->gpu_pair(gpus[i], gpus[j]);
      if (link.cls == LinkClass::NVLink && !link.via_nvswitch) lanes[i * n + j] = link.nvlinks;
    }
  std::vector<std::vector<int>> rings = LinkRingPacker(n, std::move(lanes)).pack(kMaxChannels);
  for (auto& ring : rings)
    for (int& g : ring) g = gpus[g];
  return rings;
}

bool RingModel::plan_link_rings(const std::vector<int>& gpus, RingPlan& plan) const {
  const std::vector<std::vector<int>> rings = link_rings(gpus);
  if (rings.empty()) return false;
  double rate = std::numeric_limits<double>::infinity();
  for (int g : gpus) rate = std::min(rate, nvlink_achieved_gbps_per_link(topology_->model().gpus[g].sm));
  plan.order = rings.front();
  plan.channel_rings = rings;
  plan.channel_gbps.assign(rings.size(), rate);
  plan.bus_bandwidth_gbps = rate * static_cast<double>(rings.size());
  plan.nvlink_only = true;
  plan.worst_hop = LinkClass::NVLink;
  return true;
}

RingPlan RingModel::plan(const std::vector<int>& unsorted) const {
  std::vector<int> gpus = unsorted;
  std::sort(gpus.begin(), gpus.end());
  RingPlan plan;
  plan.order = gpus;
  if (gpus.size() < 2) return plan;
  std::vector<double> residual = topology_->directed_edge_gbps();

  // NVSwitch fast path: one ring through the fabric takes every member's full uplink.
  // Direct NVLink: rings over single links whenever the links close a ring at all.
  if (!any_through_nvswitch(gpus) && plan_link_rings(gpus, plan)) {
    apply_p2p_read(gpus, plan);
    return plan;
  }
  const bool switched = all_through_nvswitch(gpus);
  bool nvlink_only = switched || !widest_ring(gpus, residual, true).empty();
  for (int channel = 0; channel < kMaxChannels; ++channel) {
    std::vector<int> order = switched && channel == 0 ? gpus : widest_ring(gpus, residual, nvlink_only);
    if (order.empty()) break;
    std::vector<double> uses(residual.size(), 0.0);
    for (size_t i = 0; i < order.size(); ++i) {
      const Hop& h = hop(order[i], order[(i + 1) % order.size()]);
      for (int e : h.route) uses[e] += h.cost_factor;
    }
    double rate = std::numeric_limits<double>::infinity();
    for (size_t e = 0; e < uses.size(); ++e)
      if (uses[e] > 0) rate = std::min(rate, residual[e] / uses[e]);
    const double floor = plan.channel_gbps.empty() ? 1e-9 : kMinChannelFraction * plan.channel_gbps.front();
    if (!(rate > floor)) break;
    for (size_t e = 0; e < uses.size(); ++e) residual[e] -= rate * uses[e];
    if (plan.channel_gbps.empty()) plan.order = order;
    plan.channel_gbps.push_back(rate);
    plan.channel_rings.push_back(std::move(order));
    plan.bus_bandwidth_gbps += rate;
  }
  plan.nvlink_only = nvlink_only && !plan.channel_gbps.empty();
  for (size_t i = 0; i < plan.order.size(); ++i) {
    const PairLink& l = topology_->gpu_pair(plan.order[i], plan.order[(i + 1) % plan.order.size()]);
    plan.worst_hop = std::max(plan.worst_hop, l.cls);
  }
  apply_p2p_read(gpus, plan);
  if (switched)
    plan.nvls_bus_gbps =
        nvls_bus_gbps(min_sm(*topology_, gpus), nvswitch_link_gbps(*topology_, gpus), static_cast<int>(gpus.size()));
  return plan;
}

double p2p_read_share(int ranks, double link_gbps, double memory_gbps) {
  if (ranks < 2 || memory_gbps <= 0) return 1.0;
  const double pull_steps = 2.0 * (ranks - 1);
  const double staging_step = 2.0 * link_gbps / memory_gbps;  // device memory read + write
  return pull_steps / (pull_steps + staging_step);
}

void RingModel::apply_p2p_read(const std::vector<int>& gpus, RingPlan& plan) const {
  // NCCL paths.cc: read mode only between SM80 GPUs on an NVLink path.
  if (!plan.nvlink_only) return;
  double memory_gbps = std::numeric_limits<double>::infinity();
  for (int g : gpus) {
    const Gpu& gpu = topology_->model().gpus[g];
    const GpuModel* model = find_gpu_model(gpu.model);
    if (gpu.sm != 80 || model == nullptr) return;
    memory_gbps = std::min(memory_gbps, model->memory_gbps);
  }
  const double share = p2p_read_share(static_cast<int>(gpus.size()), plan.bus_bandwidth_gbps, memory_gbps);
  for (double& rate : plan.channel_gbps) rate *= share;
  plan.bus_bandwidth_gbps *= share;
  plan.p2p_read_share = share;
}

AllReduceEstimate allreduce_time(double bytes, int ranks, int nodes, double bus_bandwidth_gbps, bool nvlink_hops,
                                 double net_latency_us) {
  AllReduceEstimate best;
  if (ranks < 2 || bytes <= 0) return best;
  // NCCL tuning.cc: ring base latency and per-hop latencies (µs) for {LL, LL128, Simple}.
  constexpr double kBase[] = {6.6, 14.0, 8.4};
  constexpr double kNvlinkHop[] = {0.6, 1.9, 3.4};
  constexpr double kPcieHop[] = {1.0, 2.5, 5.7};
  constexpr double kNetHop[] = {2.7, 4.0, 14.0};
  constexpr double kEfficiency[] = {0.5, 0.92, 1.0};  // fraction of bus bandwidth per protocol
  const int inter_steps = 2 * (nodes - 1);
  const int intra_steps = std::max(0, 2 * (ranks - 1) - inter_steps);
  const double moved_bytes = 2.0 * (ranks - 1) / ranks * bytes;
  best.time_us = std::numeric_limits<double>::infinity();
  for (int p = 0; p < 3; ++p) {
    const double net_hop = kNetHop[p] + net_latency_us * (p == 2 ? 2 : 1);  // Simple pays it twice (flush)
    const double latency = kBase[p] + intra_steps * (nvlink_hops ? kNvlinkHop[p] : kPcieHop[p]) + inter_steps * net_hop;
    const double transfer = moved_bytes / (bus_bandwidth_gbps * kEfficiency[p] * 1e3);  // GB/s = 1e3 bytes/µs
    if (latency + transfer < best.time_us) best = {latency + transfer, static_cast<NcclProtocol>(p)};
  }
  return best;
}

}  // namespace topsim
