#include "core/gang.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <unordered_map>

namespace topsim {

// --- network model ---------------------------------------------------------------------------

double NetworkModel::efficiency(NicTransport transport) const {
  switch (transport) {
    case NicTransport::InfiniBand: return infiniband_efficiency;
    case NicTransport::RoCE: return roce_efficiency;
    case NicTransport::Ethernet: return tcp_socket_efficiency;
  }
  return tcp_socket_efficiency;
}

double NetworkModel::nic_gbps(const Nic& nic) const { return network_gbps(nic.speed_gbit) * efficiency(nic.transport); }

namespace {

// NICs with the best link class to `gpu`, then the highest bandwidth among those, ascending.
std::vector<int> nearest_nic_group(const Topology& node, int gpu) {
  std::vector<int> group;
  for (int n = 0; n < node.nic_count(); ++n) {
    if (!group.empty()) {
      const PairLink& best = node.gpu_nic(gpu, group.front());
      const PairLink& cand = node.gpu_nic(gpu, n);
      const bool better = cand.cls < best.cls || (cand.cls == best.cls && cand.bandwidth_gbps > best.bandwidth_gbps + 1e-9);
      const bool equal = cand.cls == best.cls && std::abs(cand.bandwidth_gbps - best.bandwidth_gbps) <= 1e-9;
      if (better) group.clear();
      else if (!equal) continue;
    }
    group.push_back(n);
  }
  return group;
}

}  // namespace

int network_nic(const Topology& node, int gpu) {
  const std::vector<int> group = nearest_nic_group(node, gpu);
  if (group.empty()) return -1;
  // NCCL ncclTopoGetLocalNet: a GPU's rank among the GPUs sharing its nearest NICs picks one.
  int rank = 0;
  for (int g = 0; g < gpu; ++g)
    if (nearest_nic_group(node, g) == group) ++rank;
  return group[rank % group.size()];
}

std::vector<int> network_nics(const Topology& node, const std::vector<int>& gpus) {
  std::vector<int> nics;
  for (int gpu : gpus)
    if (const int nic = network_nic(node, gpu); nic >= 0) nics.push_back(nic);
  std::sort(nics.begin(), nics.end());
  nics.erase(std::unique(nics.begin(), nics.end()), nics.end());
  return nics;
}

double node_network_gbps(const Topology& node, const std::vector<int>& gpus, const NetworkModel& net) {
  std::map<int, double> best_path_gbps;  // NIC -> widest GPU-to-NIC path among the GPUs using it
  for (int gpu : gpus)
    if (const int nic = network_nic(node, gpu); nic >= 0)
      best_path_gbps[nic] = std::max(best_path_gbps[nic], node.gpu_nic(gpu, nic).bandwidth_gbps);
  double total = 0;
  for (const auto& [nic, path_gbps] : best_path_gbps) total += std::min(net.nic_gbps(node.model().nics[nic]), path_gbps);
  return total;
}

// --- names and annotations -------------------------------------------------------------------

std::string_view multi_node_policy_name(MultiNodePolicy policy) {
  switch (policy) {
    case MultiNodePolicy::Pack: return "pack";
    case MultiNodePolicy::Spread: return "spread";
    case MultiNodePolicy::BestFit: return "best-fit";
  }
  return "pack";
}

std::vector<std::string> multi_node_policy_names() { return {"pack", "spread", "best-fit"}; }

std::optional<MultiNodePolicy> parse_multi_node_policy(std::string_view name) {
  for (auto p : {MultiNodePolicy::Pack, MultiNodePolicy::Spread, MultiNodePolicy::BestFit})
    if (multi_node_policy_name(p) == name) return p;
  return std::nullopt;
}

namespace {

std::optional<int> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(text);
}

}  // namespace

Status apply_gang_annotations(const std::map<std::string, std::string>& annotations, GangRequest& request) {
  if (Status s = apply_annotations(annotations, request.per_node); !s) return s;
  for (const auto& [key, value] : annotations) {
    if (key == "gpu.topology/multi-node-policy") {
      const auto policy = parse_multi_node_policy(value);
      if (!policy) return Error{key + ": '" + value + "' is not one of pack, spread, best-fit"};
      request.policy = *policy;
    } else if (key == "gpu.topology/max-nodes" || key == "gpu.topology/min-gpus-per-node") {
      const auto count = parse_count(value);
      if (!count) return Error{key + ": '" + value + "' is not a count (an integer >= 0)"};
      (key == "gpu.topology/max-nodes" ? request.max_nodes : request.min_gpus_per_node) = *count;
    }
  }
  return {};
}

