#include "sim/tenancy/kai_usage.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace topsim {

KaiUsageHistory::KaiUsageHistory(const KaiTimeAwareSpec& spec, size_t series, double capacity, int64_t origin_ms)
    : spec_(spec),
      lambda_per_ms_(spec.half_life_ms > 0 ? std::log(2.0) / static_cast<double>(spec.half_life_ms) : 0),
      capacity_(capacity),
      origin_ms_(origin_ms),
      series_(series, std::deque<Point>{{origin_ms, 0, 0}}) {}

double KaiUsageHistory::decay(int64_t span_ms) const {
  return lambda_per_ms_ > 0 ? std::exp(-lambda_per_ms_ * static_cast<double>(span_ms)) : 1.0;
}

double KaiUsageHistory::integral_at(const Point& from, int64_t t_ms) const {
  const int64_t span = t_ms - from.t_ms;
  if (lambda_per_ms_ == 0) return from.s + from.level * static_cast<double>(span);
  const double d = decay(span);
  return from.s * d + from.level * (1 - d) / lambda_per_ms_;
}

int64_t KaiUsageHistory::window_start_ms(int64_t now_ms) const {
  const int64_t since = now_ms - origin_ms_;
  if (spec_.window == KaiUsageWindow::Tumbling) return origin_ms_ + since / spec_.window_ms * spec_.window_ms;
  return std::max(origin_ms_, now_ms - spec_.window_ms);
}

void KaiUsageHistory::change(size_t series, double delta, int64_t now_ms) {
  std::deque<Point>& points = series_[series];
  const Point& last = points.back();
  assert(now_ms >= last.t_ms);
  if (now_ms == last.t_ms) {
    points.back().level += delta;
    return;
  }
  points.push_back({now_ms, last.level + delta, integral_at(last, now_ms)});
}

std::vector<double> KaiUsageHistory::shares(int64_t now_ms) {
  const int64_t from = window_start_ms(now_ms);
  // The cluster's capacity over the window, weighed as the usage is.
  const double capacity = lambda_per_ms_ == 0 ? capacity_ * static_cast<double>(now_ms - from)
                                              : capacity_ * (1 - decay(now_ms - from)) / lambda_per_ms_;
  std::vector<double> out(series_.size(), 0);
  for (size_t s = 0; s < series_.size(); ++s) {
    std::deque<Point>& points = series_[s];
    assert(now_ms >= points.back().t_ms);
    while (points.size() > 1 && points[1].t_ms <= from) points.pop_front();
    const double used = integral_at(points.back(), now_ms) - decay(now_ms - from) * integral_at(points.front(), from);
    out[s] = capacity > 0 ? std::max(0.0, used) / capacity : 0;
  }
  return out;
}

}  // namespace topsim
