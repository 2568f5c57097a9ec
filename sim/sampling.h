// The engine's view of the cluster as a run goes: samples of its state on a time grid with
// exact time-weighted means (replays), or against the load that has arrived (fill
// experiments: every 1% of GPU capacity).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cluster.h"
#include "util/statistics.h"

namespace topsim {

// The cluster at one instant (the state after every event up to then). GPU shares are in GPUs
// (a card is 1): on `share` nodes a card's free share is its free memory over its memory, on
// `core_mem` nodes its free compute, on trace nodes 1000 - its thousandths in use, elsewhere 1
// while idle and 0 once taken.
struct ClusterSample {
  int64_t time_ms = 0;
  int64_t running = 0;                   // jobs running
  int64_t pending = 0;                   // jobs waiting (including partially placed ones)
  double allocated_gpus = 0;             // GPU share allocated
  double fragmentation_gpus = 0;         // FGD's F over the cluster (core/fragmentation.h)
  double fragmentation_rate = 0;         // F / unallocated GPU share (0 when nothing is free)
  double unusable_gpus = 0;              // free share no pod of the target workload can use where it is
  int idle_cards = 0;                    // cards without any pod
  int gpus_down = 0;                     // GPUs of nodes out of service (failed; sim/failures.h)
  std::vector<double> link_utilisation;  // per fabric level: load its uplinks carry / their capacity
  std::vector<double> tenant_gpus;       // per tenant (RunOutput::tenants): GPU share its running jobs hold
  // With KAI queues, per tenant (Admission::tenant_shares): the fair share of KAI's last division
  // (GPUs) and, with time-aware fairness, the usage it last fetched (a share of the cluster over
  // the window, 0 to 1); empty otherwise.
  std::vector<double> tenant_fair_share_gpus;
  std::vector<double> tenant_usage_share;
};
// The cluster now into `s`, which a run reuses at every instant: every field but the per-level
// and per-tenant vectors, which are left as they are (the caller fills them).
void sample_cluster(const ClusterState& cluster, int64_t running, int64_t pending, ClusterSample& s);

// Time-weighted means over [first submission, end of the run] of the sampled quantities, exact
// (integrated between events), and the largest value each reached.
struct TimeAverages {
  double allocated_gpus = 0, fragmentation_gpus = 0, fragmentation_rate = 0, pending = 0, running = 0, gpus_down = 0;
  double peak_allocated_gpus = 0, peak_gpus_down = 0;
  int64_t peak_pending = 0;
};

// The automatic sample period of a workload: the smallest round period (1 s, 2 s, 5 s, ... 1 h,
// 2 h, ... 1 d, 2 d, then whole weeks) giving at most 100 samples from the first submission to
// the latest submission + trace duration.
int64_t auto_sample_period_ms(const WorkloadSpan& jobs);

class TimeSampler {
 public:
  // `period_ms` > 0 fixes the grid; 0 = automatic: auto_sample_period_ms, doubled whenever a
  // run outlasting the expected span passes 1,000 samples. Samples lie on multiples of the
  // period from the first submission's multiple.
  TimeSampler(int64_t period_ms, const WorkloadSpan& jobs);
  // The state `now` held since the previous call: records grid points before `time_ms` and
  // integrates up to it.
  void advance_to(int64_t time_ms, const ClusterSample& now);
  // Whether advance_to(time_ms, ...) records a grid point (it reads only the scalar figures
  // otherwise).
  bool records_before(int64_t time_ms) const { return time_ms > last_ms_ && next_ms_ < time_ms; }
  // Ends the run at `end_ms` in state `now`: the grid points up to it, and the means.
  void finish(int64_t end_ms, const ClusterSample& now);

  int64_t period_ms() const { return period_ms_; }
  const std::vector<ClusterSample>& samples() const { return samples_; }
  std::vector<ClusterSample> take_samples() { return std::move(samples_); }
  const TimeAverages& averages() const { return averages_; }

 private:
  void record(const ClusterSample& now);
  static constexpr size_t kMaxAutoSamples = 1000;

  bool automatic_ = false;
  bool started_ = false;
  int64_t period_ms_ = 0;
  int64_t next_ms_ = 0;
  int64_t last_ms_ = 0;
  TimeIntegral allocated_, fragmentation_, rate_, pending_, running_, down_;
  std::vector<ClusterSample> samples_;
  TimeAverages averages_;
};

// The state when the arrived load (GPU request of every job submitted so far, placed or not)
// first reached load_percent % of the cluster's GPU capacity. The FGD artifact's curve (binned)
// instead reads, as its analysis does (experiments/analysis/merge_alloc_discrete.py), the mean
// allocation ratio over every arrival whose arrived load rounds to load_percent % (when no
// arrival does: over those rounding to load_percent - 1 .. + 1), the other fields at the last
// of those arrivals.
struct LoadPoint {
  int load_percent = 0;
  double gpu_alloc_ratio = 0;  // allocated GPU share / capacity
  double frag_gpus = 0;        // FGD's F, GPUs
  double frag_rate = 0;        // F / unallocated GPU share
  double unusable_gpus = 0;
  int idle_cards = 0;
  int64_t failed = 0;  // jobs failed so far (no node fitted them on arrival)
};

class LoadCurve {
 public:
  // Points at 0%, 1%, ..., last_percent % (binned: the FGD artifact's curve, above).
  LoadCurve(int64_t capacity_milli, int last_percent, bool binned = false)
      : capacity_milli_(capacity_milli), last_percent_(last_percent), binned_(binned) {}
  // After the jobs of one instant: records every point the arrived load has crossed (binned: adds
  // the state to the bin of the arrived load, rounded to the nearest percent).
  void observe(int64_t arrived_milli, const ClusterState& cluster, int64_t failed);
  // The state at the end of the run (its load_percent: the arrived load, rounded down).
  LoadPoint final_point(int64_t arrived_milli, const ClusterState& cluster, int64_t failed) const;
  std::vector<LoadPoint> take_points();

 private:
  struct Bin {
    double alloc_sum = 0;
    int64_t count = 0;
    LoadPoint last;
  };
  LoadPoint point(int percent, const ClusterState& cluster, int64_t failed) const;
  int64_t capacity_milli_;
  int last_percent_;
  bool binned_;
  std::vector<LoadPoint> points_;
  std::vector<Bin> bins_;
};

}  // namespace topsim
