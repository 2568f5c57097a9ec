// The topology-aware scheduler (BRIEF section 1): gang all-or-nothing, the best-fit GPU set,
// pods packed onto as few nodes as possible, host IPC/network so pods of a node share NVLink.
//
// One node when the job fits on one: among nodes with room, the placement with no constraint
// dropped, then the highest predicted bus bandwidth, then the fullest node (fewest GPUs left
// free: bin packing), then the lowest node index. Otherwise a multi-node gang (core/gang.h,
// pack policy unless the job's annotations say otherwise).
#include <algorithm>
#include <limits>
#include <unordered_set>

#include "sim/engine.h"

namespace topsim {
namespace {

struct NodeChoice {
  int node = -1;
  int free_after = 0;
  Placement placement;
};

bool better_choice(const Placement& p, int free_after, const NodeChoice& best) {
  if (best.node < 0) return true;
  if (p.relaxed.size() != best.placement.relaxed.size()) return p.relaxed.size() < best.placement.relaxed.size();
  if (p.ring.bus_bandwidth_gbps != best.placement.ring.bus_bandwidth_gbps)
    return p.ring.bus_bandwidth_gbps > best.placement.ring.bus_bandwidth_gbps;
  return free_after < best.free_after;  // equal: the earlier (lower) node index stays
}

// Splits a node's GPU set into pods of `gpus_per_pod` consecutive GPUs along its ring.
std::vector<std::vector<int>> split_along_ring(const RingPlan& ring, int gpus_per_pod) {
  std::vector<std::vector<int>> pods;
  for (size_t i = 0; i < ring.order.size(); i += gpus_per_pod) {
    std::vector<int> pod(ring.order.begin() + i, ring.order.begin() + i + gpus_per_pod);
    std::sort(pod.begin(), pod.end());
    pods.push_back(std::move(pod));
  }
  return pods;
}

}  // namespace

PlacementRequest Engine::node_request(uint32_t job) const {
  PlacementRequest request;
  request.gpus = workload_.jobs[job].total_gpus();
  if (auto it = workload_.extras.find(job); it != workload_.extras.end())
    (void)apply_annotations(it->second.annotations, request);  // validated at admission
  return request;
}

bool Engine::place_topology(uint32_t id) {
  const JobSpec& job = workload_.jobs[id];
  int free_serving = 0;
  for (int t = 0; t < index_.type_count(); ++t)
    for (int c = 1; c <= index_.type_gpus(t); ++c) free_serving += c * static_cast<int>(index_.bucket(serving_, t, c).size());
  if (free_serving < job.total_gpus()) return false;

  GangRequest gang;
  gang.workers = job.workers;
  gang.gpus_per_worker = job.gpus_per_worker;
  gang.per_node = node_request(id);
  if (auto it = workload_.extras.find(id); it != workload_.extras.end())
    (void)apply_gang_annotations(it->second.annotations, gang);
  if (job.total_gpus() <= cluster_.max_node_gpus(serving_) && place_on_one_node(id, gang.per_node)) return true;
  if (job.workers == 1 || gang.max_nodes == 1) return false;
  return place_gang_across_nodes(id, gang);
}

bool Engine::place_on_one_node(uint32_t id, const PlacementRequest& request) {
  const int k = request.gpus;
  NodeChoice best;
  for (int t = 0; t < index_.type_count(); ++t) {
    const int type_gpus = index_.type_gpus(t);
    if (type_gpus < k) continue;
    const Allocator& allocator = *cluster_.type(t).allocator;
    const auto idle = allocator.place(all_gpus(type_gpus), request);
    const double bound = idle ? idle->ring.bus_bandwidth_gbps : std::numeric_limits<double>::infinity();
    for (int c = k; c <= type_gpus; ++c) {
      std::unordered_set<GpuSet> seen;  // nodes in one state give one answer: keep the lowest index
      for (int node : index_.bucket(serving_, t, c)) {
        const GpuSet& free = cluster_.node(node).free;
        if (!seen.insert(free).second) continue;
        auto placement = allocator.place(free, request);
        if (!placement || !better_choice(*placement, c - k, best)) continue;
        best = {node, c - k, std::move(placement).value()};
      }
      // Nothing in emptier buckets of this type can beat an unrelaxed optimum found here.
      if (best.node >= 0 && cluster_.node(best.node).type == t && best.placement.relaxed.empty() &&
          best.placement.ring.bus_bandwidth_gbps >= bound)
        break;
    }
  }
  if (best.node < 0) return false;
  JobRecord& r = result_.jobs[id];
  for (auto& pod : split_along_ring(best.placement.ring, workload_.jobs[id].gpus_per_worker))
    r.pods.push_back({best.node, std::move(pod), now_ms_});
  take(best.node, best.placement.gpus);
  r.comm = ring_plan_path(best.placement.ring);
  r.relaxed = best.placement.relaxed;
  return true;
}

bool Engine::place_gang_across_nodes(uint32_t id, const GangRequest& request) {
  std::vector<GangNode> candidates;
  std::vector<int> node_ids;
  for (int t = 0; t < index_.type_count(); ++t)
    for (int c = request.gpus_per_worker; c <= index_.type_gpus(t); ++c)
      for (int node : index_.bucket(serving_, t, c)) {
        candidates.push_back({cluster_.type(t).allocator.get(), cluster_.node(node).free, ""});
        node_ids.push_back(node);
      }
  auto gang = place_gang(candidates, request, options_.network);
  if (!gang) return false;
  JobRecord& r = result_.jobs[id];
  for (const WorkerPlacement& worker : gang->workers) {
    r.pods.push_back({node_ids[worker.node], worker.gpus, now_ms_});
    take(node_ids[worker.node], worker.gpus);
  }
  r.comm = gang_comm_path(*gang, candidates);
  std::vector<int> used;
  for (int n : gang->nodes) used.push_back(node_ids[n]);
  if (spans_racks(used))  // the job ring leaves the rack: its network hops share the uplinks
    r.comm.bus_bandwidth_gbps = std::min(r.comm.bus_bandwidth_gbps, gang->network_gbps / cluster_.network().rack_oversubscription);
  r.relaxed = gang->relaxed;
  return true;
}

}  // namespace topsim
