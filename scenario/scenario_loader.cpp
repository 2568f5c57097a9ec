#include "scenario/scenario_loader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

#include "core/artifact_policies.h"
#include "core/builtin_models.h"
#include "core/hardware.h"
#include "core/model_catalog.h"
#include "formats/hardware/kube_nodes.h"
#include "formats/hardware/node_source.h"
#include "formats/jobs/imported_jobs.h"
#include "formats/support/json_reader.h"
#include "scenario/other_inputs.h"
#include "scenario/scenario_sections.h"
#include "sim/schedulers/registry.h"
#include "sim/workload/workload_mix.h"
#include "util/file_names.h"
#include "util/input_file.h"
#include "util/number_format.h"
#include "util/suggest.h"
#include "util/text.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTopKeys = {
    "name",           "description",       "mode",         "seed",     "seeds",           "cluster",
    "workload",       "schedulers",        "share_policy", "queue",    "overlap",         "record_transitions",
    "sample_every_s", "workload_coverage", "target_load",  "protocol", "topology_labels", "transport",
    "tenancy",        "checkpoints",       "failures"};
constexpr int kMaxSeeds = 100000;
constexpr double kMaxTargetLoad = 10.0;

// The schedulers able to run on this cluster: a trace's nodes take only schedulers placing trace pods.
bool runs_on(const SchedulerInfo& info, const Scenario& s) {
  if (s.protocol == FillProtocol::FgdArtifact) return info.share_policy && has_artifact_version(*info.share_policy);
  return s.cluster.trace_nodes.empty() || (info.handles & kHandlesTracePods);
}

std::vector<std::string> schedulers_for(const Scenario& s) {
  std::vector<std::string> names;
  for (const SchedulerInfo& info : scheduler_registry())
    if (runs_on(info, s)) names.emplace_back(info.name);
  return names;
}

void read_schedulers(JsonErrors& errors, const JsonAt& at, Scenario& s) {
  if (!at.value->is_array() || at.value->empty()) return errors.fail(at.pointer, "must be a non-empty array of scheduler names");
  s.schedulers.clear();
  for (size_t i = 0; i < at.value->size(); ++i) {
    const JsonAt item = at.element(i);
    const auto name = json_string(errors, item);
    if (!name) return;
    const SchedulerInfo* info = find_scheduler(*name);
    if (!info) return errors.fail(item.pointer, unknown_name("scheduler", *name, scheduler_names()));
    if (!runs_on(*info, s) && s.protocol == FillProtocol::FgdArtifact)
      return errors.fail(item.pointer, "'" + *name + "' has no version under \"protocol\": \"fgd-artifact\"; the artifact's: " +
                                           join_names(schedulers_for(s)));
    if (!runs_on(*info, s))
      return errors.fail(item.pointer, "'" + *name +
                                           "' cannot place a trace's pods (its nodes have no topology); on a node list: " +
                                           join_names(schedulers_for(s)));
    if (std::find(s.schedulers.begin(), s.schedulers.end(), *name) != s.schedulers.end())
      return errors.fail(item.pointer, "scheduler '" + *name + "' listed twice");
    s.schedulers.push_back(*name);
  }
}

void read_share_policy(const JsonObject& top, Scenario& s) {
  const auto name = top.string("share_policy");
  if (!name) return;
  std::vector<std::string> placing_shares;
  for (const SchedulerInfo& info : scheduler_registry())
    if (info.handles & kHandlesShares) placing_shares.emplace_back(info.name);
  if (std::find(placing_shares.begin(), placing_shares.end(), *name) == placing_shares.end())
    return top.fail("share_policy", unknown_name("policy", *name, placing_shares));
  s.share_scheduler = *name;
}

