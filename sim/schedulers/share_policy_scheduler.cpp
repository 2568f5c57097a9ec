#include "sim/schedulers/share_policy_scheduler.h"

#include "core/artifact_policies.h"
#include "sim/seeds.h"

namespace topsim {

namespace {

// A pod of `job`, held to the node types it can run on (PodRequest::gpu_type_mask over the
// cluster's node types: ShareNode::gpu_type is a modelled node's type): a training job's, and a
// share's when its Kueue flavor holds it to a GPU model (JobSpec::flavor_gpu, type_fits_job).
PodRequest typed_pod_request(const SchedulingView& view, const JobSpec& job, size_t pod) {
  PodRequest request = pod_request(job, pod);
  if (job.is_training() || (job.is_share() && job.flavor_gpu != kAnyGpuModel))
    request.gpu_type_mask = runnable_type_mask(view, job);
  return request;
}

// The request of the job's next pod to place (its first once all are placed).
PodRequest next_pod_request(const SchedulingView& view, uint32_t id) {
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
  return pod_shape(next_pod_request(view, job));
}

std::string SharePolicyScheduler::wait_reason(const SchedulingView& view, uint32_t id) const {
  if (view.job(id).is_training()) return training_wait_reason(view, id, NodeMode::Default);
  return no_node_fits_reason(view.cluster().shares(), next_pod_request(view, id));
}

bool SharePolicyScheduler::try_place(const SchedulingView& view, uint32_t id, Binder& binder) {
  const JobSpec& job = view.job(id);
  while (view.record(id).pods.size() < job.workers) {
    const auto placement = policy_->place(view.cluster().shares(), typed_pod_request(view, job, view.record(id).pods.size()));
    if (!placement) return false;
    binder.bind(id, {placement->node, placement->cards});
  }
  binder.start(id, job.is_training() ? socket_job_start(view, id, context_.network) : JobStart{});
  return true;
}

}  // namespace topsim
