// The topology-aware scheduler (BRIEF section 1): gang all-or-nothing, the best-fit GPU set,
// pods packed onto as few nodes as possible, host IPC/network so pods of a node share NVLink.
// Serves nodes labelled `topology` (requests `aliyun.com/gpu`).
//
// One node when the job fits on one: among nodes with room, the placement with no constraint
// dropped, then the highest predicted bus bandwidth, then the fullest node (fewest GPUs left
// free: bin packing), then the lowest node index. Otherwise a multi-node gang (core/gang.h,
// pack policy unless the job's annotations say otherwise); on a fabric (core/fabric.h) in the
// lowest tier that holds it: the tightest rack with room, else the tightest block, ..., else
// anywhere (fewest racks, then blocks; a rack's nodes share rails, an NVLink level's nodes a
// domain), rail-aligned when the fabric has rails, off node pairs measured slow (core/gang.h); an
// LLM job larger than an NVLink domain in segments of 16 nodes when a pipeline stage fits one. On
// a cluster of several GPU models a gang keeps to the model it runs fastest on that holds it.
// Queue: FIFO with backfill (a job that cannot start does not block later ones) unless the
// scenario turns backfill off.
#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include "core/fabric.h"
#include "core/gang.h"
#include "core/llm_estimate.h"
#include "sim/schedulers/registry.h"
#include "sim/schedulers/support.h"

namespace topsim {
namespace {

constexpr NodeMode kServing = NodeMode::Topology;

struct NodeChoice {
  int node = -1;
  int free_after = 0;
  GpuSet free;            // the node's free GPUs
  Allocator::Choice set;  // what its allocator chooses among them
  double rate = 0;        // predicted samples/s, only when the cluster mixes GPU models
};

// In a cluster of several GPU models the job's predicted throughput comes first: started now,
// the fastest placement finishes first (a faster GPU beats a better ring on a slower one).
bool better_choice(const Allocator::Choice& c, double rate, int free_after, int node, const NodeChoice& best) {
  if (best.node < 0) return true;
  if (c.relaxed != best.set.relaxed) return c.relaxed < best.set.relaxed;
  if (rate != best.rate) return rate > best.rate;
  if (c.ring->bus_bandwidth_gbps != best.set.ring->bus_bandwidth_gbps)
    return c.ring->bus_bandwidth_gbps > best.set.ring->bus_bandwidth_gbps;
  if (free_after != best.free_after) return free_after < best.free_after;
  return node < best.node;
}

// The GPU models a gang search keeps to: one (a node type's pacing GPU, sim/cluster.h pace_gpu;
// null for a type without a catalog GPU) or any.
struct GpuScope {
  bool any = true;
  const GpuModel* gpu = nullptr;
  bool admits(const NodeType& type) const { return any || type.gpu == gpu; }
};

// Binds the job's pods on `node`: its GPU set split into pods of `gpus_per_pod` consecutive GPUs
// along the ring, each pod's GPUs ascending.
void bind_along_ring(Binder& binder, uint32_t id, int node, const RingPlan& ring, int gpus_per_pod) {
  for (size_t i = 0; i < ring.order.size(); i += static_cast<size_t>(gpus_per_pod)) {
    std::vector<int> pod(ring.order.begin() + static_cast<long>(i), ring.order.begin() + static_cast<long>(i) + gpus_per_pod);
    std::sort(pod.begin(), pod.end());
    binder.bind(id, {node, std::move(pod)});
  }
}

class TopologyAware final : public Scheduler {
 public:
  explicit TopologyAware(const SchedulerContext& context) : context_(context) {}

  std::string admission_problem(const SchedulingView& view, uint32_t job) const override {
    return training_admission_problem(view, job, {kServing, true, false, true});
  }

  ShapeKey shape(const SchedulingView& view, uint32_t job) const override { return training_shape(view, job); }
  std::string wait_reason(const SchedulingView& view, uint32_t job) const override {
    return training_wait_reason(view, job, kServing);
  }
  bool try_place(const SchedulingView& view, uint32_t job, Binder& binder) override { return place(view, job, binder); }
  bool blocks_queue() const override { return !context_.backfill; }

 private:
  // A gang placed by the planner, not yet bound: its cluster node ids, the planner's candidates
  // (indexed by the placement) and the placement.
  struct GangPlan {
    std::vector<int> node_ids;
    std::vector<GangNode> candidates;
    GangPlacement gang;
  };

  PlacementRequest node_request(const SchedulingView& view, uint32_t id) const {
    PlacementRequest request;
    request.gpus = view.job(id).total_gpus();
    if (const auto* annotations = view.annotations(id)) (void)apply_annotations(*annotations, request);  // checked at admission
    return request;
  }

