#include "plan/pooled_queue.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <queue>
#include <string>
#include <utility>

#include "core/gpu_share.h"
#include "sim/cluster.h"
#include "sim/job_timing.h"
#include "sim/verdict_watch.h"
#include "util/statistics.h"

namespace topsim {
namespace {

// A wait_s or jct_s SLO, read for the pool: which sample, which statistic, whose jobs.
struct PoolBound {
  const Slo* slo = nullptr;
  bool jct = false;  // else the wait
  double share = 1;  // the percentile's p (1: max); < 0: the mean
  int tenant = -1;   // -1: every job
  size_t jobs = 0;   // in its sample at the end (every job starts)
};

std::vector<PoolBound> pool_bounds(const std::vector<Slo>& slos, const std::vector<std::string>& tenants) {
  std::vector<PoolBound> out;
  for (const Slo& slo : slos) {
    std::string m = slo.metric;
    PoolBound b{&slo};
    if (const size_t at = m.find('@'); at != std::string::npos) {
      const auto named = std::find(tenants.begin(), tenants.end(), m.substr(at + 1));
      if (named == tenants.end()) continue;
      b.tenant = static_cast<int>(named - tenants.begin());
      m.resize(at);
    }
    std::string stat;
    if (m.rfind("wait_s.", 0) == 0) {
      stat = m.substr(7);
    } else if (m.rfind("jct_s.", 0) == 0) {
      b.jct = true;
      stat = m.substr(6);
    } else {
      continue;
    }
    const auto share = rank_share(stat);
    if (!share) continue;
    b.share = *share;
    out.push_back(b);
  }
  return out;
}

}  // namespace

std::vector<PooledJob> pooled_jobs(const Scenario& scenario, const Workload& workload, ThreadCaches* caches) {
  std::vector<PooledJob> out;
  auto cluster = ClusterState::build(scenario.cluster, caches);
  if (!cluster || cluster->type_count() != 1) return out;
  JobTimer timer(*cluster, scenario.network, scenario.overlap, workload.reference_gpu, workload.llm_jobs, caches);
  JobCursor cursor(workload);
  for (const JobSpec* job = cursor.next(); job; job = cursor.next()) {
    const int64_t milli = job->is_share() ? int64_t{job->gpu_milli} : int64_t{job->total_gpus()} * kMilliPerGpu;
    const int64_t run_ms = timer.ideal_run_ms(*job, 0);
    if (run_ms < 0) return {};  // runs forever: no size meets "every admitted job finishes"
    out.push_back({job->submit_ms, run_ms, std::max<int64_t>(milli, 1), job->queue == kNoQueue ? -1 : int{job->queue}});
  }
  std::stable_sort(out.begin(), out.end(), [](const PooledJob& a, const PooledJob& b) { return a.submit_ms < b.submit_ms; });
  return out;
}

bool pooled_judges(const std::vector<Slo>& slos, const std::vector<std::string>& tenants) {
  return !pool_bounds(slos, tenants).empty();
}

bool pooled_meets(const std::vector<PooledJob>& jobs, int64_t capacity_milli, const std::vector<Slo>& slos,
                  const std::vector<std::string>& tenants) {
  std::vector<PoolBound> bounds = pool_bounds(slos, tenants);
  const size_t n = jobs.size();
  int64_t least = capacity_milli + 1;
  for (const PooledJob& j : jobs) {
    if (j.milli > capacity_milli) return false;  // never starts
    least = std::min(least, j.milli);
    for (PoolBound& b : bounds) b.jobs += b.tenant < 0 || b.tenant == j.tenant ? 1 : 0;
  }
  // Decided on the way, so that a pool far too small costs little: a percentile or the max once
  // more values exceed its bound than the final sample can hold above its rank; a mean once the
  // values so far sum above bound x n (the rest are >= 0).
  std::vector<size_t> above(bounds.size(), 0), allowed(bounds.size(), n);
  std::vector<double> sums(bounds.size(), 0);
  for (size_t b = 0; b < bounds.size(); ++b)
    if (bounds[b].share >= 0 && bounds[b].slo->max && bounds[b].jobs > 0)
      allowed[b] = bounds[b].jobs - 1 - nearest_rank_index(bounds[b].jobs, bounds[b].share);
  std::vector<double> waits, jcts;  // by start, with each started job's tenant
  std::vector<int> started_tenants;
  waits.reserve(n);
  jcts.reserve(n);
  started_tenants.reserve(n);
  // The jobs waiting, one FIFO per request size (ascending): the earliest arrival among the
  // fronts that fit is the next the arrival-order scan would start, and a job behind a front
  // that does not fit does not fit either, so a pass costs a look at each size per start, not a
  // scan of every waiting job.
  std::vector<int64_t> sizes;
  for (const PooledJob& j : jobs) sizes.push_back(j.milli);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<std::vector<uint32_t>> waiting(sizes.size());
  std::vector<size_t> head(sizes.size(), 0);
  using Finish = std::pair<int64_t, int64_t>;  // (time, milli)
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> running;
  int64_t free = capacity_milli;
  size_t next = 0, queued = 0;
  while (next < n || queued > 0) {
    int64_t now = next < n ? jobs[next].submit_ms : INT64_MAX;
    if (!running.empty()) now = std::min(now, running.top().first);
    while (!running.empty() && running.top().first <= now) free += running.top().second, running.pop();
    for (; next < n && jobs[next].submit_ms <= now; ++next, ++queued) {
      const auto size = std::lower_bound(sizes.begin(), sizes.end(), jobs[next].milli) - sizes.begin();
      waiting[static_cast<size_t>(size)].push_back(static_cast<uint32_t>(next));
    }
    while (free >= least) {
      size_t best = sizes.size();
      for (size_t b = 0; b < sizes.size() && sizes[b] <= free; ++b)
        if (head[b] < waiting[b].size() && (best == sizes.size() || waiting[b][head[b]] < waiting[best][head[best]])) best = b;
      if (best == sizes.size()) break;
      const PooledJob& j = jobs[waiting[best][head[best]++]];
      --queued;
      free -= j.milli;
      running.emplace(now + j.run_ms, j.milli);
      const double wait = static_cast<double>(now - j.submit_ms) / 1000.0;
      const double jct = static_cast<double>(now + j.run_ms - j.submit_ms) / 1000.0;
      waits.push_back(wait);
      jcts.push_back(jct);
      started_tenants.push_back(j.tenant);
      for (size_t b = 0; b < bounds.size(); ++b) {
        const double v = bounds[b].jct ? jct : wait;
        if (!bounds[b].slo->max || (bounds[b].tenant >= 0 && bounds[b].tenant != j.tenant)) continue;
        if (bounds[b].share < 0) {
          if ((sums[b] += v) > *bounds[b].slo->max * static_cast<double>(bounds[b].jobs)) return false;
        } else if (v > *bounds[b].slo->max && ++above[b] > allowed[b]) {
          return false;
        }
      }
    }
  }
  // Each bound's statistic over its jobs: a percentile by selection, not a sort.
  std::vector<double> tenant_sample;
  for (const PoolBound& b : bounds) {
    std::vector<double>* all = b.jct ? &jcts : &waits;
    if (b.tenant >= 0) {
      tenant_sample.clear();
      for (size_t i = 0; i < all->size(); ++i)
        if (started_tenants[i] == b.tenant) tenant_sample.push_back((*all)[i]);
      all = &tenant_sample;
    }
    std::vector<double>& sample = *all;
    if (sample.empty()) continue;
    double value = 0;
    if (b.share < 0) {
      for (double v : sample) value += v;
      value /= static_cast<double>(sample.size());
    } else {
      const auto at = sample.begin() + static_cast<std::ptrdiff_t>(nearest_rank_index(sample.size(), b.share));
      std::nth_element(sample.begin(), at, sample.end());
      value = *at;
    }
    if (!b.slo->met_by(value)) return false;
  }
  return true;
}

std::optional<int> pooled_units(const std::vector<PooledJob>& jobs, int64_t milli_per_unit, const std::vector<Slo>& slos,
                                const std::vector<std::string>& tenants, int miss, int hit) {
  if (jobs.empty() || !pooled_judges(slos, tenants) || hit - miss < 2 || milli_per_unit <= 0) return std::nullopt;
  while (hit - miss > 1) {
    const int mid = miss + (hit - miss) / 2;
    (pooled_meets(jobs, mid * milli_per_unit, slos, tenants) ? hit : miss) = mid;
  }
  return hit;
}

}  // namespace topsim
