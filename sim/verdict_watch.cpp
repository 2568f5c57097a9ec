#include "sim/verdict_watch.h"

#include "sim/job.h"
#include "util/statistics.h"

namespace topsim {
namespace {

struct Family {
  const char* prefix;
  int sample;  // VerdictWatch::Sample
};

}  // namespace

std::optional<double> rank_share(const std::string& suffix) {
  if (suffix == "mean") return -1;
  if (suffix == "max") return 1;
  if (suffix == "p50") return 0.50;
  if (suffix == "p95") return 0.95;
  if (suffix == "p99") return 0.99;
  return std::nullopt;
}

bool decidable_early(const std::string& metric) {
  if (metric == "rejected" || metric == "fallbacks") return true;
  for (const char* family : {"wait_s.", "jct_s.", "share_wait_s."}) {
    const std::string prefix = family;
    if (metric.rfind(prefix, 0) == 0) return rank_share(metric.substr(prefix.size())).has_value();
  }
  return false;
}

VerdictWatch::VerdictWatch(const std::vector<StopBound>& bounds, const Workload& workload) : jobs_(workload.size()) {
  bool shares = false;
  for (const StopBound& bound : bounds) {
    if (!decidable_early(bound.metric)) continue;
    Watched w;
    w.bound = bound;
    const std::string& m = bound.metric;
    const size_t dot = m.find('.');
    if (m == "rejected") w.sample = Sample::Rejected;
    if (m == "fallbacks") w.sample = Sample::Fallbacks;
    if (dot != std::string::npos) {
      const std::string family = m.substr(0, dot);
      w.sample = family == "wait_s" ? Sample::Waits : family == "jct_s" ? Sample::Jcts : Sample::ShareWaits;
      w.rank_share = *rank_share(m.substr(dot + 1));
      shares = shares || w.sample == Sample::ShareWaits;
    }
    if (w.rank_share >= 0 && (w.sample == Sample::Waits || w.sample == Sample::Jcts || w.sample == Sample::ShareWaits))
      w.within.assign(jobs_, false);
    watched_.push_back(std::move(w));
  }
  if (!shares) return;
  JobCursor cursor(workload);
  while (const JobSpec* job = cursor.next()) share_jobs_ += job->is_share() ? 1 : 0;
}

// Whether `w`'s sample holds jobs of this kind (share_wait_s: GPU-share jobs only).
bool VerdictWatch::follows(const Watched& w, bool share) const {
  return w.sample == Sample::Waits || w.sample == Sample::Jcts || (w.sample == Sample::ShareWaits && share);
}

void VerdictWatch::submitted(uint32_t job, int64_t submit_ms, bool share) {
  for (Watched& w : watched_) {
    if (!follows(w, share)) continue;
    if (w.rank_share < 0) {
      ++w.waiting;
      w.waiting_submit_ms += submit_ms;
    } else {
      w.open.emplace_back(submit_ms, job);
    }
  }
}

void VerdictWatch::resolve(Watched& w, uint32_t job, int64_t submit_ms, int64_t at_ms) {
  const double value = static_cast<double>(at_ms - submit_ms) / 1000.0;  // as the tally has it
  if (w.rank_share < 0) {
    --w.waiting;
    w.waiting_submit_ms -= submit_ms;
    w.known += value;
    return;
  }
  if (value <= w.bound.max) w.within[job] = true;
}

void VerdictWatch::started(uint32_t job, int64_t submit_ms, int64_t start_ms, bool share) {
  for (Watched& w : watched_)
    if (w.sample != Sample::Jcts && follows(w, share)) resolve(w, job, submit_ms, start_ms);
}

void VerdictWatch::finished(uint32_t job, int64_t submit_ms, int64_t finish_ms) {
  for (Watched& w : watched_)
    if (w.sample == Sample::Jcts) resolve(w, job, submit_ms, finish_ms);
}

const StopBound* VerdictWatch::lost(const JobTally& tally, int64_t now_ms) {
  for (Watched& w : watched_)
    if (decided(w, tally, now_ms)) return &w.bound;
  return nullptr;
}

// The most values the sample can hold at the end: the jobs of its kind not closed without
// finishing. (Every finished job's value is in it; tally.jobs counts the closed ones.)
uint64_t VerdictWatch::largest_sample(Sample sample, const JobTally& tally) const {
  if (sample == Sample::ShareWaits) return share_jobs_ - (tally.shares - tally.share_waits.size());
  return jobs_ - (tally.jobs - tally.finished);
}

bool VerdictWatch::decided(Watched& w, const JobTally& tally, int64_t now_ms) const {
  if (w.sample == Sample::Rejected) return static_cast<double>(tally.rejected) > w.bound.max;
  if (w.sample == Sample::Fallbacks) return static_cast<double>(tally.fallbacks) > w.bound.max;
  const uint64_t n = largest_sample(w.sample, tally);
  // Mean: the values known, the rest still to come each at least its time so far (0 for a job
  // not submitted yet), over the largest sample, is a lower bound.
  if (w.rank_share < 0) {
    const double waited = static_cast<double>(static_cast<int64_t>(w.waiting) * now_ms - w.waiting_submit_ms) / 1000.0;
    return n > 0 && w.known + waited > w.bound.max * static_cast<double>(n);
  }
  // A job not started (finished) by the time its value passes the bound exceeds it: whenever
  // it starts (finishes), its value is larger still.
  for (; !w.open.empty(); w.open.pop_front()) {
    const auto [submit_ms, job] = w.open.front();
    if (!(static_cast<double>(now_ms - submit_ms) / 1000.0 > w.bound.max)) break;
    if (!w.within[job]) ++w.above;
  }
  // The percentile exceeds the bound when more than n - rank(n) values exceed it. n - rank(n) never
  // falls as n grows, except that the rank's floating-point ceil may be one too high at an exact
  // product, hence the one of slack; so no final sample of n or fewer values can absorb them.
  // With the rank's 0-based index i (util/statistics.h), n - rank(n) + 1 is n - i; a sample that
  // can hold no value at all (n = 0) holds none above the bound.
  if (w.above == 0) return false;
  if (w.rank_share == 1 || n == 0) return true;
  return w.above > n - nearest_rank_index(n, w.rank_share);
}

}  // namespace topsim