  bool place(const SchedulingView& view, uint32_t id, Binder& binder) const {
    const JobSpec& job = view.job(id);
    const ClusterState& cluster = view.cluster();
    const NodeIndex& index = cluster.index();
    int free_serving = 0;
    for (int t = 0; t < index.type_count(); ++t)
      for (int c = 1; c <= index.type_gpus(t); ++c) free_serving += c * static_cast<int>(index.bucket(kServing, t, c).size());
    if (free_serving < job.total_gpus()) return false;
    GangRequest gang;
    gang.workers = job.workers;
    gang.gpus_per_worker = job.gpus_per_worker;
    gang.per_node = node_request(view, id);
    if (const auto* annotations = view.annotations(id)) (void)apply_gang_annotations(*annotations, gang);
    if (job.total_gpus() <= cluster.max_node_gpus(kServing) && place_on_one_node(view, id, gang.per_node, binder)) return true;
    if (job.workers == 1 || gang.max_nodes == 1) return false;
    return place_gang_across_nodes(view, id, gang, binder);
  }

  // The job's predicted throughput on a placement of type `type` (0 when the cluster has one
  // GPU model: then the ring alone decides). An LLM job's is its tokens/s on an idle node of the
  // type (core/llm_estimate.h; under "micro_batch": "auto" at the fastest micro-batch there), once
  // per LLM, size and type: the type decides, the ring within it.
  double mixed_rate(const SchedulingView& view, const JobSpec& job, int type, const RingPlan& ring) const {
    if (!view.cluster().mixes_gpu_models()) return 0;
    if (const LlmJob* llm = view.workload().llm_of(job)) {
      const uint64_t key =
          (uint64_t{job.llm} << 40) | (static_cast<uint64_t>(job.total_gpus()) << 16) | static_cast<uint16_t>(type);
      auto [it, fresh] = llm_rates_.try_emplace(key, 0.0);
      if (fresh) {
        const NodeModel& node = view.cluster().type(type).topology->model();
        const ParallelConfig config = llm->config_for(job.total_gpus(), view.cluster().type(type).gpu);
        if (auto e = llm->micro_batch_auto ? estimate_llm_idle_fastest_micro_batch(*llm->model, config, node, context_.network)
                                           : estimate_llm_idle(*llm->model, config, node, context_.network))
          it->second = e->step.tokens_per_sec;
      }
      return it->second;
    }
    const TrainingJob tj{job.model, job.framework, job.batch_per_gpu, view.cluster().type(type).gpu};
    const auto estimate = estimate_throughput(tj, ring_plan_path(ring), context_.overlap);
    return estimate ? estimate->samples_per_sec : 0;
  }

  // Each free set is compared through the allocator's choice (its memoised ring); only the
  // winner's placement is built.
  bool place_on_one_node(const SchedulingView& view, uint32_t id, const PlacementRequest& request, Binder& binder) const {
    const ClusterState& cluster = view.cluster();
    const NodeIndex& index = cluster.index();
    const int k = request.gpus;
    NodeChoice best;
    for (int t = 0; t < index.type_count(); ++t) {
      const int type_gpus = index.type_gpus(t);
      if (type_gpus < k || !type_fits_job(view, t, view.job(id))) continue;
      const Allocator& allocator = *cluster.type(t).allocator;
      std::optional<double> bound;  // the idle node's bus bandwidth, when first needed
      for (int c = k; c <= type_gpus; ++c) {
        for (const NodeIndex::FreeClass& same : index.classes(kServing, t, c)) {  // one answer per free set
          const int node = same.nodes.front();
          const auto choice = allocator.choose(same.free, request);
          if (!choice) continue;
          const double rate = mixed_rate(view, view.job(id), t, *choice->ring);
          if (!better_choice(*choice, rate, c - k, node, best)) continue;
          best = {node, c - k, same.free, *choice, rate};
        }
        // Nothing in emptier buckets of this type can beat an unrelaxed optimum found here.
        if (best.node < 0 || cluster.node(best.node).type != t || best.set.relaxed != 0) continue;
        if (!bound) {
          const auto idle = allocator.choose(all_gpus(type_gpus), request);
          bound = idle ? idle->ring->bus_bandwidth_gbps : std::numeric_limits<double>::infinity();
        }
        if (best.set.ring->bus_bandwidth_gbps >= *bound) break;
      }
    }
    if (best.node < 0) return false;
    if (best.set.relaxed == 0) {  // the choice has all the start needs (its ring is memoised)
      bind_along_ring(binder, id, best.node, *best.set.ring, view.job(id).gpus_per_worker);
      binder.start(id, {ring_plan_path(*best.set.ring), {}, {}, true});
      return true;
    }
    // Constraints were dropped: place() names them (the same choice as above).
    const auto placement = cluster.type(cluster.node(best.node).type).allocator->place(best.free, request);
    if (!placement) return false;  // not reached
    bind_along_ring(binder, id, best.node, placement->ring, view.job(id).gpus_per_worker);
    binder.start(id, {ring_plan_path(placement->ring), placement->relaxed, {}, true});
    return true;
  }

