#include "sim/thread_caches.h"

namespace topsim {

ThreadCaches::Kept& ThreadCaches::mine() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return by_thread_[std::this_thread::get_id()];  // std::map: an entry stays where it is
}

Expected<std::shared_ptr<const NodeType>> ThreadCaches::node_type(const NodeGroupSpec& group, const NetworkSpec& network) {
  NodeModel model = model_on_network(group.model, network);
  Kept& kept = mine();
  for (const KeptType& k : kept.types)
    if (k.model == model) return k.type;
  const bool keep = model.gpus.size() <= static_cast<size_t>(kMaxKeptGpus);
  auto type = node_type_of(keep ? model : std::move(model));
  if (type && keep) kept.types.push_back({std::move(model), *type});
  return type;
}

size_t ThreadCaches::node_types() {
  const std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [thread, kept] : by_thread_) n += kept.types.size();
  return n;
}

std::shared_ptr<FragmentationTracker::Memo> ThreadCaches::fragmentation_memo(
    const std::shared_ptr<const TargetWorkload>& target) {
  for (const KeptMemo& k : mine().memos)
    if (k.target == target) return k.memo;
  return nullptr;
}

void ThreadCaches::keep_fragmentation_memo(const std::shared_ptr<const TargetWorkload>& target,
                                           std::shared_ptr<FragmentationTracker::Memo> memo) {
  if (!target || !memo) return;
  Kept& kept = mine();
  for (KeptMemo& k : kept.memos)
    if (k.target == target) {
      k.memo = std::move(memo);
      return;
    }
  kept.memos.push_back({target, std::move(memo)});
}

size_t ThreadCaches::fragmentation_memos() {
  const std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [thread, kept] : by_thread_) n += kept.memos.size();
  return n;
}

}  // namespace topsim