void read_options(JsonErrors& errors, const JsonObject& top, Scenario& s) {
  if (auto q = top.member("queue")) {
    JsonObject queue(errors, *q, {"backfill"});
    if (auto b = queue.member("backfill")) {
      if (!b->value->is_boolean())
        queue.fail("backfill", "must be true or false");
      else
        s.backfill = b->value->get<bool>();
    }
  }
  if (auto ov = top.member("overlap")) {
    JsonObject overlap(errors, *ov, enum_name_list<Framework>());
    if (auto v = overlap.number(enum_name(Framework::TensorFlow), 0, 1)) s.overlap.tensorflow = *v;
    if (auto v = overlap.number(enum_name(Framework::PyTorch), 0, 1)) s.overlap.pytorch = *v;
  }
  if (auto rt = top.member("record_transitions")) {
    if (!rt->value->is_boolean())
      top.fail("record_transitions", "must be true or false");
    else
      s.record_transitions = rt->value->get<bool>();
  }
  if (auto every = top.number("sample_every_s", 0.001, 1e9))
    s.sample_every_ms = std::max<int64_t>(1, std::llround(*every * 1000));
  if (auto coverage = top.number("workload_coverage", 1e-6, 1)) s.fragmentation_coverage = *coverage;
  read_share_policy(top, s);
}

// The mode first: it decides which keys apply and the default schedulers.
void read_mode(const JsonObject& top, Scenario& s) {
  if (auto m = top.string("mode")) {
    if (auto mode = parse_enum<ExperimentMode>(*m))
      s.mode = *mode;
    else
      top.fail("mode", "'" + *m + "' is not one of " + join_names(enum_name_list<ExperimentMode>()));
  }
  if (auto p = top.string("protocol")) {
    if (s.mode != ExperimentMode::Fill) return top.fail("protocol", "applies to \"mode\": \"fill\" only");
    if (auto protocol = parse_enum<FillProtocol>(*p))
      s.protocol = *protocol;
    else
      top.fail("protocol", unknown_name("protocol", *p, enum_name_list<FillProtocol>()));
  }
  if (s.mode == ExperimentMode::Fill) {
    if (auto load = top.number("target_load", 0.01, kMaxTargetLoad)) s.target_load = *load;
    for (const char* key : {"queue", "sample_every_s"})
      if (top.has(key)) top.fail(key, "does not apply to a fill experiment (nothing waits, nothing departs)");
  } else if (top.has("target_load")) {
    top.fail("target_load", "applies to \"mode\": \"fill\" only");
  }
}

// Pods of `pod_gpus` GPUs the empty cluster holds at once (memoised per pod size).
int pod_capacity(const ClusterState& cluster, int pod_gpus, std::map<int, int>& memo) {
  auto [it, fresh] = memo.emplace(pod_gpus, 0);
  if (fresh)
    for (int n = 0; n < cluster.node_count(); ++n) it->second += cluster.gpus_per_node(n) / pod_gpus;
  return it->second;
}

std::string share_fit_problem(const JobSpec& job, const std::string& name, const ClusterState& cluster) {
  const NodeMode label = job.gpu_core_percent > 0 ? NodeMode::CoreMem : NodeMode::Share;
  const int mem = cluster.max_card_mem_gib(label);
  if (mem == 0)
    return name + " asks a " + (job.gpu_core_percent > 0 ? "memory + compute" : "memory-only") +
           " GPU share, but no node group has \"label\": \"" + std::string(enum_name(label)) + "\"";
  if (job.gpu_mem_gib > mem)
    return name + " asks " + std::to_string(job.gpu_mem_gib) + " GiB of one GPU, the largest card on " +
           std::string(enum_name(label)) + " nodes has " + std::to_string(mem) + " GiB";
  return "";
}

// What the nodes a training job may use hold when empty: the whole cluster, or the node groups it
// can run on (fit_groups below), whose models `names` gives for messages.
struct NodesFor {
  int gpus = 0, largest_node = 0;
  std::vector<std::pair<int, int>> nodes;  // (count, GPUs per node) per group, for pod capacity
  bool whole = true;                       // the whole cluster: its wording and memo apply
  std::string names;                       // the groups' models when not whole
};

