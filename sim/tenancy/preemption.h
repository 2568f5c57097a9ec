// One preemption: a queue system evicting an admitted job to admit another, and why. The
// reasons are the systems' own: Kueue's Preempted condition reasons (apis/kueue/v1beta1
// workload_types.go, v0.19; the variant each candidate was found under, preemption.go), and
// KAI-Scheduler's actions that evict (actions/reclaim, actions/preempt).
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "util/enum_names.h"

namespace topsim {

enum class PreemptionReason : uint8_t {
  InClusterQueue,                 // Kueue: a workload of the victim's own ClusterQueue (withinClusterQueue)
  InCohortReclamation,            // Kueue: its ClusterQueue borrowed; the preemptor's takes its quota back
  InCohortReclaimWhileBorrowing,  // Kueue: the same, the preemptor borrowing too (borrowWithinCohort)
  InCohortFairSharing,            // Kueue: Fair Sharing between ClusterQueues of a cohort
  Reclaim,                        // KAI: a queue within its fair share takes GPUs of one above its own
  Preempt,                        // KAI: a higher-priority job of the victim's own queue
};
template <>
struct EnumNames<PreemptionReason> {
  static constexpr std::array<EnumName<PreemptionReason>, 6> table{
      {{PreemptionReason::InClusterQueue, "InClusterQueue"},
       {PreemptionReason::InCohortReclamation, "InCohortReclamation"},
       {PreemptionReason::InCohortReclaimWhileBorrowing, "InCohortReclaimWhileBorrowing"},
       {PreemptionReason::InCohortFairSharing, "InCohortFairSharing"},
       {PreemptionReason::Reclaim, "reclaim"},
       {PreemptionReason::Preempt, "preempt"}}};
};

// At `at_ms`, job `victim` was evicted so that job `preemptor` could be admitted. The engine adds
// the two jobs' tenants (indexes into the run's tenants, as its `@tenant` metrics; -1: none) and
// what the eviction cost the victim in GPU time: the training since its last checkpoint, to be
// redone, and the restart it caused, as spent (added when the victim's next run spends it), times
// its GPUs (0 for a job admitted but not yet running). A job's evictions add up to its jobs.jsonl `preempted_gpu_s`, a tenant's
// to its `preempted_gpu_hours@tenant`. -1: not known (results written before topsim recorded it).
struct Preemption {
  int64_t at_ms = 0;
  uint32_t victim = 0;
  uint32_t preemptor = 0;
  PreemptionReason reason = PreemptionReason::InClusterQueue;
  int16_t tenant = -1, by_tenant = -1;
  int64_t lost_gpu_ms = 0;
  bool operator==(const Preemption&) const = default;
};

// Evictions and the GPU time they cost, summed (reports: per pair of tenants, per preempting
// queue); `known` is false once an eviction's cost was not recorded.
struct EvictionSum {
  int64_t evictions = 0;
  int64_t lost_gpu_ms = 0;
  bool known = true;
  void add(const Preemption& p) {
    ++evictions;
    if (p.lost_gpu_ms < 0)
      known = false;
    else
      lost_gpu_ms += p.lost_gpu_ms;
  }
  void add(const EvictionSum& o) {
    evictions += o.evictions;
    lost_gpu_ms += o.lost_gpu_ms;
    known = known && o.known;
  }
};

// What a queue system calls for each job it evicts (after releasing its quota).
using Evict = std::function<void(const Preemption&)>;

}  // namespace topsim