  // On a cluster of several GPU models a gang keeps to one model when one holds it: each step
  // waits for its slowest rank (sim/job_timing.h), so a gang over two models runs at the slower's
  // pace and wastes the faster cards. Each model's plan is rated by the job's predicted throughput
  // on it (as a one-node placement is) and the fastest wins; the gang spans models only when no
  // single one can hold it.
  bool place_gang_across_nodes(const SchedulingView& view, uint32_t id, GangRequest request, Binder& binder) const {
    request.prefer_rail_aligned = view.cluster().fabric().rails() > 0;
    const std::vector<const GpuModel*> models = gpu_models(view, id);
    if (models.size() > 1) {
      std::optional<GangPlan> best;
      double best_rate = 0;
      for (const GpuModel* gpu : models) {
        auto plan = plan_in_tiers(view, id, request, {false, gpu});
        if (!plan) continue;
        const double rate = gang_rate(view, view.job(id), *plan);
        if (!best || rate > best_rate) best = std::move(plan), best_rate = rate;
      }
      if (best) return start_gang(id, *best, binder);
    }
    auto plan = plan_in_tiers(view, id, request, {});
    return plan && start_gang(id, *plan, binder);
  }

  // The pacing GPU models of the node types the job can run on, in type order, each once.
  static std::vector<const GpuModel*> gpu_models(const SchedulingView& view, uint32_t id) {
    std::vector<const GpuModel*> models;
    if (!view.cluster().mixes_gpu_models()) return models;
    for (int t = 0; t < view.cluster().type_count(); ++t) {
      const GpuModel* gpu = view.cluster().type(t).gpu;
      if (std::find(models.begin(), models.end(), gpu) == models.end() && type_fits_job(view, t, view.job(id)))
        models.push_back(gpu);
    }
    return models;
  }

  // The job's predicted throughput on a planned gang of one GPU model: an image job's over the
  // gang's communication path, an LLM job's on an idle node of the type (mixed_rate).
  double gang_rate(const SchedulingView& view, const JobSpec& job, const GangPlan& plan) const {
    const int type = view.cluster().node(plan.node_ids[static_cast<size_t>(plan.gang.nodes.front())]).type;
    if (view.workload().llm_of(job)) return mixed_rate(view, job, type, plan.gang.node_rings.front());
    const TrainingJob tj{job.model, job.framework, job.batch_per_gpu, view.cluster().type(type).gpu};
    const auto estimate = estimate_throughput(tj, gang_comm_path(plan.gang, plan.candidates), context_.overlap);
    return estimate ? estimate->samples_per_sec : 0;
  }

  // On a fabric, the gang goes to the lowest tier that holds it: the tightest group of the
  // lowest level with room, else anywhere; inside it, nodes of the roomiest groups of the level
  // below come first (fewest racks, then blocks). On a rail-optimised fabric the planner prefers
  // rail-aligned GPU sets, and at the rail level a group that holds the gang rail-aligned comes
  // before a tighter one that does not (which still beats spanning groups: its traffic climbs
  // one uplink instead of several). Only node types `scope` admits take part.
  std::optional<GangPlan> plan_in_tiers(const SchedulingView& view, uint32_t id, const GangRequest& request,
                                        GpuScope scope) const {
    const Fabric& fabric = view.cluster().fabric();
    if (const int segment = llm_segment(view, id); segment > 0)
      if (auto plan = plan_in_segments(view, id, request, segment, scope)) return plan;
    int level = 0;
    for (; level < fabric.level_count() && fabric.group_count(level) > 1; ++level) {
      const std::vector<int> below = level > 0 ? free_gpus_per_group(view, id, level - 1, scope) : std::vector<int>{};
      std::optional<GangPlan> off_rails;
      for (int group : groups_with_room(view, id, level, scope)) {
        auto plan = plan_gang_on(
            view, id, request, scope, [&](int node) { return fabric.group(level, node) == group; },
            roomiest_first(fabric, level - 1, below));
        if (!plan) continue;
        if (fabric.rails() == 0 || level != fabric.rail_level() || rail_aligned(plan->gang)) return plan;
        if (!off_rails) off_rails = std::move(plan);
      }
      if (off_rails) return off_rails;
    }
    const std::vector<int> below = level > 0 ? free_gpus_per_group(view, id, level - 1, scope) : std::vector<int>{};
    return plan_gang_on(
        view, id, request, scope, [](int) { return true; }, roomiest_first(fabric, level - 1, below));
  }