// --- placement -------------------------------------------------------------------------------

int GangPlacement::gpu_count() const {
  int total = 0;
  for (const WorkerPlacement& w : workers) total += static_cast<int>(w.gpus.size());
  return total;
}

namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

Error cannot(const std::string& reason) { return Error{"cannot place gang: " + reason}; }
Error invalid(const std::string& reason) { return Error{"invalid gang request: " + reason}; }

std::string gbps_text(double gbps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB/s", gbps);
  return buf;
}

std::string count_text(long n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }
const char* has(long n) { return n == 1 ? " has" : " have"; }

// "a, b, c and 4 more"
std::string first_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 3) out += " and " + std::to_string(names.size() - 3) + " more";
  return out;
}

// A node that can hold at least one worker.
struct Candidate {
  int node = 0;
  int capacity = 0;        // workers it can take by free GPU count, at most W
  int free_gpus = 0;
  double rating_gbps = 0;  // node bandwidth at `capacity` workers (ranking); -1 = cannot place
};

struct Share {
  int node = 0;
  int workers = 0;
};

long total_capacity(const std::vector<Candidate>& cands) {
  long total = 0;
  for (const Candidate& c : cands) total += c.capacity;
  return total;
}

// Sum of the `k` largest capacities among `cands`.
long top_capacity(std::vector<Candidate> cands, size_t k) {
  k = std::min(k, cands.size());
  std::partial_sort(cands.begin(), cands.begin() + static_cast<long>(k), cands.end(),
                    [](const Candidate& a, const Candidate& b) { return a.capacity > b.capacity; });
  return total_capacity({cands.begin(), cands.begin() + static_cast<long>(k)});
}

// Worker counts for `chosen` (in this order) summing to `workers`, each at least `floor`:
// every node takes as many as it can while leaving `floor` for each later one.
// REQUIRES: capacities sum to >= workers, each >= floor, size x floor <= workers.
std::vector<Share> fill(const std::vector<Candidate>& chosen, int workers, int floor) {
  std::vector<Share> shares;
  int left = workers;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const int reserve = floor * static_cast<int>(chosen.size() - i - 1);
    const int take = std::min(chosen[i].capacity, left - reserve);
    shares.push_back({chosen[i].node, take});
    left -= take;
  }
  return shares;
}

// Worker counts dealt round-robin over `chosen` (in this order), `floor` each first.
std::vector<Share> deal(const std::vector<Candidate>& chosen, int workers, int floor) {
  std::vector<Share> shares;
  for (const Candidate& c : chosen) shares.push_back({c.node, floor});
  int left = workers - floor * static_cast<int>(chosen.size());
  while (left > 0)
    for (size_t i = 0; i < chosen.size() && left > 0; ++i)
      if (shares[i].workers < chosen[i].capacity) { ++shares[i].workers; --left; }
  return shares;
}

// One node's placement for some number of workers, and the network bandwidth of its GPUs.
struct Probe {
  Expected<Placement> placement;
  double network_gbps = 0;
};

struct ProbeKey {
  const Allocator* allocator;
  GpuSet free;
  int gpus;
  bool operator==(const ProbeKey& o) const { return allocator == o.allocator && free == o.free && gpus == o.gpus; }
};
struct ProbeKeyHash {
  size_t operator()(const ProbeKey& k) const {
    return std::hash<GpuSet>()(k.free) ^ (std::hash<const void*>()(k.allocator) * 31) ^ (static_cast<size_t>(k.gpus) << 7);
  }
};

// One place_gang call: candidates, the memoised per-node probes, selection by policy and the
// verification that excludes nodes whose actual placement breaks a limit.
class GangPlanner {
 public:
  GangPlanner(const std::vector<GangNode>& nodes, const GangRequest& request, const NetworkModel& net)
      : nodes_(nodes), r_(request), net_(net), excluded_(nodes.size(), false), single_only_(nodes.size(), false) {
    const int g = std::max(1, r_.gpus_per_worker);
    floor_ = std::max(1, (r_.min_gpus_per_node + g - 1) / g);
  }

