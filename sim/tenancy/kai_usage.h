// The historical usage KAI-Scheduler's time-aware fairness reads (its usage database): for each
// queue, the GPUs it held over a time window, each moment weighed by 0.5^(age / half-life), over
// the cluster's GPUs over the same window weighed the same way (a share of the cluster, 0 to 1).
//
// Source: NVIDIA/KAI-Scheduler at 72de64fc (paraphrased, not copied):
// docs/time-based-fairshare/README.md; pkg/scheduler/cache/usagedb/prometheus/prometheus.go (the
// usage is sum_over_time of the queue's allocated GPUs times 0.5^((now - t) / halfLife) over the
// window, divided by the same sum of the cluster's GPU capacity); usagedb/api/defaults.go (window
// 1 week, sliding; no decay unless halfLifePeriod is set and above 0; fetched every minute).
//
// Here the sums are integrals of piecewise-constant levels, kept exactly: S(t) = the decayed
// integral of a level up to t, S(t2) = S(t1)·d + level·(1 - d)/λ with d = e^(-λ(t2 - t1)) and
// λ = ln 2 / half-life (no decay: S(t2) = S(t1) + level·(t2 - t1)). Over a window from L to now
// the usage is S(now) - e^(-λ(now - L))·S(L), with S(L) from the last change before L; changes
// that fell out of the window are dropped, so a series holds the changes of one window. Before
// the first moment recorded (the run's start) nothing was used and there was no capacity, as a
// usage database that starts with the run.
//
// Kueue's Admission Fair Sharing (kueue_admission.h) also decays usage, but by sampled ticks of an
// average rather than an integral over a window: the two are different quantities.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/tenancy/queue_config.h"

namespace topsim {

class KaiUsageHistory {
 public:
  // `series` levels, all 0 from `origin_ms`; `capacity` the cluster's constant level.
  KaiUsageHistory(const KaiTimeAwareSpec& spec, size_t series, double capacity, int64_t origin_ms);

  // The level of `series` changes by `delta` at `now_ms`, no earlier than any change before.
  void change(size_t series, double delta, int64_t now_ms);
  // Each series' usage over the window ending at `now_ms` (no earlier than the last change), over
  // the capacity's; 0 while the window is empty. Drops changes that fell out of the window.
  std::vector<double> shares(int64_t now_ms);
  // Where the window ending at `now_ms` starts.
  int64_t window_start_ms(int64_t now_ms) const;

 private:
  struct Point {
    int64_t t_ms;
    double level;  // from t_ms on
    double s;      // the decayed integral up to t_ms
  };
  double integral_at(const Point& from, int64_t t_ms) const;  // S(t_ms), from the change `from`
  double decay(int64_t span_ms) const;                        // e^(-λ·span)

  KaiTimeAwareSpec spec_;
  double lambda_per_ms_ = 0;  // 0: no decay
  double capacity_ = 0;
  int64_t origin_ms_ = 0;
  std::vector<std::deque<Point>> series_;
};

}  // namespace topsim