std::string training_fit_problem(const JobSpec& job, const std::string& name, const ClusterState& cluster, int largest_node,
                                 std::map<int, int>& capacity, const NodesFor& on) {
  int largest_pod = job.gpus_per_worker;
  for (uint16_t g : job.unequal_pod_gpus) largest_pod = std::max<int>(largest_pod, g);
  const int gpus = on.whole ? cluster.total_gpus() : on.gpus;
  const int largest = on.whole ? largest_node : on.largest_node;
  const std::string nodes = "the nodes it can run on (" + on.names + ")";
  if (job.total_gpus() > gpus)
    return name + " needs " + std::to_string(job.total_gpus()) + " GPUs, " + (on.whole ? "the cluster has" : nodes + " have") +
           " " + std::to_string(gpus);
  if (largest_pod > largest)
    return name + " has a pod of " + std::to_string(largest_pod) + " GPUs, the largest node " +
           (on.whole ? "" : "it can run on ") + "has " + std::to_string(largest);
  if (!job.unequal_pod_gpus.empty()) return "";
  int pods = 0;
  if (on.whole)
    pods = pod_capacity(cluster, job.gpus_per_worker, capacity);
  else
    for (const auto& [count, per_node] : on.nodes) pods += count * (per_node / job.gpus_per_worker);
  if (pods < job.workers)
    return name + " needs " + std::to_string(job.workers) + " pods of " + std::to_string(job.gpus_per_worker) +
           " GPUs, the empty " + (on.whole ? "cluster holds " : "nodes it can run on (" + on.names + ") hold ") +
           std::to_string(pods);
  return "";
}

// The catalog GPUs of the cluster's modelled node types, in order of appearance.
std::vector<const GpuModel*> cluster_gpus(const ClusterState& cluster) {
  std::vector<const GpuModel*> gpus;
  for (int t = 0; t < cluster.type_count(); ++t)
    if (const GpuModel* gpu = cluster.type(t).gpu; gpu && std::find(gpus.begin(), gpus.end(), gpu) == gpus.end())
      gpus.push_back(gpu);
  return gpus;
}

// A job given by a duration converts it to work on the reference GPU's node (sim/job_timing.h):
// an LLM job must run there. The problem follows the job's name.
std::string reference_llm_problem(const Workload& workload, const JobSpec& job) {
  const LlmJob* llm = workload.llm_of(job);
  if (llm == nullptr || job.iterations != 0 || job.ideal_duration_ms == kForeverMs) return "";
  const GpuModel* reference =
      job.reference_gpu == kWorkloadReference ? find_gpu_model(workload.reference_gpu) : gpu_at(job.reference_gpu);
  if (reference == nullptr) return "";
  const int gpus = job.total_gpus();
  const ParallelConfig config = llm->config_for(gpus);
  const Status valid = validate_parallel(*llm->model, config, *reference, gpus);
  if (valid) return "";
  std::string problem = " (" + llm->model->name + ", " + counted(gpus, "GPU") + ") is given by a duration measured on " +
                        reference->name + ", which cannot run it (" + valid.error().message + ")";
  GpuModel roomy = *reference;  // the same GPU without a memory limit
  roomy.memory_gib = std::numeric_limits<double>::infinity();
  if (validate_parallel(*llm->model, config, roomy, gpus)) {
    // Memory alone: a job list's message says what to raise. A model-mix job's layout is already
    // the least memory its GPUs allow, and its LLM was drawn only because no model of the mix
    // fits its size there (sim/workload/workload_mix.h TrainingDraw).
    if (llm->automatic)
      problem += ": no model of the model mix fits a job of " + counted(gpus, "GPU") +
                 " there (an LLM of the mix is drawn only for the sizes it fits); add one that does, e.g. resnet50";
    return problem;
  }
  // The GPU itself (its precision): the advice names one that runs the job (a model-mix job's
  // layout chosen to fit it), the first in catalog order.
  for (const std::string& name : gpu_model_names()) {
    LlmJob on = *llm;
    const GpuModel* gpu = find_gpu_model(name);
    if (on.automatic) on.fit_gpu = gpu;
    if (validate_parallel(*on.model, on.config_for(gpus), *gpu, gpus))
      return problem + ": set \"reference_gpu\" to a GPU that can, e.g. " + name;
  }
  return problem;
}

// Where a job runs, per node group (group g is the cluster's node type g): `runs[g]`, and how many
// groups can take it. A group without a catalog GPU (a trace's nodes) takes any job.
struct GroupFit {
  std::vector<char> runs;
  int count = 0;
};