  Expected<GangPlacement> run();

 private:
  Status validate() const;
  const Probe& probe(int node, int workers);
  double node_gbps(int node, int workers, bool multi);
  const Topology& topo(int node) const { return nodes_[node].allocator->topology(); }

  Expected<std::vector<Share>> select();
  Expected<std::vector<Candidate>> capable_candidates();
  Expected<std::vector<Candidate>> multi_node_candidates(std::vector<Candidate> cands);
  Status check_node_count(const std::vector<Candidate>& cands, size_t needed) const;
  Error node_count_error(const std::vector<Candidate>& cands, size_t needed) const;
  std::vector<Share> single_node(std::vector<Candidate> capable);
  Expected<std::vector<Share>> pack(std::vector<Candidate> cands);
  Expected<std::vector<Share>> spread(const std::vector<Candidate>& cands);
  Expected<std::vector<Share>> best_fit(std::vector<Candidate> cands);
  struct Fit {
    std::vector<Share> shares;
    double job_gbps = 0;
    long leftover_gpus = 0;
  };
  Fit fit_at(std::vector<Candidate> cands, size_t needed, double threshold_gbps, bool roomiest);
  std::vector<Candidate> tightest(std::vector<Candidate> cands, size_t needed) const;
  std::vector<Share> balance(const std::vector<Candidate>& chosen);
  std::vector<Share> split_at(const std::vector<Candidate>& chosen, const std::vector<std::vector<double>>& gbps,
                              double level) const;
  Expected<bool> reject_failing(const std::vector<Share>& shares);
  GangPlacement assemble(std::vector<Share> shares);
  std::string with_exclusions(const std::string& reason) const;
  // "holding 3 of 4 workers": what `cands` can hold against the gang.
  std::string holding(const std::vector<Candidate>& cands) const {
    return "holding " + std::to_string(total_capacity(cands)) + " of " + count_text(r_.workers, "worker");
  }

  const std::vector<GangNode>& nodes_;
  const GangRequest& r_;
  const NetworkModel& net_;
  int floor_ = 1;  // fewest workers on a used node (min-gpus-per-node)
  std::vector<bool> excluded_;     // its placement failed (per-node constraints without relaxing)
  std::vector<bool> single_only_;  // its placed GPUs fell below min-network: not for multi-node
  std::vector<std::string> exclusions_;  // "name (why)" for nodes excluded after a failed check
  std::unordered_map<ProbeKey, Probe, ProbeKeyHash> probes_;
};

Status GangPlanner::validate() const {
  if (r_.workers < 1) return invalid("workers must be at least 1, got " + std::to_string(r_.workers));
  if (r_.gpus_per_worker < 1)
    return invalid("gpus-per-worker must be at least 1, got " + std::to_string(r_.gpus_per_worker));
  if (r_.max_nodes < 0) return invalid("max-nodes must be >= 0 (0 = unlimited), got " + std::to_string(r_.max_nodes));
  if (r_.min_gpus_per_node < 0)
    return invalid("min-gpus-per-node must be >= 0, got " + std::to_string(r_.min_gpus_per_node));
  if (!(r_.min_network_gbps >= 0) || !std::isfinite(r_.min_network_gbps))
    return invalid("min-network must be a bandwidth >= 0 GB/s");
  if (!r_.per_node.must_include.empty()) return invalid("per-node must-include is not supported for gangs");
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const GangNode& n = nodes_[i];
    if (!n.allocator) return invalid("node " + std::to_string(i) + " (" + n.name + ") has no allocator");
    const int gpus = n.allocator->topology().gpu_count();
    if ((n.free & ~all_gpus(gpus)).any())
      return invalid("node " + n.name + ": free GPU id out of range (GPUs 0-" + std::to_string(gpus - 1) + ")");
  }
  const long gang_gpus = long{r_.workers} * r_.gpus_per_worker;
  if (r_.min_gpus_per_node > gang_gpus)
    return cannot("min-gpus-per-node " + std::to_string(r_.min_gpus_per_node) + " exceeds the gang's " +
                  count_text(gang_gpus, "GPU"));
  return {};
}

