// The statistics every result uses, defined once: distributions with nearest-rank
// percentiles, exact time-weighted means of piecewise-constant quantities, and mean ± sample
// standard deviation over seeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topsim {

// Mean and nearest-rank percentiles of a sample: p-th percentile = the ceil(p x n)-th smallest
// value (the smallest for p x n < 1). All 0 for an empty sample.
struct Distribution {
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
  uint64_t count = 0;
};
Distribution distribution_of(const std::vector<double>& sample);
// The nearest-rank percentile of sorted values. REQUIRES: non-empty, ascending, 0 <= p <= 1.
double nearest_rank(const std::vector<double>& sorted, double p);
// Its 0-based index among n sorted values. REQUIRES: n > 0.
size_t nearest_rank_index(size_t n, double p);

// The integral of a quantity that is constant between events, for its exact time-weighted mean
// over [start, end]: call `hold(value, until_ms)` with the value that held since the previous
// call (or since `start_ms`).
class TimeIntegral {
 public:
  explicit TimeIntegral(int64_t start_ms = 0) : start_ms_(start_ms), last_ms_(start_ms) {}
  void hold(double value, int64_t until_ms);
  // Mean over [start, last hold]; `instant_value` when no time has passed.
  double mean(double instant_value) const;
  double max() const { return max_; }

 private:
  int64_t start_ms_, last_ms_;
  double sum_ = 0, max_ = 0;
};

// Over seeds: mean, sample standard deviation (0 for one value), min and max. All 0 when empty.
struct SeedStats {
  double mean = 0, sd = 0, min = 0, max = 0;
};
SeedStats seed_stats(const std::vector<double>& values);

}  // namespace topsim
