// What happened to one job in a run: its lifecycle, where its pods went, how it communicated
// and how fast it trained.
//
// Lifecycle: submitted -> pending -> (partially placed: schedulers without gangs) -> running ->
// finished; or rejected at submission (with a reason); or failed (no node fitted it on arrival,
// in experiments where jobs do not wait); or stuck (partially placed when the run ended: a
// partial-placement deadlock).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/enum_names.h"
#include "core/throughput.h"

namespace topsim {

enum class JobState : uint8_t { Pending, Partial, Running, Finished, Rejected, Failed, Stuck };
template <>
struct EnumNames<JobState> {
  static constexpr std::array<EnumName<JobState>, 7> table{{{JobState::Pending, "pending"},
                                                            {JobState::Partial, "partial"},
                                                            {JobState::Running, "running"},
                                                            {JobState::Finished, "finished"},
                                                            {JobState::Rejected, "rejected"},
                                                            {JobState::Failed, "failed"},
                                                            {JobState::Stuck, "stuck"}}};
};

struct PodPlacement {
  int node = 0;
  std::vector<int> gpus;  // cards of the node, ascending
  int64_t placed_ms = 0;  // when the pod got its GPUs
};

struct JobRecord {
  JobState state = JobState::Pending;
  int64_t submit_ms = 0;
  int64_t start_ms = -1;  // all pods placed and the job started
  int64_t finish_ms = -1;
  int64_t first_pod_ms = -1;         // first pod placed (GPUs held from here)
  std::vector<PodPlacement> pods;    // placed pods, in rank order
  CommPath comm;                     // communication path of the running job
  double samples_per_sec = 0;        // predicted throughput of the whole job
  double ideal_samples_per_sec = 0;  // throughput under the ideal placement (sim/engine.h)
  bool cross_numa = false;           // some node holds GPUs of this job on several NUMA nodes
  std::vector<std::string> relaxed;  // constraints the allocator dropped (fallback)
  std::string reason;                // rejection / failure / stuck reason
};

struct Transition {
  int64_t time_ms = 0;
  uint32_t job = 0;
  JobState to = JobState::Pending;
};

}  // namespace topsim