const Probe& GangPlanner::probe(int node, int workers) {
  const ProbeKey key{nodes_[node].allocator, nodes_[node].free, workers * r_.gpus_per_worker};
  if (auto it = probes_.find(key); it != probes_.end()) return it->second;
  PlacementRequest request = r_.per_node;
  request.gpus = key.gpus;
  Probe fresh{key.allocator->place(key.free, request)};
  if (fresh.placement) fresh.network_gbps = node_network_gbps(topo(node), fresh.placement->gpus, net_);
  return probes_.emplace(key, std::move(fresh)).first->second;
}

// The node's bandwidth with `workers` workers: intra-node bus bandwidth (unbounded for one
// GPU), and in a multi-node gang at most its network bandwidth; -1 when it cannot be placed.
double GangPlanner::node_gbps(int node, int workers, bool multi) {
  const Probe& p = probe(node, workers);
  if (!p.placement) return -1;
  const double intra = p.placement->gpus.size() >= 2 ? p.placement->ring.bus_bandwidth_gbps : kUnbounded;
  return multi ? std::min(intra, p.network_gbps) : intra;
}

std::string GangPlanner::with_exclusions(const std::string& reason) const {
  return exclusions_.empty() ? reason : reason + "; excluded after trying: " + first_names(exclusions_);
}

// Nodes with room for the per-node minimum of workers; an error when they cannot hold the gang.
Expected<std::vector<Candidate>> GangPlanner::capable_candidates() {
  std::vector<Candidate> cands;
  size_t with_room = 0;
  long room = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (excluded_[i]) continue;
    const int free_gpus = static_cast<int>(nodes_[i].free.count());
    const int capacity = std::min(free_gpus / r_.gpus_per_worker, r_.workers);
    if (capacity >= 1) { ++with_room; room += capacity; }
    if (capacity >= floor_) cands.push_back({static_cast<int>(i), capacity, free_gpus, 0});
  }
  if (room < r_.workers) {
    const std::string gang = count_text(r_.workers, "worker") + " x " + count_text(r_.gpus_per_worker, "GPU");
    const long all = static_cast<long>(nodes_.size());
    return cannot(with_exclusions(gang + " do not fit: " + std::to_string(with_room) + " of " + count_text(all, "node") +
                                  has(static_cast<long>(with_room)) + " room for a " + std::to_string(r_.gpus_per_worker) +
                                  "-GPU worker, holding " + count_text(room, "worker")));
  }
  if (total_capacity(cands) < r_.workers) {
    const long n = static_cast<long>(cands.size());
    return cannot(with_exclusions("min-gpus-per-node " + std::to_string(r_.min_gpus_per_node) + ": " + count_text(n, "node") +
                                  has(n) + " room for " + std::to_string(floor_ * r_.gpus_per_worker) + " GPUs, " +
                                  holding(cands)));
  }
  return cands;
}

// The candidates that can join a multi-node gang (NICs, min-network on all their NICs, an
// optimistic bound checked exactly after placement); an error when they cannot hold the gang.
Expected<std::vector<Candidate>> GangPlanner::multi_node_candidates(std::vector<Candidate> cands) {
  std::vector<std::string> without_nic;
  std::erase_if(cands, [&](const Candidate& c) {
    if (topo(c.node).nic_count() > 0) return false;
    without_nic.push_back(nodes_[c.node].name);
    return true;
  });
  if (total_capacity(cands) < r_.workers)
    return cannot(with_exclusions("no single node fits and nodes without NICs cannot join a multi-node gang (" +
                                  first_names(without_nic) + "); " + count_text(static_cast<long>(cands.size()), "node") +
                                  " with NICs, " + holding(cands)));
  if (r_.min_network_gbps <= 0) return cands;
  std::erase_if(cands, [&](const Candidate& c) {
    if (single_only_[c.node]) return true;
    double all_nics_gbps = 0;
    for (const Nic& nic : topo(c.node).model().nics) all_nics_gbps += net_.nic_gbps(nic);
    return all_nics_gbps < r_.min_network_gbps;
  });
  if (total_capacity(cands) < r_.workers)
    return cannot(with_exclusions("no single node fits and min-network " + gbps_text(r_.min_network_gbps) + " leaves " +
                                  count_text(static_cast<long>(cands.size()), "node") + ", " + holding(cands)));
  return cands;
}