void fit_groups(const Workload& workload, const JobSpec& job, const std::vector<NodeGroupSpec>& groups,
                const std::vector<const GpuModel*>& paces, GroupFit& fit) {
  fit.runs.assign(groups.size(), 1);
  fit.count = static_cast<int>(groups.size());
  for (size_t g = 0; g < groups.size(); ++g)
    if (paces[g] && !job_node_problem(workload, job, *paces[g], groups[g].model).ok()) {
      fit.runs[g] = 0;
      --fit.count;
    }
}

std::vector<const GpuModel*> group_paces(const std::vector<NodeGroupSpec>& groups) {
  std::vector<const GpuModel*> paces;
  for (const NodeGroupSpec& group : groups) paces.push_back(pace_gpu(group.model));
  return paces;
}

// Why a training job cannot run on each group that cannot take it, each distinct reason once and
// where it applies: "on v100: ..." for what the GPU cannot hold, "on hgx-h100 (node h5): ..." for
// a group's host memory (named nodes, from kubectl, are named: the memory is theirs). `least_gib`,
// when given, gets the most of a model-mix job's least memory per GPU where no layout fits
// (NodeFitProblem::least_gib), 0 when that is no group's reason.
std::vector<std::string> group_reasons(const Workload& workload, const JobSpec& job, const std::vector<NodeGroupSpec>& groups,
                                       const std::vector<const GpuModel*>& paces, double* least_gib = nullptr) {
  std::vector<std::string> reasons;
  if (least_gib) *least_gib = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (!paces[g]) continue;
    const NodeFitProblem problem = job_node_problem(workload, job, *paces[g], groups[g].model);
    if (problem.ok()) continue;
    if (least_gib) *least_gib = std::max(*least_gib, problem.least_gib);
    std::string where = paces[g]->name;
    if (problem.of_node) {
      const size_t named = groups[g].names.size();
      where =
          groups[g].model.name + (named == 0   ? ""
                                  : named == 1 ? " (node " + groups[g].names.front() + ")"
                                               : " (" + std::to_string(named) + " nodes: " + groups[g].names.front() + ", ...)");
    }
    std::string reason = "on " + where + ": " + problem.message;
    if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(std::move(reason));
  }
  return reasons;
}

// Why a training job can run on none of the groups: no group has a GPU model it selects; an image
// model names the largest GPU it selects (any smaller one fails alike).
std::string unrunnable_message(const Workload& workload, const JobSpec& job, const std::string& name,
                               const std::vector<NodeGroupSpec>& groups, const std::vector<const GpuModel*>& paces) {
  std::vector<std::string> cluster_models;
  const GpuModel* largest = nullptr;
  for (const GpuModel* gpu : paces) {
    if (!gpu) continue;
    if (std::find(cluster_models.begin(), cluster_models.end(), gpu->name) == cluster_models.end())
      cluster_models.push_back(gpu->name);
    if (workload.selects_gpu(job, *gpu) && (!largest || gpu->memory_gib > largest->memory_gib)) largest = gpu;
  }
  if (!largest)
    return name + " selects GPU model " + workload.selected_gpus_text(job) +
           " (\"gpu_models\"), and the cluster has none (its GPUs: " + join(cluster_models, ", ") + ")";
  const LlmJob* llm = workload.llm_of(job);
  if (llm == nullptr) {
    const DnnModel* model = model_at(job.model);
    char text[200];
    std::snprintf(
        text, sizeof text,
        " (%s) needs %.1f GiB per GPU for weights, gradients and Adam state (16 B x %.0f M parameters); the largest GPU "
        "(%s) has %.0f GiB",
        model->name.c_str(), training_state_gib(job.model), static_cast<double>(model->parameters) / 1e6, largest->name.c_str(),
        largest->memory_gib);
    return name + text;
  }
  double least_gib = 0;
  const std::vector<std::string> reasons = group_reasons(workload, job, groups, paces, &least_gib);
  const std::string job_words = name + " (" + llm->model->name + ", " + std::to_string(job.total_gpus()) + " GPUs) ";
  // A model-mix job cannot take a job list's advice (raise tp, pp, ...): on each GPU it takes the
  // layout of least memory that fits it, here none (sim/job.h LlmJob::config_for).
  const std::string advice =
      least_gib <= 0 ? ""
                     : "; a model mix's LLM job takes the layout a tuned run takes on the GPU it runs on: run the workload on "
                       "GPUs of at least " +
                           format_number(std::ceil(least_gib)) +
                           " GiB, or list its jobs in a job list, where \"recompute\": \"full\" or \"zero\": 3 save memory";
  if (reasons.size() == 1) return job_words + reasons.front() + advice;
  return job_words + "can run on no node type of the cluster: " + join(reasons, "; ") + advice;
}

