#include "core/gang.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/gang_planner.h"
#include "util/text.h"

namespace topsim {

// --- names and annotations -------------------------------------------------------------------

namespace {

std::optional<int> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(text);
}

// "pack, spread, best-fit": every policy name, for errors.
std::string multi_node_policy_list() { return join(enum_name_list<MultiNodePolicy>(), ", "); }

}  // namespace

Status apply_gang_annotations(const std::map<std::string, std::string>& annotations, GangRequest& request) {
  if (Status s = apply_annotations(annotations, request.per_node); !s) return s;
  for (const auto& [key, value] : annotations) {
    if (key == "gpu.topology/multi-node-policy") {
      const auto policy = parse_enum<MultiNodePolicy>(value);
      if (!policy) return Error{key + ": '" + value + "' is not one of " + multi_node_policy_list()};
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

namespace gang_detail {

Error cannot(const std::string& reason) { return Error{"cannot place gang: " + reason}; }

std::string count_text(long n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

long total_capacity(const std::vector<Candidate>& cands) {
  long total = 0;
  for (const Candidate& c : cands) total += c.capacity;
  return total;
}

namespace {

Error invalid(const std::string& reason) { return Error{"invalid gang request: " + reason}; }

std::string gbps_text(double gbps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB/s", gbps);
  return buf;
}

const char* has(long n) { return n == 1 ? " has" : " have"; }

// "a, b, c and 4 more"
std::string first_names(const std::vector<std::string>& names) {
  std::string out = join(std::vector<std::string>(names.begin(), names.begin() + std::min<size_t>(names.size(), 3)), ", ");
  if (names.size() > 3) out += " and " + std::to_string(names.size() - 3) + " more";
  return out;
}

// Sum of the `k` largest capacities among `cands`.
long top_capacity(std::vector<Candidate> cands, size_t k) {
  k = std::min(k, cands.size());
  std::partial_sort(cands.begin(), cands.begin() + static_cast<long>(k), cands.end(),
                    [](const Candidate& a, const Candidate& b) { return a.capacity > b.capacity; });
  return total_capacity({cands.begin(), cands.begin() + static_cast<long>(k)});
}

}  // namespace

Status GangPlanner::validate() const {
  if (r_.workers < 1) return invalid("workers must be at least 1, got " + std::to_string(r_.workers));
  if (r_.gpus_per_worker < 1) return invalid("gpus-per-worker must be at least 1, got " + std::to_string(r_.gpus_per_worker));
  if (r_.max_nodes < 0) return invalid("max-nodes must be >= 0 (0 = unlimited), got " + std::to_string(r_.max_nodes));
  if (r_.min_gpus_per_node < 0) return invalid("min-gpus-per-node must be >= 0, got " + std::to_string(r_.min_gpus_per_node));
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

const Probe& GangPlanner::probe(int node, int workers, const GpuSet& free) {
  const ProbeKey key{nodes_[node].allocator, free, workers * r_.gpus_per_worker};
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
    if (excluded_[i] || avoided_[i]) continue;
    const int free_gpus = static_cast<int>(nodes_[i].free.count());
    const int capacity = std::min(free_gpus / r_.gpus_per_worker, r_.workers);
    if (capacity >= 1) {
      ++with_room;
      room += capacity;
    }
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
  auto shares = r_.policy == MultiNodePolicy::Pack ? pack(*multi) : best_fit(*multi);
  if (!shares) return shares.error();
  return rail_align(std::move(shares).value(), *multi);
}

// Excludes every node of `shares` whose actual placement fails: per-node constraints without
// relaxing (the node is dropped), or min-network (the node may still hold a gang alone); true
// when one was excluded. Malformed per-node requests are errors.
Expected<bool> GangPlanner::reject_failing(const std::vector<Share>& shares) {
  bool rejected = false;
  for (const Share& s : shares) {
    const Probe& p = probe(s);
    std::string why;
    if (!p.placement && p.placement.error().message.rfind("cannot satisfy", 0) != 0)
      return invalid("node " + nodes_[s.node].name + ": " + p.placement.error().message);
    if (!p.placement)
      why = p.placement.error().message;
    else if (shares.size() > 1 && p.network_gbps < r_.min_network_gbps)
      why = "network " + gbps_text(p.network_gbps) + " < min-network " + gbps_text(r_.min_network_gbps);
    if (why.empty()) continue;
    (p.placement ? single_only_ : excluded_)[s.node] = true;
    exclusions_.push_back(nodes_[s.node].name + " (" + why + ")");
    rejected = true;
  }
  return rejected;
}

namespace {

// Adds one used node to `gang`'s bandwidth model (gang.h): its ring, NICs and network bandwidth.
void add_node_bandwidth(GangPlacement& gang, const RingPlan& ring, size_t gpus, std::vector<int> nics, double network_gbps,
                        bool multi) {
  gang.node_rings.push_back(ring);
  gang.nics_per_node.push_back(multi ? std::move(nics) : std::vector<int>{});
  gang.node_network_gbps.push_back(multi ? network_gbps : 0.0);
  if (!multi) {
    gang.bus_bandwidth_gbps = ring.bus_bandwidth_gbps;
    return;
  }
  gang.network_gbps = std::min(gang.network_gbps, network_gbps);
  const double intra = gpus >= 2 ? ring.bus_bandwidth_gbps : kUnbounded;
  gang.bus_bandwidth_gbps = std::min({gang.bus_bandwidth_gbps, intra, network_gbps});
}

}  // namespace

GangPlacement GangPlanner::assemble(std::vector<Share> shares) {
  std::sort(shares.begin(), shares.end(), [](const Share& a, const Share& b) { return a.node < b.node; });
  GangPlacement gang;
  const bool multi = shares.size() > 1;
  gang.bus_bandwidth_gbps = multi ? kUnbounded : 0;
  gang.network_gbps = multi ? kUnbounded : 0;
  for (const Share& s : shares) {
    const Probe& probed = probe(s);
    const Placement& p = probed.placement.value();
    gang.nodes.push_back(s.node);
    for (int w = 0; w < s.workers; ++w) {
      const auto first = p.ring.order.begin() + static_cast<long>(w) * r_.gpus_per_worker;
      std::vector<int> gpus(first, first + r_.gpus_per_worker);
      std::sort(gpus.begin(), gpus.end());
      gang.workers.push_back({s.node, std::move(gpus)});
    }
    for (const std::string& c : p.relaxed) gang.relaxed.push_back(nodes_[s.node].name + ": " + c);
    add_node_bandwidth(gang, p.ring, p.gpus.size(), multi ? network_nics(topo(s.node), p.gpus) : std::vector<int>{},
                       probed.network_gbps, multi);
  }
  gang.network_crossings = multi ? static_cast<int>(shares.size()) : 0;
  return gang;
}

Expected<std::vector<Share>> GangPlanner::verified_selection() {
  while (true) {  // each round excludes at least one node, so this ends
    auto shares = select();
    if (!shares) return shares.error();
    auto rejected = reject_failing(*shares);
    if (!rejected) return rejected.error();
    if (!*rejected) return shares;
  }
}

Expected<GangPlacement> GangPlanner::run() {
  if (Status s = validate(); !s) return s.error();
  auto shares = verified_selection();
  if (!shares) return shares.error();
  return assemble(avoid_slow_pairs(std::move(shares).value()));
}

}  // namespace gang_detail

GangPlacement gang_placement_of(const std::vector<GangNode>& nodes, const std::vector<std::vector<int>>& gpus,
                                std::vector<WorkerPlacement> workers, const NetworkModel& net) {
  GangPlacement gang;
  const bool multi = nodes.size() > 1;
  gang.bus_bandwidth_gbps = multi ? gang_detail::kUnbounded : 0;
  gang.network_gbps = multi ? gang_detail::kUnbounded : 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Topology& topology = nodes[i].allocator->topology();
    gang.nodes.push_back(static_cast<int>(i));
    gang_detail::add_node_bandwidth(gang, nodes[i].allocator->ring_plan(to_gpu_set(gpus[i])), gpus[i].size(),
                                    network_nics(topology, gpus[i]), node_network_gbps(topology, gpus[i], net), multi);
  }
  gang.workers = std::move(workers);
  gang.network_crossings = multi ? static_cast<int>(nodes.size()) : 0;
  return gang;
}

Expected<GangPlacement> place_gang(const std::vector<GangNode>& nodes, const GangRequest& request, const NetworkModel& net) {
  return gang_detail::GangPlanner(nodes, request, net).run();
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