// `needed` nodes are required; max-nodes and min-gpus-per-node must allow that many.
Status GangPlanner::check_node_count(const std::vector<Candidate>& cands, size_t needed) const {
  const long gang_gpus = long{r_.workers} * r_.gpus_per_worker;
  if (r_.max_nodes > 0 && needed > static_cast<size_t>(r_.max_nodes))
    return cannot(with_exclusions("max-nodes " + std::to_string(r_.max_nodes) + " allows " +
                                  count_text(top_capacity(cands, r_.max_nodes) * r_.gpus_per_worker, "GPU") + " at most, " +
                                  std::to_string(gang_gpus) + " requested"));
  if (static_cast<long>(needed) * floor_ > r_.workers)
    return cannot(with_exclusions("min-gpus-per-node " + std::to_string(r_.min_gpus_per_node) + " needs " +
                                  std::to_string(floor_ * r_.gpus_per_worker) + " GPUs on each of the " + std::to_string(needed) +
                                  " nodes required, " + std::to_string(gang_gpus) + " requested"));
  return {};
}

// The limit that forbids `needed` nodes (spread: the width it could not reach).
Error GangPlanner::node_count_error(const std::vector<Candidate>& cands, size_t needed) const {
  if (Status s = check_node_count(cands, needed); !s) return s.error();
  return cannot(with_exclusions("no " + count_text(static_cast<long>(needed), "node") + " can hold the gang"));
}

std::vector<Share> GangPlanner::single_node(std::vector<Candidate> capable) {
  for (Candidate& c : capable) c.rating_gbps = node_gbps(c.node, r_.workers, false);
  std::sort(capable.begin(), capable.end(), [&](const Candidate& a, const Candidate& b) {
    if (r_.policy == MultiNodePolicy::Spread && a.free_gpus != b.free_gpus) return a.free_gpus > b.free_gpus;
    if (r_.policy != MultiNodePolicy::Spread && a.rating_gbps != b.rating_gbps) return a.rating_gbps > b.rating_gbps;
    if (r_.policy == MultiNodePolicy::BestFit && a.free_gpus != b.free_gpus) return a.free_gpus < b.free_gpus;  // least left
    return a.node < b.node;
  });
  return {{capable.front().node, r_.workers}};
}

// Fewest nodes: the most workers first, then the better node bandwidth, then the lower index.
Expected<std::vector<Share>> GangPlanner::pack(std::vector<Candidate> cands) {
  for (Candidate& c : cands) c.rating_gbps = node_gbps(c.node, c.capacity, true);
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    if (a.capacity != b.capacity) return a.capacity > b.capacity;
    if (a.rating_gbps != b.rating_gbps) return a.rating_gbps > b.rating_gbps;
    return a.node < b.node;
  });
  size_t needed = 0;
  for (long held = 0; held < r_.workers; ++needed) held += cands[needed].capacity;
  if (Status s = check_node_count(cands, needed); !s) return s.error();
  cands.resize(needed);
  return fill(cands, r_.workers, floor_);
}

// As many nodes as the gang, the per-node minimum and max-nodes allow; the most free first.
Expected<std::vector<Share>> GangPlanner::spread(const std::vector<Candidate>& capable) {
  auto multi = multi_node_candidates(capable);
  size_t width = multi ? multi->size() : 0;
  width = std::min(width, static_cast<size_t>(r_.workers / floor_));
  if (r_.max_nodes > 0) width = std::min(width, static_cast<size_t>(r_.max_nodes));
  if (width < 2) {
    std::vector<Candidate> whole;
    for (const Candidate& c : capable)
      if (c.capacity >= r_.workers) whole.push_back(c);
    if (!whole.empty()) return single_node(whole);
    if (!multi) return multi.error();
    return node_count_error(*multi, 2);
  }
  std::vector<Candidate> cands = std::move(multi).value();
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    return a.free_gpus != b.free_gpus ? a.free_gpus > b.free_gpus : a.node < b.node;
  });
  cands.resize(width);
  if (total_capacity(cands) < r_.workers) return node_count_error(cands, width + 1);  // wider would fit
  return deal(cands, r_.workers, floor_);
}