// Jobs given by durations need the GPU the durations were measured on when the cluster's GPUs
// differ (sim/job_timing.h).
std::string reference_problem(const Workload& workload, const JobSpec& job, const std::vector<const GpuModel*>& gpus) {
  if (!workload.reference_gpu.empty() || job.reference_gpu != kWorkloadReference || gpus.size() < 2) return "";
  if (job.iterations > 0 || job.ideal_duration_ms == kForeverMs || (job.model == kNoModel && job.llm == kNoLlm)) return "";
  return "jobs are given by durations and the cluster has several GPU models (" +
         join(gpus, ", ", [](const GpuModel* g) { return g->name; }) +
         "): set \"reference_gpu\" to the GPU the durations were measured on";
}

// A job the empty cluster can never hold is an input error, not something to simulate. (Trace
// pods are checked when they arrive: FGD's protocol counts those that fit nowhere.)
void check_fits(JsonErrors& errors, const Scenario& s, const ClusterState& cluster) {
  const std::vector<const GpuModel*> gpus = cluster_gpus(cluster);
  const std::vector<NodeGroupSpec>& groups = s.cluster.groups;
  const std::vector<const GpuModel*> paces = group_paces(groups);
  int largest_node = 0;
  for (int n = 0; n < cluster.node_count(); ++n) largest_node = std::max(largest_node, cluster.gpus_per_node(n));
  std::map<int, int> capacity;
  GroupFit fit;
  NodesFor whole, on;
  // A model-mix LLM no job's size fits on the reference GPU is never drawn (TrainingDraw).
  for (const MixLlmLimit& limit : mix_llm_limits(*s.workload))
    if (limit.jobs_left_out == limit.training_jobs)
      return errors.fail("/workload/model_mix",
                         limit.llm->model->name + " fits no job of the workload on " + limit.llm->fit_gpu->name + " (" +
                             format_number(limit.llm->fit_gpu->memory_gib) + " GiB): no layout of its sizes, up to " +
                             counted(limit.left_out.rbegin()->first, "GPU") +
                             ", holds it, so the mix would never draw it; give the workload larger jobs, or list its jobs in a "
                             "job list, where \"recompute\": \"full\" or \"zero\": 3 save memory");
  JobCursor cursor(*s.workload);
  while (const JobSpec* next = cursor.next()) {
    const JobSpec& job = *next;
    if (job.kind == JobKind::TracePod) continue;
    const std::string name = "job '" + s.workload->job_name(job.id) + "'";
    const NodesFor* nodes = &whole;
    if (job.is_training()) {
      if (const std::string problem = reference_problem(*s.workload, job, gpus); !problem.empty())
        return errors.fail("/workload/reference_gpu", problem);
      if (const std::string problem = reference_llm_problem(*s.workload, job); !problem.empty())
        return errors.fail("/workload", name + problem);
      fit_groups(*s.workload, job, groups, paces, fit);
      if (fit.count == 0 && !groups.empty())
        return errors.fail("/workload", unrunnable_message(*s.workload, job, name, groups, paces));
      if (fit.count < static_cast<int>(groups.size())) {  // a mixed cluster: only the groups it can run on
        on = NodesFor{};
        on.whole = false;
        std::vector<std::string> models;
        for (size_t g = 0; g < groups.size(); ++g) {
          if (!fit.runs[g]) continue;
          const int per_node = static_cast<int>(groups[g].model.gpus.size());
          on.gpus += groups[g].count * per_node;
          on.largest_node = std::max(on.largest_node, per_node);
          on.nodes.emplace_back(groups[g].count, per_node);
          if (std::find(models.begin(), models.end(), groups[g].model.name) == models.end())
            models.push_back(groups[g].model.name);
        }
        on.names = join(models, ", ");
        nodes = &on;
      }
    }
    const std::string problem = job.is_share() ? share_fit_problem(job, name, cluster)
                                               : training_fit_problem(job, name, cluster, largest_node, capacity, *nodes);
    if (!problem.empty() && nodes == &on)  // say why the other groups do not count
      return errors.fail("/workload",
                         problem + "; it cannot run " + join(group_reasons(*s.workload, job, groups, paces), "; it cannot run "));
    if (!problem.empty()) return errors.fail("/workload", problem);
  }
}

