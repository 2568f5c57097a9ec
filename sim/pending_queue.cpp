#include "sim/pending_queue.h"

#include <algorithm>
#include <queue>

namespace topsim {

void PendingQueue::push(uint32_t job, const ShapeKey& shape) {
  std::deque<uint32_t>& jobs = classes_[shape].jobs;
  jobs.insert(std::upper_bound(jobs.begin(), jobs.end(), job), job);
  ++size_;
}

bool PendingQueue::remove(uint32_t job) {
  for (auto it = classes_.begin(); it != classes_.end(); ++it) {
    std::deque<uint32_t>& jobs = it->second.jobs;
    const auto at = std::lower_bound(jobs.begin(), jobs.end(), job);
    if (at == jobs.end() || *at != job) continue;
    jobs.erase(at);
    if (jobs.empty()) classes_.erase(it);
    --size_;
    return true;
  }
  return false;
}

void PendingQueue::move(Classes::iterator from, uint32_t job, const ShapeKey& to, uint64_t failed_at) {
  from->second.jobs.pop_front();
  if (from->second.jobs.empty()) classes_.erase(from);
  Class& target = classes_[to];
  target.jobs.insert(std::lower_bound(target.jobs.begin(), target.jobs.end(), job), job);
  target.failed_at = failed_at;
}

void PendingQueue::pass(uint64_t release_version, bool blocks, const TryJob& try_job) {
  using Head = std::pair<uint32_t, Classes::iterator>;  // (head job, its class), smallest job first
  const auto later = [](const Head& a, const Head& b) { return a.first > b.first; };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
  for (auto it = classes_.begin(); it != classes_.end(); ++it)
    if (blocks || it->second.failed_at != release_version) heads.push({it->second.jobs.front(), it});
  while (!heads.empty()) {
    auto [job, it] = heads.top();
    heads.pop();
    if (it->second.failed_at == release_version) {
      if (blocks) return;  // the first job that cannot start holds back the rest
      continue;            // the class failed earlier in this pass
    }
    const Attempt attempt = try_job(job);
    if (attempt.started) {
      it->second.jobs.pop_front();
      --size_;
      if (it->second.jobs.empty())
        classes_.erase(it);
      else
        heads.push({it->second.jobs.front(), it});
      continue;
    }
    if (attempt.shape_after == it->first) {
      it->second.failed_at = release_version;
    } else {  // partly placed: it now waits with the jobs of its next pod's shape
      const bool rest = it->second.jobs.size() > 1;
      move(it, job, attempt.shape_after, release_version);
      if (rest) heads.push({it->second.jobs.front(), it});
    }
    if (blocks) return;
  }
}

std::vector<uint32_t> PendingQueue::take_all() {
  std::vector<uint32_t> jobs;
  for (auto& [shape, c] : classes_) jobs.insert(jobs.end(), c.jobs.begin(), c.jobs.end());
  std::sort(jobs.begin(), jobs.end());
  classes_.clear();
  size_ = 0;
  return jobs;
}

}  // namespace topsim
