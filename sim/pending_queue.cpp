#include "sim/pending_queue.h"

#include <algorithm>

namespace topsim {

void PendingQueue::push(uint32_t job, const ShapeKey& shape) {
  Class& c = classes_[shape];
  if (c.jobs.empty()) c.failed_at = kNever;  // a class emptied earlier starts afresh
  std::deque<uint32_t>& jobs = c.jobs;
  jobs.insert(std::upper_bound(jobs.begin(), jobs.end(), job), job);
  ++size_;
}

bool PendingQueue::remove(uint32_t job) {
  for (auto it = classes_.begin(); it != classes_.end(); ++it) {
    std::deque<uint32_t>& jobs = it->second.jobs;
    const auto at = std::lower_bound(jobs.begin(), jobs.end(), job);
    if (at == jobs.end() || *at != job) continue;
    jobs.erase(at);
    --size_;
    return true;
  }
  return false;
}

void PendingQueue::move(Classes::iterator from, uint32_t job, const ShapeKey& to, uint64_t failed_at) {
  from->second.jobs.pop_front();
  Class& target = classes_[to];
  target.jobs.insert(std::lower_bound(target.jobs.begin(), target.jobs.end(), job), job);
  target.failed_at = failed_at;
}

void PendingQueue::pass(uint64_t release_version, bool blocks, const TryJob& try_job) {
  // Heads: (head job, its class), smallest job first, in a heap whose buffer is kept across
  // passes (taken for the pass, so a nested pass would only allocate its own).
  const auto later = [](const Head& a, const Head& b) { return a.first > b.first; };
  struct Buffer {
    std::vector<Head>& home;
    std::vector<Head> heads;
    ~Buffer() { home = std::move(heads); }
  } buffer{heads_, std::move(heads_)};
  std::vector<Head>& heads = buffer.heads;
  heads.clear();
  const auto push = [&](Head head) {
    heads.push_back(head);
    std::push_heap(heads.begin(), heads.end(), later);
  };
  for (auto it = classes_.begin(); it != classes_.end(); ++it)
    if (!it->second.jobs.empty() && (blocks || it->second.failed_at != release_version)) push({it->second.jobs.front(), it});
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    auto [job, it] = heads.back();
    heads.pop_back();
    if (it->second.failed_at == release_version) {
      if (blocks) return;  // the first job that cannot start holds back the rest
      continue;            // the class failed earlier in this pass
    }
    const Attempt attempt = try_job(job);
    if (attempt.started) {
      it->second.jobs.pop_front();
      --size_;
      if (!it->second.jobs.empty()) push({it->second.jobs.front(), it});
      continue;
    }
    if (attempt.shape_after == it->first) {
      it->second.failed_at = release_version;
    } else {  // partly placed: it now waits with the jobs of its next pod's shape
      move(it, job, attempt.shape_after, release_version);
      if (!it->second.jobs.empty()) push({it->second.jobs.front(), it});
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