// Fewest nodes, then the highest job bandwidth, then the fewest free GPUs left behind.
Expected<std::vector<Share>> GangPlanner::best_fit(std::vector<Candidate> cands) {
  for (Candidate& c : cands) c.rating_gbps = node_gbps(c.node, c.capacity, true);
  std::erase_if(cands, [](const Candidate& c) { return c.rating_gbps < 0; });
  if (total_capacity(cands) < r_.workers)
    return cannot(with_exclusions("the per-node constraints leave " + count_text(static_cast<long>(cands.size()), "node") +
                                  ", " + holding(cands)));
  std::vector<Candidate> by_capacity = cands;
  std::sort(by_capacity.begin(), by_capacity.end(), [](const Candidate& a, const Candidate& b) {
    return a.capacity > b.capacity;
  });
  size_t needed = 0;
  for (long held = 0; held < r_.workers; ++needed) held += by_capacity[needed].capacity;
  if (Status s = check_node_count(by_capacity, needed); !s) return s.error();
  // The highest rating whose nodes rated at least that hold the gang on `needed` nodes.
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.rating_gbps > b.rating_gbps; });
  std::priority_queue<int, std::vector<int>, std::greater<int>> largest;  // the `needed` largest so far
  long held = 0;
  size_t pool = 0;
  while (held < r_.workers) {
    largest.push(cands[pool].capacity);
    held += cands[pool++].capacity;
    if (largest.size() > needed) { held -= largest.top(); largest.pop(); }
  }
  const double top = cands[pool - 1].rating_gbps;
  // Candidate node sets at that rating: the tightest that hold the gang, and the roomiest
  // (more room for a good split); ratings assume full nodes, so the tightest are tried again
  // at the bandwidth actually reached. The best (bandwidth, then fewest GPUs left) wins.
  Fit best = fit_at(cands, needed, top, false);
  for (const auto& [threshold, roomiest] : {std::pair{top, true}, std::pair{-1.0, false}}) {
    Fit other = fit_at(cands, needed, threshold < 0 ? std::min(top, best.job_gbps) : threshold, roomiest);
    if (other.job_gbps > best.job_gbps + 1e-9 ||
        (other.job_gbps > best.job_gbps - 1e-9 && other.leftover_gpus < best.leftover_gpus))
      best = std::move(other);
  }
  return best.shares;
}

// The nodes rated at least `threshold_gbps` chosen to hold the gang on `needed` nodes, split by
// `balance`, with their job bandwidth and leftover. `roomiest`: the most workers first (ties:
// rating, index); else the tightest first, each taken when the rest can still complete the gang.
// REQUIRES: those nodes can hold the gang on `needed` nodes.
GangPlanner::Fit GangPlanner::fit_at(std::vector<Candidate> cands, size_t needed, double threshold_gbps, bool roomiest) {
  std::erase_if(cands, [&](const Candidate& c) { return c.rating_gbps < threshold_gbps - 1e-9; });
  std::vector<Candidate> chosen;
  if (roomiest) {
    std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
      if (a.capacity != b.capacity) return a.capacity > b.capacity;
      return a.rating_gbps != b.rating_gbps ? a.rating_gbps > b.rating_gbps : a.node < b.node;
    });
    chosen.assign(cands.begin(), cands.begin() + static_cast<long>(needed));
  } else {
    chosen = tightest(std::move(cands), needed);
  }
  Fit fit{balance(chosen), kUnbounded, -long{r_.workers} * r_.gpus_per_worker};
  for (size_t i = 0; i < chosen.size(); ++i) {
    fit.job_gbps = std::min(fit.job_gbps, node_gbps(chosen[i].node, fit.shares[i].workers, true));
    fit.leftover_gpus += chosen[i].free_gpus;
  }
  return fit;
}

