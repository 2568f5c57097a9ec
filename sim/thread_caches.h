#pragma once
// What each thread keeps from one run for the next. A plan replays the same node models against
// the same target workloads a hundred times or more, and an experiment runs several seeds and
// schedulers; without these, every run builds its node types again (a topology build: the pair
// facts, a widest-path search per GPU pair; an allocator whose memo tables start cold) and its
// fragmentation tracker learns the same node states again. Both hold memo tables that are not
// thread-safe, so each thread gets its own; a thread's later runs find them warm, with the same
// answers, since they memoise pure functions of the topology and of the target workload.
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/fragmentation.h"
#include "sim/cluster.h"

namespace topsim {

class ThreadCaches {
 public:
  // Types kept are those of nodes of at most this many GPUs, whose memo tables have a bound
  // (core/allocator.h: every free mask of a small node). A larger node's tables grow with every
  // GPU set it sees, so its type is built for each cluster.
  static constexpr int kMaxKeptGpus = 16;

  // The type of `group` on `network` for the calling thread: the one this thread built before
  // for an equal model (after the network's changes to its NICs), else a new one.
  Expected<std::shared_ptr<const NodeType>> node_type(const NodeGroupSpec& group, const NetworkSpec& network);
  // The types kept, over all threads.
  size_t node_types();

  // The calling thread's fragmentation memo for `target` (null before the first run against it),
  // and where a run leaves it for the next: the tracker's memo() after the run was built. The
  // target is held, so its address names it for as long as its memo is kept.
  std::shared_ptr<FragmentationTracker::Memo> fragmentation_memo(const std::shared_ptr<const TargetWorkload>& target);
  void keep_fragmentation_memo(const std::shared_ptr<const TargetWorkload>& target,
                               std::shared_ptr<FragmentationTracker::Memo> memo);
  // The fragmentation memos kept, over all threads.
  size_t fragmentation_memos();

 private:
  struct KeptType {
    NodeModel model;
    std::shared_ptr<const NodeType> type;
  };
  struct KeptMemo {
    std::shared_ptr<const TargetWorkload> target;
    std::shared_ptr<FragmentationTracker::Memo> memo;
  };
  struct Kept {
    std::vector<KeptType> types;
    std::vector<KeptMemo> memos;
  };
  // The calling thread's; the lock guards the map (a thread reads and adds only its own entry).
  Kept& mine();
  std::mutex mutex_;
  std::map<std::thread::id, Kept> by_thread_;
};

}  // namespace topsim
