// The nodes of a replay with failures (RunConfig::failures, docs/failures.md): when each fails
// and is repaired (NodeFailures), the hot spares held idle to stand in for failed ones
// (SparePool), which jobs have pods on each node, and taking nodes out of service and back. The
// engine decides what becomes of the jobs a failure hits (a spare, shrinking, a stop); this keeps
// the nodes' side.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/cluster.h"
#include "sim/failures.h"
#include "sim/invariants.h"
#include "sim/spare_pool.h"

namespace topsim {

class NodeOutages {
 public:
  // Draws the failures of `cluster`'s nodes from `spec` (per node type, its GPU model's rates)
  // from `start_ms`, and holds the spares it asks for out of service from the start. `spec`,
  // `cluster` and `invariants` (nullptr: none) outlive this.
  NodeOutages(const FailureSpec& spec, ClusterState& cluster, InvariantChecker* invariants, uint64_t seed, int64_t start_ms);
  NodeOutages(FailureSpec&& spec, ClusterState& cluster, InvariantChecker* invariants, uint64_t seed, int64_t start_ms) = delete;

  bool holds_spares() const { return spares_.has_value(); }
  bool due(int64_t t) const { return !failures_.empty() && failures_.next_ms() == t; }
  // The next failure or repair, or INT64_MAX when none is left.
  int64_t next_ms() const;
  int down_nodes() const { return failures_.down_nodes(); }
  // Bumped whenever a node goes (back) into service: a waiting job may fit now.
  uint64_t returns() const { return returns_; }

  // A pod of `job` was bound on `node`, or released from it.
  void bound(int node, uint32_t job);
  void released(int node, uint32_t job);

  // The next node event, due now. A failure: an idle spare that fails leaves the spares until
  // repaired, `hit` becomes the jobs with pods on the node (ascending), and when the node stays
  // down a while under a job that `running` says runs, an idle spare of its group and model goes
  // into service to take their place (the event's `spare`; -1: none). The caller then deals with
  // the jobs and calls take_down(). A repair (`fails` false): see repaired().
  NodeEvent next(std::vector<uint32_t>& hit, const std::function<bool(uint32_t)>& running);
  // The failed node goes out of service, once its jobs are off it.
  void take_down(int node) { set_in_service(node, false); }
  // A repaired node refills its group's spares first (false), or returns to service (true).
  bool repaired(int node);

 private:
  // A node out of service holds every card for a job that does not exist (kOutage), so that the
  // invariants see its cards taken.
  void set_in_service(int node, bool in_service, bool spare = false);
  static constexpr uint32_t kOutage = ~uint32_t{0};

  ClusterState& cluster_;
  InvariantChecker* invariants_;
  NodeFailures failures_;
  std::optional<SparePool> spares_;                  // FailureSpec::spares
  std::vector<std::vector<uint32_t>> jobs_on_node_;  // the job of each pod on each node
  uint64_t returns_ = 0;
};

}  // namespace topsim
