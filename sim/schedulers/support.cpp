#include "sim/schedulers/support.h"

#include <algorithm>

#include "core/gang.h"
#include "util/text.h"

namespace topsim {

const std::map<std::string, std::string>* SchedulingView::annotations(uint32_t id) const {
  const auto it = workload_.extras.find(id);
  return it == workload_.extras.end() || it->second.annotations.empty() ? nullptr : &it->second.annotations;
}

namespace {

std::string label_text(NodeMode label) { return "ack.node.gpu.schedule=" + std::string(enum_name(label)); }

std::string nodes_with_label(NodeMode label) { return "no node is labelled " + label_text(label); }

// The other label whose nodes take whole-GPU jobs (default and topology): a scheduler serving one
// never places on the other's nodes, so GPUs free there hold a job back by its label alone.
NodeMode other_whole_gpu_label(NodeMode serving) {
  return serving == NodeMode::Topology ? NodeMode::Default : NodeMode::Topology;
}

std::string list_gpus(const std::vector<uint16_t>& gpus) {
  return join(gpus, ",", [](uint16_t g) { return std::to_string(g); });
}

// Every node type serving `label` can predict the job's throughput, and has NICs when `need_nic`;
// `restricted` when an image model's state does not fit some serving type's GPUs.
SchedulingView::ShapeVerdict serving_types_problem(const SchedulingView& view, const JobSpec& job, NodeMode label,
                                                   bool need_nic) {
  const ClusterState& cluster = view.cluster();
  bool restricted = false;
  for (int t = 0; t < cluster.type_count(); ++t) {
    if (!cluster.label_has_type(label, t)) continue;
    const NodeType& type = cluster.type(t);
    if (!type.topology)
      return {"node type " + type.name + " has no topology model (a trace's node list): training jobs need modelled nodes",
              false};
    if (need_nic && type.primary_nic_gbit <= 0)
      return {"node type " + type.name + " has no NIC: its pods cannot reach pods on other nodes", false};
    if (job.llm != kNoLlm) continue;     // an LLM step has its own model (and is asked per job where it can run)
    if (!type_fits_job(view, t, job)) {  // never placed there
      restricted = true;
      continue;
    }
    const TrainingJob tj{job.model, job.framework, job.batch_per_gpu, type.gpu};
    if (auto e = estimate_throughput(tj, CommPath{}); !e)
      return {"no throughput model for it on " + type.name + ": " + e.error().message, false};
  }
  return {"", restricted};
}

}  // namespace

bool SchedulingView::llm_runs_on(const JobSpec& job, int type) const {
  const uint64_t key = (uint64_t{job.llm} << 32) | static_cast<uint32_t>(job.total_gpus());
  if (key != last_llm_key_) {
    auto [it, fresh] = llm_types_.try_emplace(key);
    if (fresh)
      for (int t = 0; t < cluster_.type_count(); ++t) {
        const NodeType& node = cluster_.type(t);
        it->second.push_back(node.gpu == nullptr || !node.topology ||
                             job_capacity_problem(workload_, job, *node.gpu, node.topology->model()).ok());
      }
    last_llm_key_ = key;
    last_llm_types_ = it->second;
  }
  return last_llm_types_[static_cast<size_t>(type)] != 0;
}

bool type_fits_job(const SchedulingView& view, int type, const JobSpec& job) {
  const GpuModel* gpu = view.cluster().type(type).gpu;
  if (gpu == nullptr) return true;
  if (!view.workload().selects_gpu(job, *gpu)) return false;  // its selector, its Kueue flavor's model
  if (!job.is_training()) return true;
  return job.llm == kNoLlm ? fits_gpu_memory(job.model, *gpu) : view.llm_runs_on(job, type);
}

namespace {

// The nodes of one label a training job could use, by what they offer it.
struct ServingNodes {
  int gpus = 0, free_gpus = 0, largest_node = 0;  // over the node types whose GPUs hold the model
  bool nic = false;                               // some such type has a NIC
  std::vector<std::string> cannot_run;            // types it cannot run on (type_fits_job)
};

ServingNodes serving_nodes(const SchedulingView& view, const JobSpec& job, NodeMode serving) {
  ServingNodes out;
  const ClusterState& cluster = view.cluster();
  const NodeIndex& index = cluster.index();
  for (int t = 0; t < index.type_count(); ++t) {
    if (!cluster.label_has_type(serving, t)) continue;
    if (!type_fits_job(view, t, job)) {
      out.cannot_run.push_back(cluster.type(t).name);
      continue;
    }
    const int type_gpus = index.type_gpus(t);
    for (int free = 0; free <= type_gpus; ++free) {
      const int nodes = static_cast<int>(index.bucket(serving, t, free).size());
      out.gpus += nodes * type_gpus;
      out.free_gpus += nodes * free;
      if (nodes > 0) out.largest_node = std::max(out.largest_node, type_gpus);
    }
    out.nic = out.nic || cluster.type(t).primary_nic_gbit > 0;
  }
  return out;
}

// "it cannot run on dgx-a100: <why>; ...": the serving node types the job cannot run on, each
// with its reason (job_node_problem).
std::string cannot_run_on(const SchedulingView& view, const JobSpec& job, NodeMode serving) {
  const ClusterState& cluster = view.cluster();
  std::vector<std::string> cannot;
  for (int t = 0; t < cluster.type_count(); ++t)
    if (cluster.label_has_type(serving, t) && !type_fits_job(view, t, job)) {
      const NodeType& type = cluster.type(t);
      cannot.push_back(type.name + ": " + job_node_problem(view.workload(), job, *type.gpu, type.topology->model()).message);
    }
  return "it cannot run on " + join(cannot, "; ");
}

// On a cluster of node types the job cannot all run on (a mixed cluster), the GPUs of the serving
// types it can run on must hold it: why they cannot, naming the types it cannot run on and why;
// "" when they can or every serving type runs it.
std::string runnable_nodes_problem(const SchedulingView& view, const JobSpec& job, NodeMode serving, int largest_pod) {
  const ClusterState& cluster = view.cluster();
  bool restricted = false;
  for (int t = 0; t < cluster.type_count() && !restricted; ++t)
    restricted = cluster.label_has_type(serving, t) && !type_fits_job(view, t, job);
  if (!restricted) return "";
  const ServingNodes nodes = serving_nodes(view, job, serving);
  if (nodes.gpus >= job.total_gpus() && largest_pod <= nodes.largest_node) return "";
  const std::string why = " (" + cannot_run_on(view, job, serving) + ")";
  if (nodes.gpus < job.total_gpus())
    return "needs " + std::to_string(job.total_gpus()) + " GPUs, the nodes serving it that it can run on have " +
           std::to_string(nodes.gpus) + why;
  return "a pod of " + std::to_string(largest_pod) + " GPUs fits on no node it can run on (largest has " +
         std::to_string(nodes.largest_node) + ")" + why;
}

}  // namespace

std::string training_admission_problem(const SchedulingView& view, uint32_t id, const TrainingAdmission& rules) {
  const JobSpec& job = view.job(id);
  const ClusterState& cluster = view.cluster();
  const char* resource = rules.serving == NodeMode::Topology ? "aliyun.com/gpu" : "nvidia.com/gpu";
  const int serving_gpus = cluster.label_gpus(rules.serving);
  if (serving_gpus == 0) return std::string("no node serves ") + resource + " requests (" + nodes_with_label(rules.serving) + ")";
  if (rules.gang_needs_equal_pods && !job.unequal_pod_gpus.empty())
    return "pods request unequal GPU counts (" + list_gpus(job.unequal_pod_gpus) + "): gang scheduling needs identical pods";
  if (job.total_gpus() > serving_gpus) {
    const std::string short_of =
        "needs " + std::to_string(job.total_gpus()) + " GPUs, the nodes serving it have " + std::to_string(serving_gpus);
    const NodeMode other = other_whole_gpu_label(rules.serving);
    const int elsewhere = cluster.label_gpus(other);
    if (serving_gpus + elsewhere < job.total_gpus()) return short_of;
    return "label mismatch: " + short_of + "; " + std::to_string(elsewhere) + " more are on nodes labelled " + label_text(other) +
           ", which do not serve it";
  }
  int largest_pod = job.gpus_per_worker;
  for (uint16_t g : job.unequal_pod_gpus) largest_pod = std::max<int>(largest_pod, g);
  if (largest_pod > cluster.max_node_gpus(rules.serving))
    return "a pod of " + std::to_string(largest_pod) + " GPUs fits on no node (largest has " +
           std::to_string(cluster.max_node_gpus(rules.serving)) + ")";
  if (const auto* annotations = view.annotations(id); annotations && rules.reads_annotations) {
    GangRequest annotated;
    if (Status s = apply_gang_annotations(*annotations, annotated); !s) return s.error().message;
  }
  // The node types' part depends on the job's model, framework, GPU model selector and flavor, batch and
  // whether it is an LLM or needs NICs: checked once per such shape (a throughput estimate per type), not per job.
  const bool need_nic = rules.pods_need_nic && job.workers > 1;
  const uint64_t key = (uint64_t{job.flavor_gpu} << 56) | (uint64_t{job.model} << 40) |
                       (static_cast<uint64_t>(job.framework) << 32) | (uint64_t{job.gpu_models} << 24) |
                       (uint64_t{job.batch_per_gpu} << 8) | (static_cast<uint64_t>(rules.serving) << 2) |
                       (uint64_t{need_nic} << 1) | uint64_t{job.llm != kNoLlm};
  auto [it, fresh] = view.shape_problems().try_emplace(key);
  if (fresh) it->second = serving_types_problem(view, job, rules.serving, need_nic);
  if (!it->second.problem.empty()) return it->second.problem;
  // Where the job can run hangs on its size too: asked per job, only when some type cannot take it.
  if (it->second.restricted || job.llm != kNoLlm) return runnable_nodes_problem(view, job, rules.serving, largest_pod);
  return "";
}

namespace {

std::string gang_words(const JobSpec& job) {
  return std::to_string(job.workers) + (job.workers == 1 ? " pod of " : " pods of ") + std::to_string(job.gpus_per_worker) +
         (job.gpus_per_worker == 1 ? " GPU" : " GPUs");
}

}  // namespace

std::string training_wait_reason(const SchedulingView& view, uint32_t id, NodeMode serving) {
  const JobSpec& job = view.job(id);
  if (!job.is_training()) return "";
  const ServingNodes nodes = serving_nodes(view, job, serving);
  const std::string needs = std::to_string(job.total_gpus()) + " GPUs";
  if (nodes.gpus < job.total_gpus() && job.holds_gpu_models())
    return "needs " + needs + ", the nodes serving it that it can run on have " + std::to_string(nodes.gpus) + " (" +
           cannot_run_on(view, job, serving) + ")";
  if (nodes.gpus < job.total_gpus())
    return "memory: its model fits in only " + std::to_string(nodes.gpus) + " of the GPUs serving it, it needs " + needs +
           (nodes.cannot_run.empty() ? "" : " (too little memory per GPU on " + join(nodes.cannot_run, ", ") + ")");
  if (job.gpus_per_worker > nodes.largest_node)
    return "gang shape: a pod of " + std::to_string(job.gpus_per_worker) + " GPUs is larger than any node that could take it (" +
           std::to_string(nodes.largest_node) + " GPUs)";
  if (job.total_gpus() > nodes.largest_node && !nodes.nic)
    return "no NIC path: its " + gang_words(job) + " need several nodes and no node serving it has a NIC";
  if (nodes.free_gpus < job.total_gpus()) {
    // A job held to some node types (its model's memory, its GPU model selector) counts the GPUs
    // free on those only.
    const std::string short_of =
        "needs " + needs + ", " + std::to_string(nodes.free_gpus) + " free on the nodes serving it" +
        (nodes.cannot_run.empty() ? "" : " that it can run on (" + cannot_run_on(view, job, serving) + ")");
    const NodeMode other = other_whole_gpu_label(serving);
    const int elsewhere = serving_nodes(view, job, other).free_gpus;
    if (nodes.free_gpus + elsewhere < job.total_gpus()) return short_of;
    return "label mismatch: " + short_of + "; " + std::to_string(elsewhere) + " more are free on nodes labelled " +
           label_text(other) + ", which do not serve it";
  }
  return std::to_string(nodes.free_gpus) + " GPUs free on the nodes serving it, none in the shape of its " + gang_words(job);
}

std::string share_admission_problem(const SchedulingView& view, uint32_t id) {
  const JobSpec& job = view.job(id);
  const NodeMode label = job.gpu_core_percent > 0 ? NodeMode::CoreMem : NodeMode::Share;
  const int card_mem = view.cluster().max_card_mem_gib(label);
  if (card_mem == 0)
    return std::string("no node serves ") + (job.gpu_core_percent > 0 ? "gpu-mem + gpu-core.percentage" : "memory-only gpu-mem") +
           " shares (" + nodes_with_label(label) + ")";
  if (const Status status = validate_request(pod_request(job), card_mem); !status) return status.error().message;
  return "";
}

std::string trace_pod_admission_problem(const SchedulingView& view, uint32_t id) {
  if (const Status status = validate_request(pod_request(view.job(id)), 0); !status) return status.error().message;
  return "";
}

ShapeKey pod_shape(const PodRequest& pod) {
  const int64_t ask = pod.gpu.kind == GpuAskKind::Mem ? pod.gpu.mem_gib * 1000 + pod.gpu.core_percent.value_or(0) : pod.gpu.milli;
  return {{pod.cpu_milli, pod.memory_mib,
           (static_cast<int64_t>(pod.gpu.kind) << 32) | (int64_t{pod.gpu.count} << 8) | (pod.gpu.topology_aware ? 1 : 0),
           (ask << 32) | pod.gpu_type_mask}};
}

std::optional<int64_t> runnable_types_key(const SchedulingView& view, const JobSpec& job) {
  const int types = view.cluster().type_count();
  if (types == 1) return 0;
  if (types > 63) return std::nullopt;
  int64_t mask = 0;
  for (int t = 0; t < types; ++t)
    if (type_fits_job(view, t, job)) mask |= int64_t{1} << t;
  return mask;
}

uint32_t runnable_type_mask(const SchedulingView& view, const JobSpec& job) {
  const int types = view.cluster().type_count();
  if (types == 1) return 0;
  uint32_t mask = 0;
  bool all = true;
  for (int t = 0; t < types; ++t) {
    const bool fits = type_fits_job(view, t, job);
    all = all && fits;
    if (fits && t < 32) mask |= uint32_t{1} << t;
  }
  return all ? 0 : mask;
}

ShapeKey training_shape(const SchedulingView& view, uint32_t job) {
  const JobSpec& spec = view.job(job);
  if (!spec.unequal_pod_gpus.empty() || view.annotations(job)) return ShapeKey::of_job(job);
  const std::optional<int64_t> types = runnable_types_key(view, spec);
  if (!types) return ShapeKey::of_job(job);
  return {{0, spec.workers, spec.gpus_per_worker, *types}};
}

std::vector<size_t> host_by_host_order(const std::vector<PodPlacement>& pods) {
  std::vector<int> first_use;
  for (const PodPlacement& pod : pods)
    if (std::find(first_use.begin(), first_use.end(), pod.node) == first_use.end()) first_use.push_back(pod.node);
  auto host_rank = [&](size_t pod) { return std::find(first_use.begin(), first_use.end(), pods[pod].node) - first_use.begin(); };
  auto by_host = [&](size_t a, size_t b) { return host_rank(a) < host_rank(b); };
  std::vector<size_t> order(pods.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Empty when the ranks come out in the pods' own order (each node's pods already together).
  if (std::is_sorted(order.begin(), order.end(), by_host)) return {};
  std::stable_sort(order.begin(), order.end(), by_host);
  return order;
}

JobStart socket_job_start(const SchedulingView& view, uint32_t job, const NetworkModel& network) {
  const ClusterState& cluster = view.cluster();
  const std::vector<PodPlacement>& bound = view.record(job).pods;
  JobStart start;
  start.rank_order = host_by_host_order(bound);
  // Buffers kept between jobs (a scheduler starts up to millions of them in a run).
  thread_local std::vector<int> nodes;  // distinct nodes, index into node_nic_gbit
  thread_local std::vector<double> node_nic_gbit;
  thread_local std::vector<PodInRing> pods;
  nodes.clear();
  node_nic_gbit.clear();
  pods.clear();
  for (size_t i = 0; i < bound.size(); ++i) {
    const PodPlacement& pod = bound[start.rank_order.empty() ? i : start.rank_order[i]];
    auto at = std::find(nodes.begin(), nodes.end(), pod.node);
    if (at == nodes.end()) {
      nodes.push_back(pod.node);
      node_nic_gbit.push_back(cluster.type_of(pod.node).primary_nic_gbit);
      at = nodes.end() - 1;
    }
    PodInRing in_ring{static_cast<int>(at - nodes.begin()), nullptr};
    if (pod.gpus.size() > 1 && cluster.type_of(pod.node).allocator)
      in_ring.gpus = &cluster.type_of(pod.node).allocator->ring_plan(to_gpu_set(pod.gpus));  // pod.gpus ascending
    pods.push_back(in_ring);
  }
  auto path = pod_socket_path(pods, node_nic_gbit, network);
  if (!path) return start;
  start.comm = *path;
  // An LLM job's ranks are its pods' indices, whatever nodes they landed on (order-blind).
  if (view.job(job).llm != kNoLlm) start.rank_order.clear();
  return start;
}

}  // namespace topsim
