#include "sim/sampling.h"

#include <algorithm>
#include <array>

namespace topsim {
namespace {

int64_t floor_multiple(int64_t time_ms, int64_t period_ms) {
  return (time_ms >= 0 ? time_ms / period_ms : (time_ms - period_ms + 1) / period_ms) * period_ms;
}

}  // namespace

// Every field is set but the four vectors: a field added to ClusterSample must be set here.
static_assert(sizeof(ClusterSample) == 7 * 8 + 2 * 4 + 4 * sizeof(std::vector<double>),
              "ClusterSample changed: update sample_cluster");

void sample_cluster(const ClusterState& cluster, int64_t running, int64_t pending, ClusterSample& s) {
  s.time_ms = 0;
  s.running = running;
  s.pending = pending;
  s.allocated_gpus = cluster.allocated_gpus();
  s.gpus_down = cluster.out_of_service_gpus() - cluster.spare_gpus();
  if (const FragmentationTracker* tracker = cluster.fragmentation()) {
    s.fragmentation_gpus = tracker->fragmentation_gpus();
    s.fragmentation_rate = tracker->fragmentation_rate(s.fragmentation_gpus);  // F computed once an instant
    s.unusable_gpus = tracker->unusable_gpus();
    s.idle_cards = tracker->idle_cards();
  } else {
    s.fragmentation_gpus = s.fragmentation_rate = s.unusable_gpus = 0;
    s.idle_cards = cluster.free_gpus();
  }
}

int64_t auto_sample_period_ms(const WorkloadSpan& jobs) {
  constexpr int64_t kSecond = 1000, kMinute = 60 * kSecond, kHour = 60 * kMinute, kDay = 24 * kHour;
  constexpr std::array<int64_t, 19> kRound = {kSecond,      2 * kSecond,  5 * kSecond, 10 * kSecond, 15 * kSecond,
                                              30 * kSecond, kMinute,      2 * kMinute, 5 * kMinute,  10 * kMinute,
                                              15 * kMinute, 30 * kMinute, kHour,       2 * kHour,    3 * kHour,
                                              6 * kHour,    12 * kHour,   kDay,        2 * kDay};
  constexpr int64_t kWeek = 7 * kDay, kMaxSamples = 100;
  if (jobs.jobs == 0) return kMinute;
  // The expected span: submissions, and trace durations where jobs carry them (a job with
  // iterations has no known duration before it is placed).
  const int64_t span = jobs.expected_end_ms - jobs.first_submit_ms;
  const int64_t wanted = (span + kMaxSamples - 1) / kMaxSamples;
  for (int64_t period : kRound)
    if (period >= wanted) return period;
  return (wanted + kWeek - 1) / kWeek * kWeek;
}

TimeSampler::TimeSampler(int64_t period_ms, const WorkloadSpan& jobs)
    : automatic_(period_ms <= 0), started_(jobs.jobs > 0), period_ms_(period_ms > 0 ? period_ms : auto_sample_period_ms(jobs)) {
  const int64_t first_ms = jobs.jobs == 0 ? 0 : jobs.first_submit_ms;
  next_ms_ = floor_multiple(first_ms, period_ms_);
  last_ms_ = first_ms;
  allocated_ = fragmentation_ = rate_ = pending_ = running_ = TimeIntegral(first_ms);
}

void TimeSampler::record(const ClusterSample& now) {
  samples_.push_back(now);
  samples_.back().time_ms = next_ms_;
  next_ms_ += period_ms_;
  if (!automatic_ || samples_.size() <= kMaxAutoSamples) return;
  // The run outlasted the expected span: keep every other sample (a grid of twice the period
  // from the same origin).
  size_t kept = 0;
  for (size_t i = 0; i < samples_.size(); i += 2) samples_[kept++] = samples_[i];
  samples_.resize(kept);
  period_ms_ *= 2;
  next_ms_ = samples_.back().time_ms + period_ms_;
}

void TimeSampler::advance_to(int64_t time_ms, const ClusterSample& now) {
  if (time_ms <= last_ms_) return;
  last_ms_ = time_ms;
  while (next_ms_ < time_ms) record(now);
  allocated_.hold(now.allocated_gpus, time_ms);
  fragmentation_.hold(now.fragmentation_gpus, time_ms);
  rate_.hold(now.fragmentation_rate, time_ms);
  pending_.hold(static_cast<double>(now.pending), time_ms);
  running_.hold(static_cast<double>(now.running), time_ms);
  down_.hold(now.gpus_down, time_ms);
}

void TimeSampler::finish(int64_t end_ms, const ClusterSample& now) {
  while (started_ && next_ms_ <= end_ms) record(now);
  allocated_.hold(now.allocated_gpus, end_ms);
  pending_.hold(static_cast<double>(now.pending), end_ms);
  averages_.allocated_gpus = allocated_.mean(now.allocated_gpus);
  averages_.fragmentation_gpus = fragmentation_.mean(now.fragmentation_gpus);
  averages_.fragmentation_rate = rate_.mean(now.fragmentation_rate);
  averages_.pending = pending_.mean(static_cast<double>(now.pending));
  averages_.running = running_.mean(static_cast<double>(now.running));
  averages_.peak_allocated_gpus = allocated_.max();
  averages_.peak_pending = static_cast<int64_t>(pending_.max());
  down_.hold(now.gpus_down, end_ms);
  averages_.gpus_down = down_.mean(now.gpus_down);
  averages_.peak_gpus_down = down_.max();
}

LoadPoint LoadCurve::point(int percent, const ClusterState& cluster, int64_t failed) const {
  LoadPoint p;
  p.load_percent = percent;
  const int64_t free_milli =
      cluster.fragmentation() ? cluster.fragmentation()->free_milli() : int64_t{1000} * cluster.free_gpus();
  p.gpu_alloc_ratio = static_cast<double>(capacity_milli_ - free_milli) / static_cast<double>(capacity_milli_);
  if (const FragmentationTracker* tracker = cluster.fragmentation()) {
    p.frag_gpus = tracker->fragmentation_gpus();
    p.frag_rate = tracker->fragmentation_rate();
    p.unusable_gpus = tracker->unusable_gpus();
    p.idle_cards = tracker->idle_cards();
  }
  p.failed = failed;
  return p;
}

void LoadCurve::observe(int64_t arrived_milli, const ClusterState& cluster, int64_t failed) {
  if (binned_) {
    const int64_t bin = (200 * arrived_milli + capacity_milli_) / (2 * capacity_milli_);  // nearest percent
    if (bin > last_percent_) return;
    if (bins_.empty()) bins_.resize(static_cast<size_t>(last_percent_) + 1);
    Bin& b = bins_[static_cast<size_t>(bin)];
    b.last = point(static_cast<int>(bin), cluster, failed);
    b.alloc_sum += b.last.gpu_alloc_ratio;
    ++b.count;
    return;
  }
  for (int p = static_cast<int>(points_.size()); p <= last_percent_ && arrived_milli * 100 >= p * capacity_milli_; ++p)
    points_.push_back(point(p, cluster, failed));
}

std::vector<LoadPoint> LoadCurve::take_points() {
  if (!binned_) return std::move(points_);
  std::vector<LoadPoint> points;
  for (int p = 0; p < static_cast<int>(bins_.size()); ++p) {
    double sum = 0;
    int64_t count = 0;
    const Bin* last = nullptr;
    for (int q = bins_[static_cast<size_t>(p)].count > 0 ? p : p - 1; q <= p + 1 && q < static_cast<int>(bins_.size()); ++q) {
      if (q < 0 || bins_[static_cast<size_t>(q)].count == 0) continue;
      sum += bins_[static_cast<size_t>(q)].alloc_sum;
      count += bins_[static_cast<size_t>(q)].count;
      last = &bins_[static_cast<size_t>(q)];
      if (q == p) break;
    }
    if (count == 0) continue;
    LoadPoint point = last->last;
    point.load_percent = p;
    point.gpu_alloc_ratio = sum / static_cast<double>(count);
    points.push_back(point);
  }
  return points;
}

LoadPoint LoadCurve::final_point(int64_t arrived_milli, const ClusterState& cluster, int64_t failed) const {
  return point(static_cast<int>(arrived_milli * 100 / capacity_milli_), cluster, failed);
}

}  // namespace topsim
