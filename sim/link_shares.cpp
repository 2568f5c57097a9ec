// Max-min fair shares of saturated uplinks (see link_shares.h).
#include "sim/link_shares.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace topsim {
namespace {

constexpr double kRelativeSlack = 1e-9;  // loads within this of a capacity count as fitting

}  // namespace

LinkShares::LinkShares(std::vector<double> capacity_gbps, std::vector<int> link_level) : link_mark_(capacity_gbps.size(), 0) {
  links_.reserve(capacity_gbps.size());
  for (size_t l = 0; l < capacity_gbps.size(); ++l) {
    const int level = link_level[l];
    links_.push_back({capacity_gbps[l], level, 0, {}});
    if (static_cast<size_t>(level) >= level_capacity_.size()) level_capacity_.resize(static_cast<size_t>(level) + 1, 0);
    level_capacity_[static_cast<size_t>(level)] += capacity_gbps[l];
  }
  level_carried_.assign(level_capacity_.size(), 0);
}

double LinkShares::level_utilisation(int level) const {
  const size_t l = static_cast<size_t>(level);
  return level_capacity_[l] > 0 ? std::min(1.0, std::max(0.0, level_carried_[l] / level_capacity_[l])) : 0;
}

void LinkShares::set_share(Flow& f, double share) {
  const double delta = share - std::max(0.0, f.share);
  for (int l : f.links) level_carried_[static_cast<size_t>(links_[static_cast<size_t>(l)].level)] += delta;
  f.share = share;
}

bool LinkShares::saturated(int link) const {
  const Link& l = links_[static_cast<size_t>(link)];
  return l.load > l.capacity * (1 + kRelativeSlack);
}

LinkShares::Flow& LinkShares::flow(uint32_t job) { return flows_.at(job); }

bool LinkShares::has(uint32_t job) const { return flows_.count(job) > 0; }

double LinkShares::share_gbps(uint32_t job) const { return flows_.at(job).share; }

double LinkShares::factor(uint32_t job) const {
  const Flow& f = flows_.at(job);
  return f.demand > 0 ? std::min(1.0, f.share / f.demand) : 1.0;
}

double LinkShares::carried_gbps(int link) const {
  double carried = 0;
  for (uint32_t job : links_[static_cast<size_t>(link)].jobs) carried += flows_.at(job).share;
  return carried;
}

const std::vector<uint32_t>& LinkShares::add(uint32_t job, const std::vector<int>& links, double demand_gbps) {
  Flow& f = flows_[job];
  f.links = links;
  f.demand = demand_gbps;
  f.share = -1;  // so that it counts as changed
  for (int l : links) {
    Link& link = links_[static_cast<size_t>(l)];
    link.load += demand_gbps;
    link.jobs.insert(std::upper_bound(link.jobs.begin(), link.jobs.end(), job), job);
  }
  refill(links);
  return changed_;
}

const std::vector<uint32_t>& LinkShares::remove(uint32_t job) {
  const auto it = flows_.find(job);
  set_share(it->second, 0);
  const std::vector<int> links = std::move(it->second.links);
  for (int l : links) {
    Link& link = links_[static_cast<size_t>(l)];
    link.load = link.jobs.size() == 1 ? 0 : link.load - it->second.demand;  // no drift once empty
    link.jobs.erase(std::lower_bound(link.jobs.begin(), link.jobs.end(), job));
  }
  flows_.erase(it);
  refill(links);
  return changed_;
}

void LinkShares::refill(const std::vector<int>& seeds) {
  changed_.clear();
  ++epoch_;
  // The component: jobs on the seed links, and through saturated links everything they reach.
  std::vector<int> queue;
  std::vector<uint32_t> jobs;
  for (int l : seeds)
    if (link_mark_[static_cast<size_t>(l)] != epoch_) link_mark_[static_cast<size_t>(l)] = epoch_, queue.push_back(l);
  std::vector<int> bounding;  // saturated links of the component
  for (size_t q = 0; q < queue.size(); ++q) {
    const int l = queue[q];
    if (saturated(l)) bounding.push_back(l);
    for (uint32_t j : links_[static_cast<size_t>(l)].jobs) {
      Flow& f = flow(j);
      if (f.mark == epoch_) continue;
      f.mark = epoch_;
      jobs.push_back(j);
      for (int next : f.links)
        if (link_mark_[static_cast<size_t>(next)] != epoch_ && saturated(next))
          link_mark_[static_cast<size_t>(next)] = epoch_, queue.push_back(next);
    }
  }
  std::sort(jobs.begin(), jobs.end());
  std::sort(bounding.begin(), bounding.end());
  // Progressive filling over the bounding links: all unfrozen jobs rise together by `level`.
  std::vector<double> before(jobs.size()), room(bounding.size());
  std::vector<int> rising(bounding.size(), 0);
  std::vector<char> frozen(jobs.size(), 0);
  for (size_t b = 0; b < bounding.size(); ++b) room[b] = capacity_gbps(bounding[b]);
  auto bounding_index = [&](int link) { return std::lower_bound(bounding.begin(), bounding.end(), link) - bounding.begin(); };
  for (size_t i = 0; i < jobs.size(); ++i) {
    Flow& f = flow(jobs[i]);
    before[i] = f.share;
    for (int l : f.links)
      if (std::binary_search(bounding.begin(), bounding.end(), l)) ++rising[static_cast<size_t>(bounding_index(l))];
  }
  double level = 0;
  size_t left = jobs.size();
  // Each round freezes a job or fills a link; the bound only guards against rounding.
  for (size_t round = 0; left > 0; ++round) {
    const bool last_round = round > jobs.size() + bounding.size();
    double step = std::numeric_limits<double>::infinity();
    for (size_t b = 0; b < bounding.size(); ++b)
      if (rising[b] > 0) step = std::min(step, room[b] / rising[b]);
    for (size_t i = 0; i < jobs.size(); ++i)
      if (!frozen[i]) step = std::min(step, flow(jobs[i]).demand - level);
    step = std::max(0.0, step);
    level += step;
    for (size_t b = 0; b < bounding.size(); ++b) room[b] -= step * rising[b];
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (frozen[i]) continue;
      Flow& f = flow(jobs[i]);
      bool stop = last_round || f.demand - level <= f.demand * kRelativeSlack;
      for (int l : f.links) {
        if (stop) break;
        if (!std::binary_search(bounding.begin(), bounding.end(), l)) continue;
        const size_t b = static_cast<size_t>(bounding_index(l));
        stop = room[b] <= capacity_gbps(l) * kRelativeSlack;
      }
      if (!stop) continue;
      set_share(f, std::min(level, f.demand));
      frozen[i] = 1;
      --left;
      for (int l : f.links)
        if (std::binary_search(bounding.begin(), bounding.end(), l)) --rising[static_cast<size_t>(bounding_index(l))];
    }
  }
  for (size_t i = 0; i < jobs.size(); ++i)
    if (std::abs(flow(jobs[i]).share - before[i]) > kRelativeSlack * flow(jobs[i]).demand) changed_.push_back(jobs[i]);
}

}  // namespace topsim