// The `needed` nodes with the fewest free GPUs that still hold the gang: in free-GPU order, each
// taken when it and the largest of the rest can complete it. REQUIRES: `needed` of them can.
std::vector<Candidate> GangPlanner::tightest(std::vector<Candidate> cands, size_t needed) const {
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    return a.free_gpus != b.free_gpus ? a.free_gpus < b.free_gpus : a.node < b.node;
  });
  // Capacity grows with free GPUs, so the best completion from the nodes after i is a suffix.
  std::vector<long> suffix(cands.size() + 1, 0);
  for (size_t i = cands.size(); i-- > 0;) suffix[i] = suffix[i + 1] + cands[i].capacity;
  std::vector<Candidate> chosen;
  long held = 0;
  for (size_t i = 0; i < cands.size() && chosen.size() < needed; ++i) {
    const size_t more = needed - chosen.size() - 1;
    const long completion = suffix[std::max(i + 1, cands.size() - std::min(more, cands.size()))];
    if (held + cands[i].capacity + completion < r_.workers) continue;
    chosen.push_back(cands[i]);
    held += cands[i].capacity;
  }
  return chosen;
}

// Worker counts for `chosen` maximising the job bandwidth, exactly for these nodes: the
// highest level T such that every node can take a count in [floor, capacity] whose bandwidth
// is >= T with the counts summing to W (binary search over the levels probed; feasibility by
// a table of reachable sums, O(nodes x W x capacity)). Among equal splits, earlier nodes
// take more. Falls back to `fill` when no level works (a node that cannot be placed at all).
std::vector<Share> GangPlanner::balance(const std::vector<Candidate>& chosen) {
  std::vector<std::vector<double>> gbps(chosen.size());  // [node][workers]
  std::vector<double> levels;
  for (size_t i = 0; i < chosen.size(); ++i) {
    gbps[i].assign(chosen[i].capacity + 1, -1);
    for (int k = floor_; k <= chosen[i].capacity; ++k) {
      gbps[i][k] = node_gbps(chosen[i].node, k, true);
      if (gbps[i][k] >= 0) levels.push_back(gbps[i][k]);
    }
  }
  std::sort(levels.begin(), levels.end(), std::greater<double>());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  size_t lo = 0, hi = levels.size();  // find the first (highest) feasible level
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (split_at(chosen, gbps, levels[mid]).empty()) lo = mid + 1;
    else hi = mid;
  }
  return lo < levels.size() ? split_at(chosen, gbps, levels[lo]) : fill(chosen, r_.workers, floor_);
}

// Counts summing to W with every node's bandwidth >= `level`; empty when there are none.
std::vector<Share> GangPlanner::split_at(const std::vector<Candidate>& chosen, const std::vector<std::vector<double>>& gbps,
                                         double level) const {
  const size_t m = chosen.size(), w = static_cast<size_t>(r_.workers);
  // reach[i][s]: the count node i takes so that nodes i.. sum to s (-1: impossible).
  std::vector<std::vector<int>> reach(m + 1, std::vector<int>(w + 1, -1));
  reach[m][0] = 0;
  for (size_t i = m; i-- > 0;)
    for (size_t sum = 0; sum <= w; ++sum)
      for (int k = chosen[i].capacity; k >= floor_ && reach[i][sum] < 0; --k)
        if (static_cast<size_t>(k) <= sum && gbps[i][k] >= level - 1e-9 && reach[i + 1][sum - k] >= 0) reach[i][sum] = k;
  if (reach[0][w] < 0) return {};
  std::vector<Share> shares;
  for (size_t i = 0, sum = w; i < m; sum -= static_cast<size_t>(reach[i][sum]), ++i) shares.push_back({chosen[i].node, reach[i][sum]});
  return shares;
}

Expected<std::vector<Share>> GangPlanner::select() {
  auto capable = capable_candidates();
  if (!capable) return capable.error();
  if (r_.policy == MultiNodePolicy::Spread) return spread(*capable);
  std::vector<Candidate> whole;
  for (const Candidate& c : *capable)
    if (c.capacity >= r_.workers) whole.push_back(c);
  if (!whole.empty()) return single_node(whole);
  auto multi = multi_node_candidates(std::move(capable).value());
  if (!multi) return multi.error();
  return r_.policy == MultiNodePolicy::Pack ? pack(std::move(multi).value()) : best_fit(std::move(multi).value());
}