// Nodes of a model sold in multi-node NVLink domains (GB200 NVL72 trays) on a cluster whose network
// gives no NVLink level: each node is then its own domain, which the user should know.
void note_nvlink_domains(Scenario& s) {
  const FabricSpec& fabric = s.cluster.network.fabric;
  if (!fabric.empty() && fabric.levels.front().nvlink) return;
  for (const NodeGroupSpec& group : s.cluster.groups)
    if (const int per = builtin_nvlink_domain_nodes(group.model.name); per > 0) {
      s.notes.push_back("cluster: " + group.model.name +
                        " nodes without an NVLink level in cluster.network.levels: each is its own NVLink domain (racks of " +
                        std::to_string(per) + " are {\"name\": \"nvl72\", \"fanout\": " + std::to_string(per) +
                        ", \"links\": \"nvlink\"} as the lowest level)");
      return;
    }
}

// `cluster_only`: the cluster and nothing after it (no workload; `topsim topo show --cluster`).
void read_top(JsonErrors& errors, const JsonObject& top, std::string_view source, const std::string& base_dir, Scenario& s,
              std::optional<Error>& verbatim, bool cluster_only = false) {
  if (auto n = top.string("name")) s.name = *n;
  if (auto d = top.string("description")) s.description = *d;
  read_mode(top, s);
  if (auto seed = top.integer("seed", 0, INT64_MAX)) s.seed = static_cast<uint64_t>(*seed);
  if (auto seeds = top.integer("seeds", 1, kMaxSeeds)) s.seeds = static_cast<int>(*seeds);
  if (top.require("cluster")) {
    const JsonAt at = *top.member("cluster");
    if (at.value->is_string()) {  // a cluster file, from `topsim import nodes` or kubectl's; its errors name it
      const std::string path = resolve_path(base_dir, at.value->get<std::string>());
      auto text = read_text_file(path);
      if (!text) return top.fail("cluster", text.error().message);
      const std::string ext = fs::path(path).extension().string();
      const bool yaml = ext == ".yaml" || ext == ".yml";  // `kubectl get nodes -o yaml`, or Node documents
      auto document = yaml ? Expected<nlohmann::json>(nlohmann::json::object()) : parse_json_text(*text, path);
      if (!document) return verbatim.emplace(document.error()), void();
      if (yaml || (document->is_object() && (document->contains("apiVersion") || document->contains("items") ||
                                             (document->contains("kind") && document->at("kind").is_string() &&
                                              document->at("kind") == "Node")))) {  // `kubectl get nodes -o json`
        std::vector<std::string> topology_labels;                                   // node labels naming fabric levels, top first
        if (auto labels = top.member("topology_labels")) {
          if (!labels->value->is_array())
            return top.fail("topology_labels", "must be an array of node label names, top level first");
          for (size_t i = 0; i < labels->value->size(); ++i) {
            const JsonAt label = labels->element(i);
            if (!label.value->is_string() || label.value->get<std::string>().empty())
              return errors.fail(label.pointer, "must be a node label name");
            topology_labels.push_back(label.value->get<std::string>());
          }
        }
        std::string transport;  // "" = read from the nodes
        if (auto t = top.string("transport")) {
          if (*t != "ib" && *t != "roce" && *t != "tcp") return top.fail("transport", "'" + *t + "' is not one of ib, roce, tcp");
          transport = *t;
        }
        auto nodes = parse_kube_nodes(*text, path, {}, topology_labels, transport);
        if (!nodes) return verbatim.emplace(nodes.error()), void();
        s.notes.push_back("network: " + nodes->transport + " (" + nodes->transport_reason + ")");
        for (const std::string& note : nodes->notes) s.notes.push_back(note);
        document = nlohmann::json::parse(kube_cluster_json(*nodes));
      }
      JsonErrors file_errors(path);
      read_cluster(file_errors, JsonAt{&*document, ""}, fs::path(path).parent_path().string(), s);
      if (file_errors.failed()) return verbatim.emplace(file_errors.error()), void();
    } else {
      if (top.has("topology_labels") || top.has("transport"))
        return top.fail(top.has("transport") ? "transport" : "topology_labels",
                        "applies to a cluster read from `kubectl get nodes -o json` (a file name)");
      read_cluster(errors, at, base_dir, s);
    }
    note_nvlink_domains(s);
  }
  if (errors.failed() || cluster_only) return;
  if (top.require("workload")) {
    const JsonAt at = *top.member("workload");
    if (at.value->is_string()) {  // a workload file, e.g. from `topsim import jobs`; its errors name it
      const std::string path = resolve_path(base_dir, at.value->get<std::string>());
      RecordFormat format = record_format(path);
      std::optional<nlohmann::json> document;
      if (format == RecordFormat::Json) {
        auto text = read_text_file(path);
        if (!text) return top.fail("workload", text.error().message);
        auto parsed = parse_json_text(*text, path);
        if (!parsed) return verbatim.emplace(parsed.error()), void();
        document = std::move(parsed).value();
        if (document->is_object() && document->contains("apiVersion")) format = RecordFormat::Manifests;  // Kubernetes objects
      }
      // Records of other tools are read as their workload kind (docs/importers.md).
      if (format != RecordFormat::Json) {
        const char* kind = format == RecordFormat::Sacct ? "sacct" : format == RecordFormat::Helios ? "helios" : "kubernetes";
        document = nlohmann::json{{"kind", kind}, {"path", path}};
      }
      JsonErrors file_errors(path);
      read_workload(file_errors, verbatim, JsonAt{&*document, ""}, path, fs::path(path).parent_path().string(), s);
      if (file_errors.failed()) return verbatim.emplace(file_errors.error()), void();
    } else {
      read_workload(errors, verbatim, at, std::string(source), base_dir, s);
    }
  }
  if (verbatim || errors.failed()) return;
  s.schedulers = s.cluster.trace_nodes.empty() ? std::vector<std::string>{"topology-aware", "default"} : schedulers_for(s);
  if (auto sch = top.member("schedulers")) read_schedulers(errors, *sch, s);
  read_options(errors, top, s);
  if (!errors.failed()) read_tenancy(errors, verbatim, top, base_dir, s);
  if (!errors.failed() && !verbatim) read_checkpoints(errors, top, s);
  if (!errors.failed() && !verbatim) read_failures(errors, verbatim, top, base_dir, s);
}

}  // namespace

