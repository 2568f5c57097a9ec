// The jobs waiting for one scheduler, in submission order, grouped by the shape of their next
// attempt (sim/scheduler.h: ShapeKey). A pass offers the scheduler the head of every shape class
// in submission order; a class whose head fails is skipped for the rest of the pass and for
// every later pass until resources are released (`release_version` changes), because a cluster
// that only fills up cannot fit an equal request. So a pass costs the attempts it makes, not
// the length of the queue, and FIFO with or without backfill is kept exactly:
// - with backfill, a failed class does not stop the jobs of other classes behind it;
// - without (blocks), the pass stops at the first job that cannot start, including the head of
//   a class that failed earlier at the same version.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <vector>

#include "sim/scheduler.h"

namespace topsim {

class PendingQueue {
 public:
  // What one attempt at a job gave.
  struct Attempt {
    bool started = false;
    ShapeKey shape_after;  // when not started: the shape of its next attempt (may differ after a partial placement)
  };
  using TryJob = std::function<Attempt(uint32_t job)>;

  // Adds a job in submission (id) order among the jobs of its shape: usually after them all; a
  // job admitted late by quota, or preempted and admitted again, goes back to its place.
  void push(uint32_t job, const ShapeKey& shape);
  // Takes a waiting job out (it was preempted before it started). False: it was not waiting.
  bool remove(uint32_t job);
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // One pass at `release_version` (bumped by the caller whenever resources are released).
  void pass(uint64_t release_version, bool blocks, const TryJob& try_job);
  // Every waiting job, in submission order; empties the queue.
  std::vector<uint32_t> take_all();

 private:
  struct Class {
    std::deque<uint32_t> jobs;  // ascending; a class that empties stays (no allocation when its shape returns)
    uint64_t failed_at = kNever;
  };
  static constexpr uint64_t kNever = ~uint64_t{0};
  using Classes = std::map<ShapeKey, Class>;
  using Head = std::pair<uint32_t, Classes::iterator>;

  void move(Classes::iterator from, uint32_t job, const ShapeKey& to, uint64_t failed_at);

  Classes classes_;
  size_t size_ = 0;
  std::vector<Head> heads_;  // pass()'s heap, kept across passes
};

}  // namespace topsim
