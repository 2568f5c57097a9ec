// Rail alignment in the gang planner (gang_planner.h; contract in gang.h, "rail alignment"): a
// multi-node choice whose nodes use different NIC sets is replaced by one on as many nodes that
// uses the same NICs on every node, when one exists with no lower job bandwidth.
#include <algorithm>

#include "core/gang_planner.h"

namespace topsim::gang_detail {
namespace {

// The GPUs of `node` whose inter-node traffic goes through one of `nics` (ascending).
GpuSet gpus_on_nics(const Topology& node, const std::vector<int>& nics) {
  GpuSet gpus;
  for (int gpu = 0; gpu < node.gpu_count(); ++gpu)
    if (std::binary_search(nics.begin(), nics.end(), network_nic(node, gpu))) gpus.set(static_cast<size_t>(gpu));
  return gpus;
}

}  // namespace

// A placed node's bandwidth in a multi-node gang (gang.h): its ring (one GPU: unbounded) and its
// network. REQUIRES: the share's probe placed it.
double GangPlanner::share_gbps(const Share& s) {
  const Probe& p = probe(s);
  const double intra = p.placement->gpus.size() >= 2 ? p.placement->ring.bus_bandwidth_gbps : kUnbounded;
  return std::min(intra, p.network_gbps);
}

std::vector<int> GangPlanner::nics_of(const Share& s) {
  const Probe& p = probe(s);
  return p.placement ? network_nics(topo(s.node), p.placement->gpus) : std::vector<int>{};
}

std::vector<Share> GangPlanner::rail_align(std::vector<Share> shares, const std::vector<Candidate>& cands) {
  if (!r_.prefer_rail_aligned || shares.size() < 2) return shares;
  const std::vector<int> first = nics_of(shares.front());
  double chosen_gbps = kUnbounded;
  bool aligned = true;
  for (const Share& s : shares) {
    const Probe& p = probe(s);
    if (!p.placement) return shares;  // verification excludes the node and chooses again
    aligned = aligned && nics_of(s) == first;
    chosen_gbps = std::min(chosen_gbps, share_gbps(s));
  }
  const size_t count = shares.size();
  const int workers = r_.workers / static_cast<int>(count);
  if (aligned || r_.workers % static_cast<int>(count) != 0 || workers < floor_) return shares;
  std::vector<std::vector<int>> targets;  // the NIC sets the candidates' own placements use
  for (const Candidate& c : cands) {
    if (c.capacity < workers) continue;
    std::vector<int> nics = nics_of({c.node, workers, std::nullopt});
    if (!nics.empty() && std::find(targets.begin(), targets.end(), nics) == targets.end()) targets.push_back(std::move(nics));
  }
  AlignedFit best;
  for (const std::vector<int>& target : targets) {
    AlignedFit fit = aligned_on(target, cands, workers, count);
    if (fit.job_gbps > best.job_gbps + 1e-9) best = std::move(fit);
  }
  return best.job_gbps >= chosen_gbps - 1e-9 ? best.shares : shares;
}

// `count` nodes of `cands` each holding `workers` workers on GPUs that use exactly the NICs
// `nics`: the best bandwidth first, then the lower index (the caller's order); job_gbps
// -1 when fewer than `count` can.
GangPlanner::AlignedFit GangPlanner::aligned_on(const std::vector<int>& nics, const std::vector<Candidate>& cands, int workers,
                                                size_t count) {
  struct Fitting {
    Share share;
    double gbps = 0;
  };
  std::vector<Fitting> fitting;
  for (const Candidate& c : cands) {
    if (c.capacity < workers) continue;
    const Share own{c.node, workers, std::nullopt};
    const Share share{c.node, workers, nodes_[c.node].free & gpus_on_nics(topo(c.node), nics)};
    if (static_cast<int>(share.within->count()) < workers * r_.gpus_per_worker) continue;
    const Probe& p = probe(share);
    const Probe& unrestricted = probe(own);
    if (!p.placement || !unrestricted.placement || p.placement->relaxed.size() > unrestricted.placement->relaxed.size() ||
        p.network_gbps < r_.min_network_gbps || nics_of(share) != nics)
      continue;
    fitting.push_back({share, share_gbps(share)});
  }
  if (fitting.size() < count) return {};
  std::sort(fitting.begin(), fitting.end(),
            [](const Fitting& a, const Fitting& b) { return a.gbps != b.gbps ? a.gbps > b.gbps : a.share.node < b.share.node; });
  AlignedFit fit{{}, kUnbounded};
  for (size_t i = 0; i < count; ++i) {
    fit.shares.push_back(fitting[i].share);
    fit.job_gbps = std::min(fit.job_gbps, fitting[i].gbps);
  }
  return fit;
}

}  // namespace topsim::gang_detail
