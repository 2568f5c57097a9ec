// The names of the queues (tenants) and priority classes a workload's jobs name
// (JobSpec::queue, ::priority_class; Workload::queue_names, ::priority_class_names): a table that
// gives each name read an index while a source is read, and the renumbering that leaves a
// finished workload with the names its jobs name, in the order its jobs (by id) first name them.
// Every workload source fills the names this way (docs/workloads.md "Tenants").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"

namespace topsim {

// The most distinct names one workload may hold: JobSpec::queue is a uint16 and
// ::priority_class a uint8, each with its top value meaning "none" (kNoQueue, kNoPriorityClass)
// and the one below it kept free.
inline constexpr size_t kMaxQueueNames = 65'534;
inline constexpr size_t kMaxPriorityClassNames = 254;

// Names in the order they were first given, each with its index.
class NameTable {
 public:
  // At most `limit` names.
  explicit NameTable(size_t limit) : limit_(limit) {}
  // The index of `name`, added when it is new; nullopt when it is new and the table is full.
  std::optional<uint32_t> index(std::string_view name);
  const std::vector<std::string>& names() const { return names_; }
  size_t limit() const { return limit_; }

 private:
  size_t limit_;
  std::vector<std::string> names_;
  std::map<std::string, uint32_t, std::less<>> index_of_;
};

// The message of a full table: "more than 65,534 distinct queues in one workload".
std::string too_many_names(std::string_view what, size_t limit);

// Renumbers the jobs held in `workload` (whose queue and priority_class index `queues` and
// `classes`) so that Workload::queue_names and ::priority_class_names hold only the names some
// job names, in the order of the first job (by id) naming each.
// REQUIRES: every index is below the size of its list or is kNoQueue / kNoPriorityClass.
void set_tenant_names(Workload& workload, const std::vector<std::string>& queues, const std::vector<std::string>& classes);

}  // namespace topsim