  // An LLM job of whole nodes larger than one multi-node NVLink domain goes in segments of
  // kLargeJobSegmentNodes (NVIDIA's recommended Slurm --segment for GB200 NVL72 jobs of 128 GPUs
  // and more, core/llm_estimate.h) when a segment holds whole pipeline stages: then no tensor-,
  // context- or data-parallel group leaves its domain, where filling domains in order puts a
  // stage across two. 0 when that does not apply.
  static int llm_segment(const SchedulingView& view, uint32_t id) {
    const Fabric& fabric = view.cluster().fabric();
    const JobSpec& job = view.job(id);
    const LlmJob* llm = view.workload().llm_of(job);
    if (!llm || !fabric.has_nvlink() || fabric.level(0).fanout < kLargeJobSegmentNodes) return 0;
    const int node_gpus = view.cluster().gpus_per_node(0);
    const int nodes = job.workers;
    if (job.gpus_per_worker != node_gpus || nodes <= fabric.level(0).fanout || nodes % kLargeJobSegmentNodes != 0) return 0;
    const ParallelConfig config = llm->config_for(job.total_gpus(), view.cluster().type(0).gpu);
    const int stage_gpus = config.tp * config.cp * config.dp;
    if (stage_gpus % node_gpus != 0 || kLargeJobSegmentNodes % (stage_gpus / node_gpus) != 0) return 0;
    return kLargeJobSegmentNodes;
  }

  // The gang on whole segments of each domain's free nodes (a domain holding 16 free nodes of
  // 18 gives one segment), roomiest domains first; none when they cannot hold it.
  std::optional<GangPlan> plan_in_segments(const SchedulingView& view, uint32_t id, const GangRequest& request, int segment,
                                           GpuScope scope) const {
    const ClusterState& cluster = view.cluster();
    const Fabric& fabric = cluster.fabric();
    const NodeIndex& index = cluster.index();
    std::vector<int> whole(static_cast<size_t>(fabric.group_count(0)), 0);  // wholly free nodes per domain
    for (int t = 0; t < index.type_count(); ++t)
      if (takes(view, t, id, scope))
        for (int node : index.bucket(kServing, t, index.type_gpus(t))) ++whole[static_cast<size_t>(fabric.group(0, node))];
    std::vector<int> left(whole.size());
    for (size_t d = 0; d < whole.size(); ++d) left[d] = segment_fill(whole[d], segment);
    const std::vector<int> free = free_gpus_per_group(view, id, 0, scope);
    return plan_gang_on(
        view, id, request, scope,
        [&](int node) {
          // Whole free nodes only: a node of a type with more GPUs than a worker is a candidate
          // with part of its GPUs free too.
          int& room = left[static_cast<size_t>(fabric.group(0, node))];
          if (static_cast<int>(cluster.node(node).free.count()) != cluster.gpus_per_node(node) || room == 0) return false;
          --room;
          return true;
        },
        roomiest_first(fabric, 0, free));
  }

  // Whether the job's search in `scope` may use serving nodes of type `t`.
  static bool takes(const SchedulingView& view, int t, uint32_t id, GpuScope scope) {
    return scope.admits(view.cluster().type(t)) && type_fits_job(view, t, view.job(id));
  }

  // Every node of a multi-node gang uses the same NICs (core/fabric.h, rails).
  static bool rail_aligned(const GangPlacement& gang) {
    return std::all_of(gang.nics_per_node.begin(), gang.nics_per_node.end(),
                       [&](const std::vector<int>& nics) { return nics == gang.nics_per_node.front(); });
  }

  // Candidate order inside a group: nodes whose group of `level` has the most free GPUs first
  // (the planner breaks ties by candidate order); none without a level.
  static std::function<std::pair<int, int>(int)> roomiest_first(const Fabric& fabric, int level, const std::vector<int>& free) {
    if (level < 0) return nullptr;
    return [&fabric, level, &free](int node) {
      const int group = fabric.group(level, node);
      return std::make_pair(-free[static_cast<size_t>(group)], group);
    };
  }