// Excludes every node of `shares` whose actual placement fails: per-node constraints without
// relaxing (the node is dropped), or min-network (the node may still hold a gang alone); true
// when one was excluded. Malformed per-node requests are errors.
Expected<bool> GangPlanner::reject_failing(const std::vector<Share>& shares) {
  bool rejected = false;
  for (const Share& s : shares) {
    const Probe& p = probe(s.node, s.workers);
    std::string why;
    if (!p.placement && p.placement.error().message.rfind("cannot satisfy", 0) != 0)
      return invalid("node " + nodes_[s.node].name + ": " + p.placement.error().message);
    if (!p.placement) why = p.placement.error().message;
    else if (shares.size() > 1 && p.network_gbps < r_.min_network_gbps)
      why = "network " + gbps_text(p.network_gbps) + " < min-network " + gbps_text(r_.min_network_gbps);
    if (why.empty()) continue;
    (p.placement ? single_only_ : excluded_)[s.node] = true;
    exclusions_.push_back(nodes_[s.node].name + " (" + why + ")");
    rejected = true;
  }
  return rejected;
}

GangPlacement GangPlanner::assemble(std::vector<Share> shares) {
  std::sort(shares.begin(), shares.end(), [](const Share& a, const Share& b) { return a.node < b.node; });
  GangPlacement gang;
  const bool multi = shares.size() > 1;
  gang.bus_bandwidth_gbps = multi ? kUnbounded : 0;
  gang.network_gbps = multi ? kUnbounded : 0;
  for (const Share& s : shares) {
    const Probe& probed = probe(s.node, s.workers);
    const Placement& p = probed.placement.value();
    gang.nodes.push_back(s.node);
    gang.node_rings.push_back(p.ring);
    for (int w = 0; w < s.workers; ++w) {
      const auto first = p.ring.order.begin() + static_cast<long>(w) * r_.gpus_per_worker;
      std::vector<int> gpus(first, first + r_.gpus_per_worker);
      std::sort(gpus.begin(), gpus.end());
      gang.workers.push_back({s.node, std::move(gpus)});
    }
    for (const std::string& c : p.relaxed) gang.relaxed.push_back(nodes_[s.node].name + ": " + c);
    gang.nics_per_node.push_back(multi ? network_nics(topo(s.node), p.gpus) : std::vector<int>{});
    gang.node_network_gbps.push_back(multi ? probed.network_gbps : 0.0);
    if (!multi) { gang.bus_bandwidth_gbps = p.ring.bus_bandwidth_gbps; continue; }
    gang.network_gbps = std::min(gang.network_gbps, gang.node_network_gbps.back());
    const double intra = p.gpus.size() >= 2 ? p.ring.bus_bandwidth_gbps : kUnbounded;
    gang.bus_bandwidth_gbps = std::min({gang.bus_bandwidth_gbps, intra, gang.node_network_gbps.back()});
  }
  gang.network_crossings = multi ? static_cast<int>(shares.size()) : 0;
  return gang;
}

Expected<GangPlacement> GangPlanner::run() {
  if (Status s = validate(); !s) return s.error();
  while (true) {  // each round excludes at least one node, so this ends
    auto shares = select();
    if (!shares) return shares.error();
    auto rejected = reject_failing(*shares);
    if (!rejected) return rejected.error();
    if (!*rejected) return assemble(std::move(shares).value());
  }
}

}  // namespace

Expected<GangPlacement> place_gang(const std::vector<GangNode>& nodes, const GangRequest& request, const NetworkModel& net) {
  return GangPlanner(nodes, request, net).run();
}

double job_allreduce_time_us(const GangPlacement& placement, double bytes) {
  const int ranks = placement.gpu_count();
  if (ranks < 2) return 0;
  const bool nvlink = std::all_of(placement.node_rings.begin(), placement.node_rings.end(),
                                  [](const RingPlan& r) { return r.order.size() < 2 || r.nvlink_only; });
  const int nodes = static_cast<int>(placement.nodes.size());
  return allreduce_time(bytes, ranks, nodes, placement.bus_bandwidth_gbps, nvlink).time_us;
}

}  // namespace topsim
