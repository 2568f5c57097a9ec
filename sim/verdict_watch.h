// Deciding a run's verdict before it ends (docs/planning.md, "Decided early"): a plan replays a
// size only to learn whether it meets upper bounds on a few metrics, and some bounds are lost for
// good long before the run ends. The watch reads the run's tally (sim/job_tally.h) after each
// instant and says when one of its bounds can no longer be met, whatever the jobs still to
// close do:
// - a count (`rejected`, `fallbacks`) above its bound: counts only grow;
// - a percentile or the max of `wait_s`, `jct_s`, `share_wait_s` above its bound: more jobs
//   already exceed the bound than any final sample could absorb (the sample is at most the jobs
//   of its kind not closed otherwise). A job exceeds it as soon as its submission is more than
//   the bound ago and it has not started (a wait) or finished (a JCT): it will, or it never
//   finishes, which fails a plan by itself (every job must finish);
// - a mean of those above its bound even if every job still to start (to finish, for JCTs) did
//   so now and every job still to submit had the value 0.
// Bounds on other metrics, and lower bounds, are never decided early (they are left out).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
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
// The statistic a distribution's suffix names as a percentile ("p95" -> 0.95, "max" -> 1,
// "mean" -> -1); nullopt for others.
std::optional<double> rank_share(const std::string& suffix);

class VerdictWatch {
 public:
  // Bounds on metrics that are not decidable_early are ignored.
  VerdictWatch(const std::vector<StopBound>& bounds, const Workload& workload);

  // A job entered the queue (it was not rejected), started for the first time, finished.
  void submitted(uint32_t job, int64_t submit_ms, bool share);
  void started(uint32_t job, int64_t submit_ms, int64_t start_ms, bool share);
  void finished(uint32_t job, int64_t submit_ms, int64_t finish_ms);

  // The first bound (in the order given) lost for good at `now_ms`, if any. Call after each
  // instant with the run's one tally.
  const StopBound* lost(const JobTally& tally, int64_t now_ms);
  bool empty() const { return watched_.empty(); }

 private:
  enum class Sample : uint8_t { Waits, Jcts, ShareWaits, Rejected, Fallbacks };
  struct Watched {
    StopBound bound;
    Sample sample = Sample::Waits;
    double rank_share = 1;  // the percentile's p (1 for max); < 0: the mean
    // Jobs of the sample's kind, (submission ms, job), in submission order, whose value may
    // still exceed the bound: each leaves once its submission is more than the bound ago.
    std::deque<std::pair<int64_t, uint32_t>> open;
    std::vector<bool> within;       // by job: started (finished, for JCTs) within the bound
    uint64_t above = 0;             // jobs whose value exceeds the bound, or will
    double known = 0;               // mean: the sum of the values known (s)
    uint64_t waiting = 0;           // mean: jobs whose value is not known yet
    int64_t waiting_submit_ms = 0;  // and the sum of their submission times
  };
  bool follows(const Watched& w, bool share) const;
  void resolve(Watched& w, uint32_t job, int64_t submit_ms, int64_t at_ms);
  bool decided(Watched& w, const JobTally& tally, int64_t now_ms) const;
  uint64_t largest_sample(Sample sample, const JobTally& tally) const;

  std::vector<Watched> watched_;
  uint64_t jobs_ = 0, share_jobs_ = 0;
};

}  // namespace topsim