  // Free GPUs of the serving nodes the job fits in `scope`, per group of `level`.
  std::vector<int> free_gpus_per_group(const SchedulingView& view, uint32_t id, int level, GpuScope scope) const {
    const ClusterState& cluster = view.cluster();
    const NodeIndex& index = cluster.index();
    const Fabric& fabric = cluster.fabric();
    std::vector<int> free(static_cast<size_t>(fabric.group_count(level)), 0);
    for (int t = 0; t < index.type_count(); ++t) {
      if (!takes(view, t, id, scope)) continue;
      for (int c = 1; c <= index.type_gpus(t); ++c)
        for (int node : index.bucket(kServing, t, c)) free[static_cast<size_t>(fabric.group(level, node))] += c;
    }
    return free;
  }

  // The groups of a fabric level whose free serving GPUs could hold the job, the fewest free
  // first (best fit), then by index; at most kGroupsTried of them.
  std::vector<int> groups_with_room(const SchedulingView& view, uint32_t id, int level, GpuScope scope) const {
    static constexpr size_t kGroupsTried = 8;
    const Fabric& fabric = view.cluster().fabric();
    const std::vector<int> free = free_gpus_per_group(view, id, level, scope);
    std::vector<int> groups;
    for (int g = 0; g < fabric.group_count(level); ++g)
      if (free[static_cast<size_t>(g)] >= view.job(id).total_gpus()) groups.push_back(g);
    std::stable_sort(groups.begin(), groups.end(),
                     [&](int a, int b) { return free[static_cast<size_t>(a)] < free[static_cast<size_t>(b)]; });
    if (groups.size() > kGroupsTried) groups.resize(kGroupsTried);
    return groups;
  }

  template <class InScope>
  std::optional<GangPlan> plan_gang_on(const SchedulingView& view, uint32_t id, const GangRequest& request, GpuScope scope,
                                       InScope in_scope, const std::function<std::pair<int, int>(int)>& rank = nullptr) const {
    const ClusterState& cluster = view.cluster();
    const NodeIndex& index = cluster.index();
    // Nodes of one type and free set are interchangeable and a gang uses at most `workers`
    // nodes: the lowest-indexed `workers` of each class are all the planner needs. It breaks
    // ties by candidate order, which stays that of the buckets (type, free count, node index).
    std::vector<int> node_ids;
    const bool every = rank || cluster.has_measured();
    for (int t = 0; t < index.type_count(); ++t) {
      if (!takes(view, t, id, scope)) continue;
      for (int c = request.gpus_per_worker; c <= index.type_gpus(t); ++c) {
        const size_t from = node_ids.size();
        for (const NodeIndex::FreeClass& same : index.classes(kServing, t, c)) {
          int taken = 0;
          // With a rank, every node of the class in scope (the roomiest groups' may not be the
          // lowest-indexed); with measured pairs too (nodes of a class are no longer alike).
          for (auto node = same.nodes.begin(); node != same.nodes.end() && (every || taken < request.workers); ++node)
            if (in_scope(*node)) node_ids.push_back(*node), ++taken;
        }
        std::sort(node_ids.begin() + static_cast<long>(from), node_ids.end());
      }
    }
    if (rank) std::stable_sort(node_ids.begin(), node_ids.end(), [&](int a, int b) { return rank(a) < rank(b); });
    std::vector<GangNode> candidates;
    candidates.reserve(node_ids.size());
    for (int node : node_ids)
      candidates.push_back(
          {cluster.type_of(node).allocator.get(), cluster.node(node).free, "", cluster.fabric().nvlink_domain(node)});
    GangRequest measured = request;  // the cluster's measured pairs among these candidates
    if (cluster.has_measured())
      measured.measured = [&cluster, &node_ids](int a, int b) {
        return cluster.measured(node_ids[static_cast<size_t>(a)], node_ids[static_cast<size_t>(b)]);
      };
    auto gang = place_gang(candidates, measured, context_.network);
    if (!gang) return std::nullopt;
    return GangPlan{std::move(node_ids), std::move(candidates), std::move(gang).value()};
  }

  static bool start_gang(uint32_t id, const GangPlan& plan, Binder& binder) {
    for (const WorkerPlacement& worker : plan.gang.workers)
      binder.bind(id, {plan.node_ids[static_cast<size_t>(worker.node)], worker.gpus});
    binder.start(id, {gang_comm_path(plan.gang, plan.candidates), plan.gang.relaxed, {}, true});
    return true;
  }

  SchedulerContext context_;
  mutable std::unordered_map<uint64_t, double> llm_rates_;  // (LLM, GPUs, node type) -> tokens/s on an idle node
};

}  // namespace

std::unique_ptr<Scheduler> make_topology_aware_scheduler(const SchedulerContext& context) {
  return std::make_unique<TopologyAware>(context);
}

}  // namespace topsim
