// Schedulers that place pods one at a time with one of core's share policies
// (core/share_policies.h): the policies of the FGD experiment and the gpushare extender's, as
// kube-scheduler score plugins would use them. They read the cluster's share accounting (every
// card's free memory, compute or thousandths; CPU and memory of trace nodes), so they place GPU
// shares, trace pods and whole-GPU pods alike; whole GPUs take the node's lowest idle cards
// (topology-blind). A multi-pod training job is placed pod by pod, without gang (it may hold
// GPUs while partially placed), its pods talking over sockets like default scheduling's.
// Training jobs use nodes labelled `default` (plain `nvidia.com/gpu` requests).
#pragma once

#include <memory>

#include "core/share_policies.h"
#include "sim/schedulers/support.h"

namespace topsim {

class SharePolicyScheduler final : public Scheduler {
 public:
  // REQUIRES: context.fragmentation non-null for fgd.
  SharePolicyScheduler(SharePolicyKind kind, const SchedulerContext& context);

  std::string admission_problem(const SchedulingView& view, uint32_t job) const override;
  ShapeKey shape(const SchedulingView& view, uint32_t job) const override;
  bool try_place(const SchedulingView& view, uint32_t job, Binder& binder) override;
  // A training job: training_wait_reason on `default` nodes; a share or trace pod: what every
  // node that serves it lacks (core's no_node_fits_reason: GPU room, CPU, host memory).
  std::string wait_reason(const SchedulingView& view, uint32_t job) const override;
  bool blocks_queue() const override { return !context_.backfill; }

 private:
  SchedulerContext context_;
  std::unique_ptr<SharePolicy> policy_;
};

// The scheduler of one core share policy (core/share_policies/<name>.cpp), for the registry.
template <SharePolicyKind kind>
std::unique_ptr<Scheduler> make_share_policy_scheduler(const SchedulerContext& context) {
  return std::make_unique<SharePolicyScheduler>(kind, context);
}

// Admission shared by every scheduler placing shares and trace pods, and training jobs on
// `default` nodes with pods talking over the network.
std::string pod_admission_problem(const SchedulingView& view, uint32_t job);

}  // namespace topsim