Expected<Scenario> parse_scenario(std::string_view text, std::string_view source, const std::string& base_dir) {
  auto json = parse_json_text(text, source);
  if (!json) return json.error();
  return read_scenario(*json, source, base_dir, true);
}

Expected<Scenario> read_scenario(const nlohmann::json& document, std::string_view source, const std::string& base_dir,
                                 bool check_jobs_fit) {
  JsonErrors errors(source);
  Scenario s;
  s.name = fs::path(std::string(source)).stem().string();
  const JsonObject top(errors, JsonAt{&document, ""}, kTopKeys);
  if (!top.is_object()) return errors.error();
  std::optional<Error> verbatim;
  read_top(errors, top, source, base_dir, s, verbatim);
  if (verbatim) return *verbatim;
  if (errors.failed()) return errors.error();
  auto cluster = ClusterState::build(s.cluster);
  if (!cluster) return Error{std::string(source) + ": " + cluster.error().message};
  if (s.failures && s.failures->spares)
    if (const std::string wrong = check_spares(*s.failures->spares, *cluster); !wrong.empty())
      return Error{std::string(source) + ": /failures/spares/nodes: " + wrong};
  if (check_jobs_fit) check_fits(errors, s, *cluster);
  if (errors.failed()) return errors.error();
  return s;
}

