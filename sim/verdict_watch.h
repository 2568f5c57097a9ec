// Deciding a run's verdict before it ends (docs/planning.md, "Decided early"): a plan replays a
// size only to learn whether it meets upper bounds on a few metrics, and some bounds are lost for
// good long before the run ends. The watch reads the run's tally (sim/job_tally.h) after each
// instant and says when one of its bounds can no longer be met, whatever the jobs still to
// close do:
// - a count (`rejected`, `fallbacks`) above its bound: counts only grow;
// - a percentile or the max of `wait_s`, `jct_s`, `share_wait_s` above its bound: more of the
//   jobs that finished have values above the bound than any final sample could absorb (the
//   sample is at most the jobs of its kind not yet closed otherwise);
// - a mean of those above its bound even if every job still to finish had the value 0.
// Bounds on other metrics, and lower bounds, are never decided early (they are left out).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/job_tally.h"

namespace topsim {

struct Workload;

// An upper bound on one per-run metric (its full name, sim/metrics.h).
struct StopBound {
  std::string metric;
  double max = 0;
};

// The bound a run lost before it ended, and when.
struct RunDecision {
  StopBound bound;
  int64_t at_ms = 0;       // simulated time since the first submission
  uint64_t jobs_done = 0;  // jobs whose record was final then
  uint64_t jobs = 0;       // of the workload
};

// True when `metric` is one the watch can decide early (a bound on it is not ignored).
bool decidable_early(const std::string& metric);

class VerdictWatch {
 public:
  // Bounds on metrics that are not decidable_early are ignored.
  VerdictWatch(const std::vector<StopBound>& bounds, const Workload& workload);

  // The first bound (in the order given) that `tally` has lost for good, if any. Call after
  // each instant with the run's one tally; it reads only what was added since the last call.
  const StopBound* lost(const JobTally& tally);
  bool empty() const { return watched_.empty(); }

 private:
  enum class Sample : uint8_t { Waits, Jcts, ShareWaits, Rejected, Fallbacks };
  struct Watched {
    StopBound bound;
    Sample sample = Sample::Waits;
    double rank_share = 1;  // the percentile's p (1 for max); < 0: the mean
    uint64_t above = 0;     // values seen above the bound
    double sum = 0;         // of the values seen
    size_t seen = 0;        // values of the sample read so far
  };
  bool decided(Watched& w, const JobTally& tally) const;
  uint64_t largest_sample(Sample sample, const JobTally& tally) const;

  std::vector<Watched> watched_;
  uint64_t jobs_ = 0, share_jobs_ = 0;
};

}  // namespace topsim
