#pragma once
// Node types built once per thread and kept for the runs that follow. A plan replays the same
// node models on a hundred clusters or more; each fresh type cost a topology build (the pair
// facts: a widest-path search per GPU pair) and an allocator whose memo tables start cold, which
// is a third of a replay decided within its first jobs. A type's allocator memoises in tables
// that are not thread-safe, so each thread gets types of its own. A thread's later runs find the
// tables warm, with the same answers: they memoise a pure function of the topology.
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/cluster.h"

namespace topsim {

class NodeTypes {
 public:
  // Types kept are those of nodes of at most this many GPUs, whose memo tables have a bound
  // (core/allocator.h: every free mask of a small node). A larger node's tables grow with every
  // GPU set it sees, so its type is built for each cluster.
  static constexpr int kMaxKeptGpus = 16;

  // The type of `group` on `network` for the calling thread: the one this thread built before
  // for an equal model (after the network's changes to its NICs), else a new one.
  Expected<std::shared_ptr<const NodeType>> get(const NodeGroupSpec& group, const NetworkSpec& network);
  // The types kept, over all threads.
  size_t size();

 private:
  struct Kept {
    NodeModel model;
    std::shared_ptr<const NodeType> type;
  };
  std::mutex mutex_;
  std::map<std::thread::id, std::vector<Kept>> by_thread_;
};

}  // namespace topsim
