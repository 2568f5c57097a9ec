#include "sim/node_types.h"

namespace topsim {

Expected<std::shared_ptr<const NodeType>> NodeTypes::get(const NodeGroupSpec& group, const NetworkSpec& network) {
  NodeModel model = model_on_network(group.model, network);
  const std::thread::id thread = std::this_thread::get_id();
  {
    // A thread reads and adds only its own list; the lock guards the map that holds the lists.
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const Kept& kept : by_thread_[thread])
      if (kept.model == model) return kept.type;
  }
  const bool keep = model.gpus.size() <= static_cast<size_t>(kMaxKeptGpus);
  auto type = node_type_of(keep ? model : std::move(model));
  if (!type || !keep) return type;
  const std::lock_guard<std::mutex> lock(mutex_);
  by_thread_[thread].push_back({std::move(model), *type});
  return type;
}

size_t NodeTypes::size() {
  const std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [thread, kept] : by_thread_) n += kept.size();
  return n;
}

}  // namespace topsim
