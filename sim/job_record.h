// What happened to one job in a run: its lifecycle, where its pods went, how it communicated
// and how fast it trained.
//
// Lifecycle: submitted -> pending -> (partially placed: schedulers without gangs) -> running ->
// finished; or rejected at submission (with a reason); or failed (no node fitted it on arrival,
// in experiments where jobs do not wait); or stuck (partially placed when the run ended: a
// partial-placement deadlock).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/llm_step.h"
#include "core/throughput.h"
#include "util/enum_names.h"

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

// A job's GPUs per node: (node, its GPUs ascending), nodes in the order the pods first use them.
// `Pod`: any type with `node` and `gpus` (PodPlacement, PodBinding).
template <class Pod>
std::vector<std::pair<int, std::vector<int>>> gpus_by_node(const std::vector<Pod>& pods) {
  std::vector<std::pair<int, std::vector<int>>> out;
  for (const Pod& pod : pods) {
    auto at = std::find_if(out.begin(), out.end(), [&](const auto& entry) { return entry.first == pod.node; });
    if (at == out.end()) at = out.insert(out.end(), {pod.node, {}});
    at->second.insert(at->second.end(), pod.gpus.begin(), pod.gpus.end());
  }
  for (auto& entry : out) std::sort(entry.second.begin(), entry.second.end());
  return out;
}

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
  double work_samples = 0;           // samples it processes in all (sim/job_timing.h); 0: unknown
  bool cross_numa = false;           // some node holds GPUs of this job on several NUMA nodes
  bool host_network = false;         // its pods share their nodes' network (topology-aware gangs)
  int32_t pace_type = -1;            // the node type that paced its last start (JobTiming::node_type); -1: none
  // Links shared with other jobs (sim/link_shares.h): how long it ran with less network
  // bandwidth than its ring needs, and the least share of it it got (1: never slowed).
  int64_t contended_ms = 0;
  double least_network_share = 1;
  // Quota (sim/tenancy/): when its queue first admitted it (-1: never, or the run has no quota),
  // how often it was preempted, and the GPU time preemption cost it (the run since its last
  // checkpoint and each restart's overhead). start_ms stays its first start.
  int64_t admitted_ms = -1;
  uint16_t evictions = 0;
  // The Kueue ResourceFlavor of its nvidia.com/gpu at its last admission (an index into
  // RunResult::flavors), or -1. (Beside `evictions`: it fills its padding.)
  int16_t flavor = -1;
  int64_t lost_gpu_ms = 0;
  // Stops before its end (preemptions, and interruptions by its nodes' failures) and checkpoints
  // (sim/checkpoint.h): interruptions; training lost since a last checkpoint (recompute), restart
  // overheads, checkpoint writes, and the time between a stop and the next start, all wall ms.
  uint16_t interruptions = 0;
  uint16_t resizes = 0;  // an elastic job's shrinks and growths (JobSpec::min_workers)
  int64_t recompute_ms = 0, restart_ms = 0, checkpoint_ms = 0, requeue_ms = 0;
  std::shared_ptr<const LlmStep> llm;  // an LLM job's step on its placement (sim/job_timing.h)
  std::vector<std::string> relaxed;    // constraints the allocator dropped (fallback)
  // What the scheduler made of the job's placement asks when it is not what they seem to say
  // (Volcano's hard mode without a tier holds the job to none); "" none.
  std::string placement_note;
  std::string reason;  // rejection / failure / stuck reason
};

// Of a job's time from first start to finish, the part whose training counted: less the
// training redone, restarts, checkpoint writes and waits to restart (its effective training time,
// docs/failures.md), ms. REQUIRES: finish_ms > start_ms.
inline double productive_ms(const JobRecord& r) {
  const int64_t lost = r.recompute_ms + r.restart_ms + r.checkpoint_ms + r.requeue_ms;
  return std::max(0.0, static_cast<double>(r.finish_ms - r.start_ms - lost));
}

// The records of a run's jobs, by job id. Kept (`keep`): every record stays to the end of the
// run. Not kept: only the records of open jobs (submitted, not yet final) exist, in slots that
// closed jobs give back, so memory follows the jobs in the system rather than the workload.
class JobBook {
 public:
  JobBook(size_t jobs, bool keep) : keep_(keep), slot_of_(jobs, kUnopened) {
    if (keep_) records_.resize(jobs);
  }

  // The record of an open job (or, when kept, of any job opened so far).
  JobRecord& operator[](uint32_t id) { return records_[keep_ ? id : slot_of_[id]]; }
  const JobRecord& operator[](uint32_t id) const { return records_[keep_ ? id : slot_of_[id]]; }
  bool is_open(uint32_t id) const { return slot_of_[id] != kUnopened && slot_of_[id] != kClosed; }

  // A fresh record for job `id`. REQUIRES: not opened before.
  JobRecord& open(uint32_t id) {
    uint32_t slot = id;
    if (!keep_) {
      if (free_slots_.empty()) {
        slot = static_cast<uint32_t>(records_.size());
        records_.emplace_back();
      } else {
        slot = free_slots_.back();
        free_slots_.pop_back();
      }
    }
    slot_of_[id] = slot;
    return records_[slot];
  }
  // The job's record is final; when not kept its slot is reused (with the room its pod list had).
  // REQUIRES: open.
  void close(uint32_t id) {
    if (!keep_) {
      JobRecord& record = records_[slot_of_[id]];
      std::vector<PodPlacement> pods = std::move(record.pods);
      pods.clear();
      record = JobRecord{};
      record.pods = std::move(pods);
      free_slots_.push_back(slot_of_[id]);
    }
    slot_of_[id] = kClosed;
  }
  // Every record by id when kept, else nothing. Leaves the book empty.
  std::vector<JobRecord> take() { return keep_ ? std::move(records_) : std::vector<JobRecord>{}; }

 private:
  static constexpr uint32_t kUnopened = ~uint32_t{0}, kClosed = kUnopened - 1;
  bool keep_;
  std::vector<uint32_t> slot_of_;  // job id -> slot in records_ (not kept), or the two markers
  std::vector<JobRecord> records_;
  std::vector<uint32_t> free_slots_;
};

struct Transition {
  int64_t time_ms = 0;
  uint32_t job = 0;
  JobState to = JobState::Pending;
};

}  // namespace topsim
