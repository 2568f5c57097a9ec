// Jobs sharing the fabric's uplinks (core/fabric.h): each running multi-node job offers its
// demand (its ring's network-bound bandwidth, GB/s) on every uplink its placement crosses; where
// the offered load of a link exceeds its capacity the jobs on it share it max-min fairly
// (progressive filling: every job's share rises together until a link fills or the job's
// demand is met; jobs held by a full link keep that share, the others rise on).
//
// Only what a change can touch is recomputed: the max-min allocation decomposes over the
// connected components of the graph of jobs and *saturated* links (a link whose load is within
// its capacity bounds nobody), so adding or removing a job refills only the component reached
// from its links through saturated links. Cost per change: O(J_c x L_c x r) for a component of
// J_c jobs and L_c links settled in r rounds; O(links of the job) when nothing is saturated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace topsim {

class LinkShares {
 public:
  // REQUIRES: capacities > 0 (GB/s), one per link; `link_level`: each link's fabric level (the
  // carried load is summed per level), levels from 0.
  LinkShares(std::vector<double> capacity_gbps, std::vector<int> link_level);

  // A job starts offering `demand_gbps` on `links` (ascending, distinct) / stops. Returns the jobs
  // whose share changed (the added job always included, the removed one never), ascending.
  // REQUIRES (add): `job` not present, demand > 0. REQUIRES (remove): present.
  const std::vector<uint32_t>& add(uint32_t job, const std::vector<int>& links, double demand_gbps);
  const std::vector<uint32_t>& remove(uint32_t job);

  bool has(uint32_t job) const;
  // The job's share, GB/s (<= its demand); its share / demand.
  double share_gbps(uint32_t job) const;
  double factor(uint32_t job) const;
  // A link's offered load (sum of demands) and carried load (sum of shares), GB/s.
  double offered_gbps(int link) const { return links_[static_cast<size_t>(link)].load; }
  double carried_gbps(int link) const;
  double capacity_gbps(int link) const { return links_[static_cast<size_t>(link)].capacity; }
  int link_count() const { return static_cast<int>(links_.size()); }
  // Per fabric level: the load its links carry over their capacity (0..1).
  double level_utilisation(int level) const;
  int level_count() const { return static_cast<int>(level_capacity_.size()); }

 private:
  struct Link {
    double capacity = 0;
    int level = 0;
    double load = 0;             // sum of demands
    std::vector<uint32_t> jobs;  // ascending
  };
  struct Flow {
    std::vector<int> links;
    double demand = 0;
    double share = 0;
    uint32_t mark = 0;  // refill epoch that reached it
  };
  bool saturated(int link) const;
  Flow& flow(uint32_t job);
  // Refills the component reached from `seeds` and records the jobs whose share changed.
  void refill(const std::vector<int>& seeds);
  void set_share(Flow& f, double share);  // keeps the per-level carried load

  std::vector<Link> links_;
  std::unordered_map<uint32_t, Flow> flows_;  // running jobs that cross links, by id (never iterated)
  std::vector<uint32_t> changed_;
  std::vector<double> level_capacity_, level_carried_;
  std::vector<uint32_t> link_mark_;  // refill epoch that reached each link
  uint32_t epoch_ = 0;
};

}  // namespace topsim
