// Elastic jobs and spare swaps (JobSpec::min_workers, SpareSpec; docs/failures.md): the pods a
// running job goes on with when one of its nodes fails or comes back. Pure functions over a job's
// pods; the engine stops and restarts the job on them, with its path made anew (sim/engine_stops.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "sim/job_record.h"
#include "sim/scheduler.h"

namespace topsim {

class Fabric;

// The job keeps at least `min_workers` of its pods off node `failed` (min_workers 0: not elastic,
// it never shrinks).
bool keeps_enough_workers(const std::vector<PodPlacement>& pods, int failed, int min_workers);

// Its pods with `spare` standing in for `failed`: the same cards, in the same order.
std::vector<PodBinding> pods_on_spare(const std::vector<PodPlacement>& pods, int failed, int spare);

// Each of `after`'s pods is on a node of the same multi-node NVLink domain of `fabric` as the pod
// of `before` at its index (or neither is in one). REQUIRES: as many pods in each.
bool same_nvlink_domains(const std::vector<PodPlacement>& before, const std::vector<PodBinding>& after, const Fabric& fabric);

// Its pods off node `failed`, in their order.
std::vector<PodBinding> pods_off_node(const std::vector<PodPlacement>& pods, int failed);

// Its pods and, after them, as many of its `missing` pods as fit on `free_cards` of `node`
// (ascending), lowest cards first, `gpus_per_worker` cards each. Only its own pods when none fits.
// REQUIRES: gpus_per_worker >= 1.
std::vector<PodBinding> pods_grown(const std::vector<PodPlacement>& pods, int node, const std::vector<int>& free_cards,
                                   size_t missing, int gpus_per_worker);

}  // namespace topsim
