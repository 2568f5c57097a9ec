#include "util/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace topsim {

double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

Distribution distribution_of(std::vector<double> values) {
  Distribution d;
  d.count = values.size();
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  d.p50 = nearest_rank(values, 0.50);
  d.p95 = nearest_rank(values, 0.95);
  d.p99 = nearest_rank(values, 0.99);
  d.max = values.back();
  return d;
}

void TimeIntegral::hold(double value, int64_t until_ms) {
  if (until_ms > last_ms_) {
    sum_ += value * static_cast<double>(until_ms - last_ms_);
    last_ms_ = until_ms;
  }
  max_ = std::max(max_, value);
}

double TimeIntegral::mean(double instant_value) const {
  const auto span = static_cast<double>(last_ms_ - start_ms_);
  return span > 0 ? sum_ / span : instant_value;
}

SeedStats seed_stats(const std::vector<double>& values) {
  SeedStats s;
  if (values.empty()) return s;
  const auto n = static_cast<double>(values.size());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(squares / (n - 1));
  }
  return s;
}

}  // namespace topsim
