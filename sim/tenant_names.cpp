#include "sim/tenant_names.h"

#include <cassert>

namespace topsim {

std::optional<uint32_t> NameTable::index(std::string_view name) {
  if (const auto it = index_of_.find(name); it != index_of_.end()) return it->second;
  if (names_.size() >= limit_) return std::nullopt;
  const auto index = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  index_of_.emplace(names_.back(), index);
  return index;
}

std::string too_many_names(std::string_view what, size_t limit) {
  std::string digits = std::to_string(limit);
  for (size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
  return "more than " + digits + " distinct " + std::string(what) + " in one workload";
}

namespace {

// Old index -> new index in the order of first use, for `count` old names; `none` stays.
template <class Index>
class Renumbering {
 public:
  Renumbering(size_t count, Index none) : new_index_(count, none), none_(none) {}
  Index operator()(Index old, const std::vector<std::string>& names, std::vector<std::string>& used) {
    if (old == none_) return none_;
    assert(old < new_index_.size() && "set_tenant_names: an index beyond its names");
    if (new_index_[old] == none_) {
      new_index_[old] = static_cast<Index>(used.size());
      used.push_back(names[old]);
    }
    return new_index_[old];
  }

 private:
  std::vector<Index> new_index_;
  Index none_;
};

}  // namespace

void set_tenant_names(Workload& workload, const std::vector<std::string>& queues, const std::vector<std::string>& classes) {
  assert(queues.size() <= kMaxQueueNames && classes.size() <= kMaxPriorityClassNames);
  Renumbering<uint16_t> queue(queues.size(), kNoQueue);
  Renumbering<uint8_t> priority_class(classes.size(), kNoPriorityClass);
  workload.queue_names.clear();
  workload.priority_class_names.clear();
  for (JobSpec& job : workload.jobs) {
    job.queue = queue(job.queue, queues, workload.queue_names);
    job.priority_class = priority_class(job.priority_class, classes, workload.priority_class_names);
  }
}

}  // namespace topsim
