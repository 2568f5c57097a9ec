// The engine's view of the cluster over time: samples on a fixed grid (the state after every
// event up to the sample time) and exact time-weighted means, integrated between events.
#include <algorithm>
#include <array>

#include "sim/engine.h"

namespace topsim {

int64_t auto_sample_period_ms(const Workload& workload) {
  constexpr int64_t kSecond = 1000, kMinute = 60 * kSecond, kHour = 60 * kMinute, kDay = 24 * kHour;
  constexpr std::array<int64_t, 19> kRound = {kSecond,      2 * kSecond,  5 * kSecond,  10 * kSecond, 15 * kSecond,
                                              30 * kSecond, kMinute,      2 * kMinute,  5 * kMinute,  10 * kMinute,
                                              15 * kMinute, 30 * kMinute, kHour,        2 * kHour,    3 * kHour,
                                              6 * kHour,    12 * kHour,   kDay,         2 * kDay};
  constexpr int64_t kWeek = 7 * kDay, kMaxSamples = 100;
  if (workload.jobs.empty()) return kMinute;
  // The expected span: submissions, and trace durations where jobs carry them (a job with
  // iterations has no known duration before it is placed).
  int64_t end = workload.jobs.back().submit_ms;
  for (const JobSpec& job : workload.jobs) end = std::max(end, job.submit_ms + job.ideal_duration_ms);
  const int64_t span = end - workload.jobs.front().submit_ms;
  const int64_t wanted = (span + kMaxSamples - 1) / kMaxSamples;
  for (int64_t period : kRound)
    if (period >= wanted) return period;
  return (wanted + kWeek - 1) / kWeek * kWeek;
}

SimSample Engine::sample_now(int64_t time_ms) const {
  SimSample s;
  s.time_ms = time_ms;
  s.running = running_;
  s.pending = static_cast<int64_t>(pending_.size());
  if (tracker_) {
    s.allocated_gpus = result_.total_gpus - tracker_->free_gpus();
    s.fragmentation_gpus = tracker_->fragmentation_gpus();
    s.fragmentation_rate = tracker_->fragmentation_rate();
    s.unusable_gpus = tracker_->unusable_gpus();
    s.idle_cards = tracker_->idle_cards();
  } else {
    s.allocated_gpus = result_.total_gpus - cluster_.free_gpus();
    s.idle_cards = cluster_.free_gpus();
  }
  return s;
}

void Engine::record_sample(const SimSample& now) {
  result_.samples.push_back(now);
  result_.samples.back().time_ms = next_sample_ms_;
  next_sample_ms_ += result_.sample_every_ms;
  if (options_.sample_every_ms > 0 || result_.samples.size() <= kMaxAutoSamples) return;
  // Automatic period and the run outlasted the expected span: keep every other sample (a grid
  // of twice the period from the same origin).
  std::vector<SimSample>& samples = result_.samples;
  size_t kept = 0;
  for (size_t i = 0; i < samples.size(); i += 2) samples[kept++] = samples[i];
  samples.resize(kept);
  result_.sample_every_ms *= 2;
  next_sample_ms_ = samples.back().time_ms + result_.sample_every_ms;
}

void Engine::advance_to(int64_t time_ms) {
  if (time_ms <= last_ms_) return;
  const SimSample now = sample_now(0);
  while (next_sample_ms_ < time_ms) record_sample(now);
  const auto dt = static_cast<double>(time_ms - last_ms_);
  sum_allocated_ += now.allocated_gpus * dt;
  sum_fragmentation_ += now.fragmentation_gpus * dt;
  sum_rate_ += now.fragmentation_rate * dt;
  sum_pending_ += static_cast<double>(now.pending) * dt;
  sum_running_ += static_cast<double>(now.running) * dt;
  result_.averages.peak_pending = std::max(result_.averages.peak_pending, now.pending);
  last_ms_ = time_ms;
}

void Engine::finish_averages() {
  const SimSample now = sample_now(0);
  while (next_sample_ms_ <= now_ms_ && !workload_.jobs.empty()) record_sample(now);
  result_.averages.peak_pending = std::max(result_.averages.peak_pending, now.pending);
  TimeAverages& a = result_.averages;
  const auto span = static_cast<double>(now_ms_ - first_ms_);
  if (span <= 0) {  // everything happened at one instant: the state then
    a.allocated_gpus = now.allocated_gpus;
    a.fragmentation_gpus = now.fragmentation_gpus;
    a.fragmentation_rate = now.fragmentation_rate;
    a.pending = static_cast<double>(now.pending);
    a.running = static_cast<double>(now.running);
    return;
  }
  a.allocated_gpus = sum_allocated_ / span;
  a.fragmentation_gpus = sum_fragmentation_ / span;
  a.fragmentation_rate = sum_rate_ / span;
  a.pending = sum_pending_ / span;
  a.running = sum_running_ / span;
}

}  // namespace topsim
