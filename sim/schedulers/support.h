// Building blocks the schedulers share: admission checks, the per-pass memory of request
// shapes that did not fit, rank order and communication paths of placed pods.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/scheduler.h"

namespace topsim {

// Admission of a training job on nodes labelled `serving` (the label's resource name in
// messages: "aliyun.com/gpu" for topology, else "nvidia.com/gpu"): some node serves it, the job
// fits the label's GPUs and largest node (those of the types it can run on, type_fits_job), and
// every serving node type it can run on has a throughput model for it. "" when admissible.
struct TrainingAdmission {
  NodeMode serving = NodeMode::Default;
  bool gang_needs_equal_pods = false;  // reject pods of unequal sizes
  bool pods_need_nic = false;          // a multi-pod job needs NICs (its pods talk over the network)
  bool reads_annotations = false;      // the job's gpu.topology/* annotations must be valid
};
// Whether nodes of type `type` can run training job `job` (sim/job.h job_node_problem): its
// weights, gradients and optimizer state fit each GPU's memory (core/model_catalog.h); an LLM
// job's configuration runs on the GPU and its offload fits the node's host memory. A mixed
// cluster's schedulers place a job only on the types it can run on; admission refuses a job
// those types cannot hold; the scenario loader refuses a job no type can run. A share: the types of its Kueue
// flavor's GPU model (Workload::selects_gpu).
bool type_fits_job(const SchedulingView& view, int type, const JobSpec& job);

// Why training job `job` can never run under `rules` ("" when it can): no node serves it, unequal
// pods for a gang, more GPUs than the nodes serving it have (a label mismatch when the other
// whole-GPU label's nodes would make up the difference), a pod larger than any node, ...
std::string training_admission_problem(const SchedulingView& view, uint32_t job, const TrainingAdmission& rules);
// Why training job `job` waits on the nodes labelled `serving`, the binding reason first: its
// model fits the memory of too few GPUs; its gang needs several nodes and none that could take it
// has a NIC; a pod is larger than any node its model fits; too few GPUs free (a label mismatch
// when the GPUs free on nodes of the other whole-GPU label would make up the difference); or the
// free GPUs are not in the shape its pods take.
std::string training_wait_reason(const SchedulingView& view, uint32_t job, NodeMode serving);
// A share: some node has the label serving it (share or core_mem) and core's validate_request
// accepts it against that label's largest card.
std::string share_admission_problem(const SchedulingView& view, uint32_t job);
// A trace pod: core's validate_request accepts it (it fits or fails on arrival).
std::string trace_pod_admission_problem(const SchedulingView& view, uint32_t job);

// The shape of a pod request (every field a placement reads).
ShapeKey pod_shape(const PodRequest& pod);
// Which of the cluster's node types training job `job` can run on (type_fits_job), as a key a
// shape carries so that a job held to some types (by its model's memory or its GPU model
// selector) failing does not hold back jobs that could run elsewhere: 0 on a cluster of one type,
// bit t for type t, nullopt above 63 types (the shape is then the job's own).
std::optional<int64_t> runnable_types_key(const SchedulingView& view, const JobSpec& job);
// The same as a PodRequest::gpu_type_mask (bit t: node type t, below 32): 0 when the job can run
// on every type.
uint32_t runnable_type_mask(const SchedulingView& view, const JobSpec& job);
// A training job's shape: its pods and the node types it can run on, or one of its own when its
// pods are unequal or annotated.
ShapeKey training_shape(const SchedulingView& view, uint32_t job);

// Ranks handed out host by host (mpirun's by-slot mapping over a host list): pods of one node
// get consecutive ranks, nodes in the order they were first used. Indices into `pods`; empty
// when that is the pods' own order (one node, or each node's pods already together).
std::vector<size_t> host_by_host_order(const std::vector<PodPlacement>& pods);
// How a job whose pods are separate containers (no host IPC/network) starts once all of them
// are bound: ranks host by host, sockets between pods on one node, TCP through each node's
// first NIC across nodes, rings inside multi-GPU pods. (Uplinks shared with other jobs are the
// engine's: sim/link_shares.h.)
JobStart socket_job_start(const SchedulingView& view, uint32_t job, const NetworkModel& network);

}  // namespace topsim