Expected<Scenario> load_scenario(const std::string& path) {
  auto text = read_text_file(path);
  Expected<Scenario> scenario = text ? parse_scenario(*text, path, fs::path(path).parent_path().string()) : text.error();
  if (!scenario)
    if (std::optional<std::string> other = other_input(path, Wanted::Scenario)) return Error{*other};
  return scenario;
}

Expected<Scenario> scenario_from_files(const std::string& cluster_path, const std::string& workload_path,
                                       const OwnClusterOptions& options) {
  // The workload's own name: "manifests/" and "manifests" both name the run "manifests".
  fs::path workload = fs::path(workload_path).lexically_normal();
  if (workload.filename().empty()) workload = workload.parent_path();
  std::string name = workload.filename().string();
  if (name.empty() || name == "." || name == "..") name = fs::absolute(workload).lexically_normal().filename().string();
  nlohmann::json document = {{"name", safe_file_name(name)}, {"cluster", fs::absolute(cluster_path).string()}};
  if (record_format(workload_path) == RecordFormat::Manifests && options.share_card_gib > 0)
    document["workload"] = {
        {"kind", "kubernetes"}, {"path", fs::absolute(workload_path).string()}, {"share_card_gib", options.share_card_gib}};
  else
    document["workload"] = fs::absolute(workload_path).string();
  if (!options.topology_labels.empty()) document["topology_labels"] = options.topology_labels;
  if (!options.network.empty()) document["transport"] = options.network;
  Expected<Scenario> scenario = read_scenario(document, "--cluster/--workload", fs::current_path().string(), true);
  if (!scenario) {
    if (std::optional<std::string> other = other_input(cluster_path, Wanted::Cluster)) return Error{*other};
    if (std::optional<std::string> other = other_input(workload_path, Wanted::Workload)) return Error{*other};
  }
  return scenario;
}

Expected<Scenario> load_cluster_only(const std::string& cluster_path, const OwnClusterOptions& options) {
  nlohmann::json document = {{"cluster", fs::absolute(cluster_path).string()}};
  if (!options.topology_labels.empty()) document["topology_labels"] = options.topology_labels;
  if (!options.network.empty()) document["transport"] = options.network;
  const std::string source = "--cluster";
  JsonErrors errors(source);
  Scenario s;
  const JsonObject top(errors, JsonAt{&document, ""}, kTopKeys);
  std::optional<Error> verbatim;
  read_top(errors, top, source, fs::current_path().string(), s, verbatim, true);
  if (verbatim || errors.failed())
    if (std::optional<std::string> other = other_input(cluster_path, Wanted::Cluster)) return Error{*other};
  if (verbatim) return *verbatim;
  if (errors.failed()) return errors.error();
  return s;
}

std::string jobs_unrunnable_on(const Workload& workload, const std::vector<NodeGroupSpec>& groups) {
  const std::vector<const GpuModel*> paces = group_paces(groups);
  GroupFit fit;
  JobCursor cursor(workload);
  while (const JobSpec* job = cursor.next()) {  // the job is named only once it fails (a plan asks per node type)
    if (!job->is_training()) continue;
    if (const std::string problem = reference_llm_problem(workload, *job); !problem.empty())
      return "job '" + workload.job_name(job->id) + "'" + problem;
    fit_groups(workload, *job, groups, paces, fit);
    if (fit.count == 0 && !groups.empty())
      return unrunnable_message(workload, *job, "job '" + workload.job_name(job->id) + "'", groups, paces);
  }
  return "";
}

std::string default_scenario_path(const std::string& repository_root) {
  return (fs::path(repository_root) / "scenarios" / "ack-v100-benchmark.json").string();
}

}  // namespace topsim
