#include "sim/schedulers/share_policy_scheduler.h"

#include "core/artifact_policies.h"
#include "sim/seeds.h"

namespace topsim {

namespace {

// The GPU model a Kueue flavor holds a share to, when it does (JobSpec::flavor_gpu; training jobs
// go through runnable_type_mask): the cluster's node types of that model as a
// PodRequest::gpu_type_mask (ShareNode::gpu_type is a modelled node's type; the first 32), 0 when
// none. Nothing on a trace's node list (trace pods), whose nodes carry no catalog model.
std::optional<uint32_t> flavor_types(const SchedulingView& view, const JobSpec& job) {
  if (job.is_training() || job.flavor_gpu == kAnyGpuModel || !view.cluster().modelled()) return std::nullopt;
  uint32_t mask = 0;
  for (int t = 0; t < std::min(view.cluster().type_count(), 32); ++t)
    if (const GpuModel* gpu = view.cluster().type(t).gpu; gpu && gpu->catalog_index == job.flavor_gpu) mask |= uint32_t{1} << t;
  return mask;
}

// A pod of `job`, held to the node types it can run on (PodRequest::gpu_type_mask over the
// cluster's node types): a training job's runnable types, a trace pod's own, a share's Kueue
// flavor's GPU model. None when no node type can take it (its flavor's model is on none).
std::optional<PodRequest> typed_pod_request(const SchedulingView& view, const JobSpec& job, size_t pod) {
  PodRequest request = pod_request(job, pod);
  if (job.is_training()) request.gpu_type_mask = runnable_type_mask(view, job);
  if (const std::optional<uint32_t> flavor = flavor_types(view, job)) {
    request.gpu_type_mask = request.gpu_type_mask == 0 ? *flavor : request.gpu_type_mask & *flavor;
    if (request.gpu_type_mask == 0) return std::nullopt;
  }
  return request;
}

// The request of the job's next pod to place (its first once all are placed).
std::optional<PodRequest> next_pod_request(const SchedulingView& view, uint32_t id) {
  const JobSpec& job = view.job(id);
  const size_t next = view.record(id).pods.size();
  return typed_pod_request(view, job, next < job.workers ? next : 0);
}

}  // namespace

std::string pod_admission_problem(const SchedulingView& view, uint32_t job) {
  switch (view.job(job).kind) {
    case JobKind::Training:
      if (view.cluster().type_count() > 32 && runnable_type_mask(view, view.job(job)) != 0)
        return "it can run on some of the cluster's " + std::to_string(view.cluster().type_count()) +
               " node types only (its model's memory or its GPU model selector), and this scheduler holds a pod to node "
               "types among the first 32";
      return training_admission_problem(view, job, {NodeMode::Default, false, true, false});
    case JobKind::Share: return share_admission_problem(view, job);
    case JobKind::TracePod: return trace_pod_admission_problem(view, job);
  }
  return "";
}

SharePolicyScheduler::SharePolicyScheduler(SharePolicyKind kind, const SchedulerContext& context) : context_(context) {
  const SharePolicyContext policy_context{context.seed ^ kRandomPolicyStream, context.fragmentation};
  auto policy = context.fgd_artifact ? make_artifact_policy(kind, policy_context) : make_share_policy(kind, policy_context);
  if (policy) policy_ = std::move(policy).value();
}

std::string SharePolicyScheduler::admission_problem(const SchedulingView& view, uint32_t job) const {
  if (!policy_) return "the fgd policy needs a fragmentation measure (the workload has no GPU pods)";
  return pod_admission_problem(view, job);
}

ShapeKey SharePolicyScheduler::shape(const SchedulingView& view, uint32_t job) const {
  const std::optional<PodRequest> request = next_pod_request(view, job);
  return request ? pod_shape(*request) : ShapeKey::of_job(job);
}

std::string SharePolicyScheduler::wait_reason(const SchedulingView& view, uint32_t id) const {
  const JobSpec& job = view.job(id);
  if (job.is_training()) return training_wait_reason(view, id, NodeMode::Default);
  const std::optional<PodRequest> request = next_pod_request(view, id);
  if (!request)
    return "its Kueue flavor holds it to GPU model " + gpu_at(job.flavor_gpu)->name +
           " (the ResourceFlavor's nodeLabels nvidia.com/gpu.product, its pods' node selector), and no node its GPU types "
           "allow has that model";
  return no_node_fits_reason(view.cluster().shares(), *request);
}

bool SharePolicyScheduler::try_place(const SchedulingView& view, uint32_t id, Binder& binder) {
  const JobSpec& job = view.job(id);
  while (view.record(id).pods.size() < job.workers) {
    const std::optional<PodRequest> request = typed_pod_request(view, job, view.record(id).pods.size());
    if (!request) return false;
    const auto placement = policy_->place(view.cluster().shares(), *request);
    if (!placement) return false;
    binder.bind(id, {placement->node, placement->cards});
  }
  binder.start(id, job.is_training() ? socket_job_start(view, id, context_.network) : JobStart{});
  return true;
}

}  // namespace topsim
