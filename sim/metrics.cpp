#include "sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace topsim {
namespace {

Distribution distribution(std::vector<double> values) {
  Distribution d;
  d.count = values.size();
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  d.mean = sum / static_cast<double>(values.size());
  auto rank = [&](double p) {
    const size_t r = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, r == 0 ? 0 : r - 1)];
  };
  d.p50 = rank(0.50);
  d.p95 = rank(0.95);
  d.p99 = rank(0.99);
  return d;
}

}  // namespace

RunSummary summarize(const SimResult& result) {
  RunSummary s;
  s.scheduler = result.scheduler;
  s.jobs = result.jobs.size();
  s.events = result.events;
  std::vector<double> waits, jcts, share_waits;
  s.averages = result.averages;
  uint64_t placed = 0, multi_gpu = 0, cross = 0, efficiency_jobs = 0;
  double efficiency_sum = 0;
  for (const JobRecord& r : result.jobs) {
    if (r.state == JobState::Rejected) ++s.rejected;
    if (r.state == JobState::Stuck) ++s.stuck;
    if (r.state == JobState::Pending) ++s.never_placed;
    if (r.share) ++s.share_jobs;
    if (r.start_ms < 0) continue;
    if (!r.share) ++placed;  // topology placements (shares have no topology constraints)
    if (!r.relaxed.empty()) ++s.fallbacks;
    size_t gpus = 0;
    for (const PodPlacement& pod : r.pods) gpus += pod.gpus.size();
    if (gpus > 1) {
      ++multi_gpu;
      if (r.cross_numa) ++cross;
      if (r.ideal_samples_per_sec > 0) {
        efficiency_sum += r.samples_per_sec / r.ideal_samples_per_sec;
        ++efficiency_jobs;
      }
    }
    if (r.state != JobState::Finished) continue;
    ++s.finished;
    waits.push_back((r.start_ms - r.submit_ms) / 1000.0);
    if (r.share) share_waits.push_back(waits.back());
    jcts.push_back((r.finish_ms - r.submit_ms) / 1000.0);
  }
  s.wait_s = distribution(std::move(waits));
  s.jct_s = distribution(std::move(jcts));
  s.share_wait_s = distribution(std::move(share_waits));
  s.makespan_s = result.makespan_ms / 1000.0;
  if (result.makespan_ms > 0 && result.total_gpus > 0)
    s.gpu_utilisation = static_cast<double>(result.busy_gpu_ms) / (static_cast<double>(result.total_gpus) * result.makespan_ms);
  s.held_idle_gpu_hours = result.held_idle_gpu_ms / 3.6e6;
  s.cross_numa_ratio = multi_gpu ? static_cast<double>(cross) / multi_gpu : 0;
  // The default scheduler has no topology constraints to meet: the rate does not apply (-1).
  s.topology_success_rate = result.scheduler != SchedulerKind::TopologyAware ? -1
                            : placed ? static_cast<double>(placed - s.fallbacks) / placed : 0;
  s.placement_efficiency = efficiency_jobs ? efficiency_sum / efficiency_jobs : 0;
  return s;
}

}  // namespace topsim
