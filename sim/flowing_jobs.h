// Running jobs whose traffic crosses the fabric's uplinks (sim/link_shares.h): the links' max-min
// shares, and per job its work left and rate since its share last changed, so that a change of
// its share moves its finish and the work it has done is kept (work is conserved across rate
// changes). The engine schedules the finishes handed back and honours only each job's latest
// (`current`).
//
// Only the jobs whose share a start or finish changes are touched: LinkShares refills just the
// component of jobs and saturated links reached from the links of the job that came or went.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/network_model.h"
#include "sim/cluster.h"
#include "sim/job_record.h"
#include "sim/link_shares.h"

namespace topsim {

class FlowingJobs {
 public:
  // A finish to schedule: the job's finish at `version` (each replaces the ones before it), moved
  // by `moved_ms` from its previous finish (0 for a job's first), which its GPUs are busy longer.
  struct Finish {
    int64_t finish_ms = 0;
    uint32_t job = 0;
    uint32_t version = 0;
    int64_t moved_ms = 0;
  };
  // Samples/s of a running job at `factor` (< 1) of its network demand; 0: no model at that share.
  using RateAt = std::function<double(uint32_t job, double factor)>;

  // True when the cluster's fabric has uplinks that jobs could share.
  static bool needed(const ClusterState& cluster);
  // REQUIRES: needed(cluster). `cluster` and `book` outlive this.
  FlowingJobs(const ClusterState& cluster, const NetworkModel& network, JobBook& book, RateAt rate_at);

  // A training job started at `now_ms` to run `run_ms` at its record's samples_per_sec: it enters
  // the uplinks its placement crosses. Returns the finishes to schedule (the jobs whose share
  // fell, then its own), or nullopt when it crosses none (its finish is the caller's).
  std::optional<std::vector<Finish>> enter(uint32_t id, int64_t now_ms, int64_t run_ms);
  // A job that finished or stopped leaves its links (nothing when it was on none); returns the
  // finishes of the jobs that sped up.
  std::vector<Finish> leave(uint32_t id, int64_t now_ms);

  // False for a finish of a job on the links that a later one replaced.
  bool current(uint32_t id, uint32_t version) const;
  // The job's finish now when it is on the links.
  std::optional<int64_t> finish_of(uint32_t id) const;
  const LinkShares& links() const { return links_; }

 private:
  struct Flowing {
    double work_left = 0;  // samples (tokens) still to process at since_ms
    double rate = 0;       // samples/s now
    double factor = 1;     // its share / its demand now
    int64_t since_ms = 0;
    int64_t finish_ms = 0;
    uint32_t version = 0;
  };
  // The uplinks a started job's traffic crosses (into `crossed`) and its demand on each, GB/s (0:
  // none).
  double demand(uint32_t id, std::vector<int>& crossed) const;
  // Moves the finish of a job whose share changed to `factor` (appends it to `out`).
  void rerate(uint32_t id, Flowing& f, double factor, int64_t now_ms, std::vector<Finish>& out);
  void rerate_changed(const std::vector<uint32_t>& changed, uint32_t except, int64_t now_ms, std::vector<Finish>& out);

  const ClusterState& cluster_;
  NetworkModel network_;
  JobBook& book_;
  RateAt rate_at_;
  LinkShares links_;
  std::unordered_map<uint32_t, Flowing> flowing_;  // by job id (never iterated)
};

}  // namespace topsim
