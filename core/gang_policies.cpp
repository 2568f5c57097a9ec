// The node-choice policies of the gang planner (gang_planner.h): the single-node choice, pack,
// spread and best-fit with its balanced split (contracts in gang.h).
#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "core/gang_planner.h"

namespace topsim::gang_detail {
namespace {

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
      if (shares[i].workers < chosen[i].capacity) {
        ++shares[i].workers;
        --left;
      }
  return shares;
}

}  // namespace

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
  std::vector<Candidate> cands = *multi;
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    return a.free_gpus != b.free_gpus ? a.free_gpus > b.free_gpus : a.node < b.node;
  });
  cands.resize(width);
  if (total_capacity(cands) < r_.workers) return node_count_error(cands, width + 1);  // wider would fit
  return rail_align(deal(cands, r_.workers, floor_), *multi);
}

// Fewest nodes, then the highest job bandwidth, then the fewest free GPUs left behind.
Expected<std::vector<Share>> GangPlanner::best_fit(std::vector<Candidate> cands) {
  for (Candidate& c : cands) c.rating_gbps = node_gbps(c.node, c.capacity, true);
  std::erase_if(cands, [](const Candidate& c) { return c.rating_gbps < 0; });
  if (total_capacity(cands) < r_.workers)
    return cannot(with_exclusions("the per-node constraints leave " + count_text(static_cast<long>(cands.size()), "node") + ", " +
                                  holding(cands)));
  std::vector<Candidate> by_capacity = cands;
  std::sort(by_capacity.begin(), by_capacity.end(),
            [](const Candidate& a, const Candidate& b) { return a.capacity > b.capacity; });
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
    if (largest.size() > needed) {
      held -= largest.top();
      largest.pop();
    }
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
    if (split_at(chosen, gbps, levels[mid]).empty())
      lo = mid + 1;
    else
      hi = mid;
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
  for (size_t i = 0, sum = w; i < m; sum -= static_cast<size_t>(reach[i][sum]), ++i)
    shares.push_back({chosen[i].node, reach[i][sum]});
  return shares;
}

}  // namespace topsim::gang_detail
