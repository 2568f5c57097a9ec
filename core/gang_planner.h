// Internal to core: the planner behind place_gang (gang.h), shared by gang.cpp (candidates,
// probes, limits, verification and assembly of the result) and gang_policies.cpp (the node-choice
// policies pack, spread and best-fit, and the single-node choice). Not part of the public API.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/gang.h"

namespace topsim::gang_detail {

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

Error cannot(const std::string& reason);                  // "cannot place gang: <reason>"
std::string count_text(long n, const std::string& noun);  // "1 node", "3 nodes"

// A node that can hold at least one worker.
struct Candidate {
  int node = 0;
  int capacity = 0;  // workers it can take by free GPU count, at most W
  int free_gpus = 0;
  double rating_gbps = 0;  // node bandwidth at `capacity` workers (ranking); -1 = cannot place
};

struct Share {
  Share() = default;
  Share(int node_index, int worker_count, std::optional<GpuSet> chosen_from = std::nullopt)
      : node(node_index), workers(worker_count), within(chosen_from) {}
  int node = 0;
  int workers = 0;
  std::optional<GpuSet> within;  // the GPUs its placement chooses from; default: the node's free
};

// Workers the candidates can take in total.
long total_capacity(const std::vector<Candidate>& cands);

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
    return GpuSetHash()(k.free) ^ (std::hash<const void*>()(k.allocator) * 31) ^ (static_cast<size_t>(k.gpus) << 7);
  }
};

// One place_gang call: candidates, the memoised per-node probes, selection by policy and the
// verification that excludes nodes whose actual placement breaks a limit.
class GangPlanner {
 public:
  GangPlanner(const std::vector<GangNode>& nodes, const GangRequest& request, const NetworkModel& net)
      : nodes_(nodes),
        r_(request),
        net_(net),
        excluded_(nodes.size(), false),
        single_only_(nodes.size(), false),
        avoided_(nodes.size(), false) {
    const int g = std::max(1, r_.gpus_per_worker);
    floor_ = std::max(1, (r_.min_gpus_per_node + g - 1) / g);
  }

  Expected<GangPlacement> run();

 private:
  Status validate() const;
  const Probe& probe(int node, int workers) { return probe(node, workers, nodes_[node].free); }
  const Probe& probe(int node, int workers, const GpuSet& free);
  const Probe& probe(const Share& s) { return probe(s.node, s.workers, s.within ? *s.within : nodes_[s.node].free); }
  double node_gbps(int node, int workers, bool multi);
  const Topology& topo(int node) const { return nodes_[node].allocator->topology(); }

  Expected<std::vector<Share>> select();
  Expected<std::vector<Share>> verified_selection();  // select, excluding failing nodes until none fails
  // Measured pairs (gang.h): `shares`, or a choice off the slowest measured pair of its nodes.
  std::vector<Share> avoid_slow_pairs(std::vector<Share> shares);
  struct SlowPair {
    double gbps = 0;  // the least measured bus bandwidth among the nodes' pairs; 0: none measured
    int a = -1, b = -1;
  };
  SlowPair slowest_pair(const std::vector<Share>& shares) const;
  double share_gbps(const Share& s);                      // a placed node's bandwidth in a multi-node gang
  double model_gbps(const std::vector<Share>& shares);    // the least share_gbps
  double bounded_gbps(const std::vector<Share>& shares);  // model_gbps, at most the slowest measured pair
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
  // Rail alignment (gang.h): `shares`, or a rail-aligned placement on as many of `cands`.
  std::vector<Share> rail_align(std::vector<Share> shares, const std::vector<Candidate>& cands);
  std::vector<int> nics_of(const Share& s);
  struct AlignedFit {
    std::vector<Share> shares;
    double job_gbps = -1;
  };
  AlignedFit aligned_on(const std::vector<int>& nics, const std::vector<Candidate>& cands, int workers, size_t count);
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
  int floor_ = 1;                        // fewest workers on a used node (min-gpus-per-node)
  std::vector<bool> excluded_;           // its placement failed (per-node constraints without relaxing)
  std::vector<bool> single_only_;        // its placed GPUs fell below min-network: not for multi-node
  std::vector<bool> avoided_;            // one end of a slow measured pair: left out of later choices
  std::vector<std::string> exclusions_;  // "name (why)" for nodes excluded after a failed check
  std::unordered_map<ProbeKey, Probe, ProbeKeyHash> probes_;
};

}  // namespace topsim::gang_detail
