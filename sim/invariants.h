// Run invariants (`--check-invariants`; on in Debug builds and in the tests): after every instant
// of a run the engine asks this checker, which keeps its own record of which pod holds which
// cards and verifies, for the nodes the instant touched:
//   - no card, card memory or compute share, node CPU or memory over-allocated;
//   - the cluster's per-card pod counts and idle-card set agree with the pods bound there;
// and for the run: time never goes back; every job that started has all its pods (gangs are
// all-or-nothing) and every waiting job fewer; arrived = waiting + running + closed (finished,
// rejected, failed). A violation is a bug in topsim, reported as one line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/job.h"

namespace topsim {

// On when built without NDEBUG or when the environment sets TOPSIM_CHECK_INVARIANTS=1.
bool invariants_on_by_default();

class InvariantChecker {
 public:
  explicit InvariantChecker(const ClusterState& cluster);

  void bound(int node, uint32_t job, const std::vector<int>& cards);
  void released(int node, uint32_t job, const std::vector<int>& cards);
  // A job started with `pods` of its `workers` pods bound, or is still waiting with `pods`.
  void started(uint32_t job, size_t pods, size_t workers);
  void waiting(uint32_t job, size_t pods, size_t workers);

  struct Counts {
    uint64_t arrived = 0, waiting = 0, running = 0, closed = 0;
  };
  // After every instant: the checks above. Returns the first violation, if any.
  std::optional<std::string> after_instant(int64_t now_ms, const ClusterState& cluster, const Counts& counts);

 private:
  void fail(std::string what);
  void check_node(const ClusterState& cluster, int node);

  struct Holder {
    uint32_t job;
    int card;
  };
  std::vector<std::vector<Holder>> holders_;  // [node]: one entry per (pod, card)
  std::vector<int> touched_;                  // nodes bound or released on this instant
  std::vector<bool> is_touched_;
  int64_t last_ms_ = INT64_MIN;
  std::optional<std::string> violation_;
};

}  // namespace topsim
