#include "reports/job_explain.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>

#include "core/llm_estimate.h"
#include "core/model_catalog.h"
#include "reports/llm_estimate_report.h"
#include "reports/report_model.h"
#include "util/number_format.h"
#include "util/one_line.h"
#include "util/suggest.h"
#include "util/text.h"

namespace topsim {
namespace {

std::string seconds(int64_t ms) { return format_number(static_cast<double>(ms) / 1000.0) + " s"; }

// "<before>queue team-a, priority class high": the queue and priority class `job` names (each
// only when it names one; no job: neither).
std::string queue_words(const Workload& workload, const JobSpec* job, const char* before) {
  std::string out;
  if (job && job->queue < workload.queue_names.size()) out += before + ("queue " + one_line(workload.queue_names[job->queue]));
  if (job && job->priority_class < workload.priority_class_names.size())
    out += ", priority class " + one_line(workload.priority_class_names[job->priority_class]);
  return out;
}

// "training: vpp 5, sequence 8192 tokens, global batch 128 sequences, micro-batch auto (the fastest
// that fits on each node type), recompute none, ..., TP overlap on\n": an LLM job's settings
// beyond its layout, as its job list gave them (jobs.jsonl's llm_config).
std::string llm_config_line(const LlmJob& llm, int gpus) {
  const ParallelConfig c = llm.config_for(gpus);
  const std::string micro_batch = llm.micro_batch_auto ? std::string("auto (the fastest that fits on each node type)")
                                                       : fmt::format("{} ({} per step)", c.micro_batch, c.microbatches());
  std::string out = fmt::format("training: vpp {}, {}", c.vpp, llm_settings_text(*llm.model, c, micro_batch));
  if (c.tp_overlap) out += ", TP overlap on";
  if (!c.overlap_dp) out += ", data-parallel traffic not overlapped";
  if (c.offload_layers > 0)
    out += fmt::format(", activations of {} offloaded to host memory", counted(c.offload_layers, "layer"));
  return out + "\n";
}

// "tp 8 x pp 2 x dp 2 x cp 1, ep 1": the layout an LLM job ran with under one scheduler (the
// reference GPU's when it did not run; sim/job.h config_ran), "" for other jobs.
std::string layout_ran(const Workload& workload, const JobSpec& job, const JobRecord& r) {
  const LlmJob* llm = job.is_training() ? workload.llm_of(job) : nullptr;
  if (!llm) return "";
  const ParallelConfig c = llm->config_ran(job.total_gpus(), r.llm.get());
  return fmt::format("tp {} x pp {} x dp {} x cp {}, ep {}", c.tp, c.pp, c.dp, c.cp, c.ep);
}

// "job a (training, 2 pods x 8 GPUs, ...), submitted at 0 s" (an image model and its framework, or
// an LLM and `layout`, the first scheduler's: "llama3-70b: tp 8 x pp 2 x dp 2 x cp 1, ep 1"), the
// GPU models it selects and the placement asks it carried.
std::string job_line(const Workload& workload, const JobSpec& job, const std::string& name, const JobExtras* extras,
                     const std::string& layout) {
  std::string out = "job " + name + " (" + std::string(enum_name(job.kind));
  if (job.is_training()) {
    out += ", " + counted(job.workers, "pod") + " x " + counted(job.gpus_per_worker, "GPU");
    if (const DnnModel* model = model_at(job.model)) out += ", " + model->name + " / " + std::string(enum_name(job.framework));
    if (const LlmJob* llm = workload.llm_of(job)) out += ", " + llm->model->name + ": " + layout;
  }
  out += "), submitted at " + seconds(job.submit_ms) + queue_words(workload, &job, " to ") + "\n";
  if (const LlmJob* llm = job.is_training() ? workload.llm_of(job) : nullptr; llm && llm->settings_known)
    out += llm_config_line(*llm, job.total_gpus());
  if (job.gpu_models != kAnyGpuModel)
    out += "selects GPU models: " + join(workload.selected_gpu_names(job), ", ") +
           " (\"gpu_models\", a nvidia.com/gpu.product node selector): it runs on nodes of these only\n";
  if (extras && !extras->annotations.empty())
    out += "asks: " + join(extras->annotations, ", ", [](const auto& a) { return a.first + ": " + a.second; }) + "\n";
  return out;
}

// Why the workload made no job of the trace entry `name`, or nullopt when it did not skip one so
// named.
std::optional<std::string> skipped_text(const ScenarioInfo& scenario, const std::string& name) {
  for (const SkippedEntries& entries : scenario.skipped)
    if (std::find(entries.names.begin(), entries.names.end(), name) != entries.names.end())
      return name + " was not replayed: " + entries.why + ".\nThe workload (" + scenario.workload +
             ") skipped it, so no scheduler saw it.\n";
  return std::nullopt;
}

// "node 3" or, when the cluster named its nodes, "gpu-a (node 3)".
std::string node_text(int node, const std::vector<std::string>& node_names) {
  if (node >= 0 && static_cast<size_t>(node) < node_names.size())
    return fmt::format("{} (node {})", one_line(node_names[static_cast<size_t>(node)]), node);
  return fmt::format("node {}", node);
}

// Nodes listed one by one up to this many; a larger job's are summed up.
constexpr size_t kNodesListed = 16;

// "node 0: GPUs 0,1,2,3; node 1: GPUs 0,1": where the pods' GPUs are, node by node.
// "node 3: GPUs 0,1" or, when the cluster named its nodes, "gpu-a (node 3): GPUs 0,1". Over
// more than 16 nodes: "1536 nodes (nodes 0-134, 136-159, ...), 8 GPUs each".
std::string gpus_text(const JobRecord& r, const std::vector<std::string>& node_names) {
  std::map<int, std::vector<int>> by_node;
  for (const PodPlacement& pod : r.pods) by_node[pod.node].insert(by_node[pod.node].end(), pod.gpus.begin(), pod.gpus.end());
  if (by_node.size() > kNodesListed) {
    std::string ranges;
    size_t listed = 0, gpus_min = SIZE_MAX, gpus_max = 0;
    for (auto it = by_node.begin(); it != by_node.end();) {
      const int first = it->first;
      int last = first;
      for (++it; it != by_node.end() && it->first == last + 1; ++it) last = it->first;
      if (listed++ < 8)
        ranges += (ranges.empty() ? "" : ", ") + (first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
    }
    for (const auto& [node, gpus] : by_node)
      gpus_min = std::min(gpus_min, gpus.size()), gpus_max = std::max(gpus_max, gpus.size());
    return fmt::format("{} nodes (nodes {}{}), {} GPUs each", by_node.size(), ranges, listed > 8 ? ", ..." : "",
                       gpus_min == gpus_max ? std::to_string(gpus_min) : fmt::format("{}-{}", gpus_min, gpus_max));
  }
  std::string out;
  for (const auto& [node, gpus] : by_node)
    out += (out.empty() ? "" : "; ") + fmt::format("{}: GPU{} {}", node_text(node, node_names), gpus.size() == 1 ? "" : "s",
                                                   join(gpus, ",", [](int g) { return std::to_string(g); }));
  return out;
}

// The fabric's level of multi-node NVLink domains, or nullptr.
const FabricLevelView* nvlink_level(const FabricView& fabric) {
  const auto level = std::find_if(fabric.levels.begin(), fabric.levels.end(), [](const FabricLevelView& l) { return l.nvlink; });
  return level == fabric.levels.end() ? nullptr : &*level;
}

// The group of `level` that `node` is in, or nullptr: none, or groups that are not runs of
// consecutive nodes.
const FabricGroupView* group_of(const FabricLevelView& level, int node) {
  for (const FabricGroupView& group : level.groups)
    if (group.first_node <= node && node <= group.last_node)
      return group.nodes == group.last_node - group.first_node + 1 ? &group : nullptr;
  return nullptr;
}

// Node failures listed one by one up to this many; results.json's node_failures holds them all.
constexpr size_t kFailuresListed = 5;

// "  node 3 failed under it at 600 s (gpu, down 7,200 s): it restarted on spare node 7, ...": the
// node failures of `run` that hit job `id` (record `r`), what became of it each time, and when a
// spare in another NVLink domain than the failed node's took its place, that it did, and for an
// RDMA job with nodes in the failed node's domain, that its traffic between the two now crosses
// the NICs (its bandwidth and rate above are those of its last placement).
std::string failure_lines(const RunResult& run, uint32_t id, const JobRecord& r, const ScenarioInfo& scenario) {
  std::string out;
  size_t hits = 0;
  std::array<size_t, 3> unlisted{};  // by FailureOutcome
  const FabricLevelView* level = nvlink_level(scenario.fabric_view);
  for (const NodeEvent& e : run.failures) {
    const auto hit = std::find_if(e.hit.begin(), e.hit.end(), [&](const FailureHit& h) { return h.job == id; });
    if (hit == e.hit.end()) continue;
    if (++hits > kFailuresListed) {
      ++unlisted[static_cast<size_t>(hit->then)];
      continue;
    }
    const std::string failed = node_text(e.node, scenario.node_names);
    out += fmt::format("\n  {} failed under it at {} ({}, down {}): ", failed, seconds(e.at_ms), enum_name(e.cause),
                       seconds(e.down_ms));
    switch (hit->then) {
      case FailureOutcome::Spare: {
        out += "it restarted at once with spare " + node_text(e.spare, scenario.node_names) + " in its place";
        const FabricGroupView* from = level ? group_of(*level, e.node) : nullptr;
        const FabricGroupView* to = level ? group_of(*level, e.spare) : nullptr;
        if (!from || !to || from == to) break;
        out +=
            fmt::format(", in another NVLink domain ({0} {1}; the failed node's is {0} {2})", level->name, to->name, from->name);
        // A job on RDMA (host-networked: pods over sockets run TCP) with nodes in the failed
        // node's domain talked to it over NVLink; to the spare it talks over the NICs.
        if (r.comm.transport == CommTransport::Rdma && std::any_of(r.pods.begin(), r.pods.end(), [&](const PodPlacement& pod) {
              return pod.node != e.node && group_of(*level, pod.node) == from;
            }))
          out += ": its traffic between the two domains crosses the NICs, where it went over NVLink before";
        break;
      }
      case FailureOutcome::Shrunk: out += "it went on at once with its workers off that node (elastic)"; break;
      case FailureOutcome::Stopped: out += "it stopped, to be placed again"; break;
    }
  }
  if (hits > kFailuresListed) {
    std::vector<std::string> outcomes;
    for (const auto& [then, what] :
         {std::pair{FailureOutcome::Spare, "with a spare in its place"},
          std::pair{FailureOutcome::Shrunk, "going on with fewer workers"}, std::pair{FailureOutcome::Stopped, "stopping it"}})
      if (const size_t n = unlisted[static_cast<size_t>(then)]; n > 0) outcomes.push_back(fmt::format("{} {}", n, what));
    out += fmt::format("\n  ... and {} more node failures under it: {} (results.json's node_failures lists them)",
                       hits - kFailuresListed, join(outcomes, ", "));
  }
  return out;
}

// What a preemption's reason means, the same words for its victim and its preemptor.
std::string_view preemption_text(PreemptionReason reason) {
  switch (reason) {
    case PreemptionReason::InClusterQueue: return "priority within one ClusterQueue (Kueue's InClusterQueue)";
    case PreemptionReason::InCohortReclamation:
      return "the preemptor's ClusterQueue reclaiming quota the victim's borrowed in their cohort (Kueue's "
             "InCohortReclamation)";
    case PreemptionReason::InCohortReclaimWhileBorrowing:
      return "the preemptor's ClusterQueue reclaiming quota the victim's borrowed, while borrowing itself (borrowWithinCohort; "
             "Kueue's InCohortReclaimWhileBorrowing)";
    case PreemptionReason::InCohortFairSharing:
      return "Fair Sharing between the ClusterQueues of their cohort (Kueue's InCohortFairSharing)";
    case PreemptionReason::Reclaim:
      return "the preemptor's queue, within its fair share, reclaiming GPUs of the victim's queue, above its own (KAI's reclaim "
             "action)";
    case PreemptionReason::Preempt: return "priority within one queue (KAI's preempt action)";
  }
  return "";
}

// The spec of job `id` when the workload lists it (a generated workload does not).
const JobSpec* spec_of(const Workload& workload, uint32_t id) {
  // Jobs are in submission order: a job's id is most often its index.
  if (id < workload.jobs.size() && workload.jobs[id].id == id) return &workload.jobs[id];
  const auto it = std::find_if(workload.jobs.begin(), workload.jobs.end(), [&](const JobSpec& j) { return j.id == id; });
  return it == workload.jobs.end() ? nullptr : &*it;
}

// The queue job `id` names, or "".
std::string queue_of(const Workload& workload, uint32_t id) {
  const JobSpec* job = spec_of(workload, id);
  return job && job->queue < workload.queue_names.size() ? one_line(workload.queue_names[job->queue]) : "";
}

// "b-17 (#34; queue team-a, priority class high)": a job of a preemption.
std::string other_job_text(const Workload& workload, uint32_t id) {
  return one_line(workload.job_name(id)) + " (#" + std::to_string(id) + queue_words(workload, spec_of(workload, id), "; ") + ")";
}

// Preemptions of a job listed one by one up to this many, and as many evictions made for it (each
// with up to as many victims named); results.json's preemptions holds them all.
constexpr size_t kPreemptionsListed = 5;

// GPU-hours as explain writes them: "0.0492", "under 0.0001".
std::string gpu_hours_text(int64_t gpu_ms) {
  const double hours = static_cast<double>(gpu_ms) / 3.6e6;
  return hours > 0 && hours < 1e-4 ? "under 0.0001" : format_number(hours);
}

// What one eviction cost its victim ("" when the results did not record it): the training since
// its last checkpoint, to redo, and the restart it made the job spend. Nothing when it was
// admitted but not running, or stopped at a checkpoint without a restart.
std::string lost_text(const Preemption& p) {
  if (p.lost_gpu_ms < 0) return "";
  if (p.lost_gpu_ms == 0) return "; it lost no GPU time";
  return fmt::format("; it lost {} GPU-hours (the training since its last checkpoint, to redo, and the restart it caused)",
                     gpu_hours_text(p.lost_gpu_ms));
}

// "  preempted at 1,200 s by job b-17 (#34; queue team-a): ...", then "  to be admitted it
// preempted, at 1,200 s, job a-3 (#3; queue team-b), ...: ...": the evictions of `run` that
// stopped job `id`, and those made for it (one line per instant and reason: Kueue evicts a
// preemptor's victims in one cycle), with the reason of each.
std::string preemption_lines(const RunResult& run, uint32_t id, const Workload& workload) {
  std::string out;
  size_t as_victim = 0, groups = 0, unlisted = 0;
  std::map<std::string, EvictionSum> unlisted_by;  // preemptions of it not listed, by the preemptor's queue
  for (size_t i = 0; i < run.preemptions.size(); ++i) {
    const Preemption& p = run.preemptions[i];
    if (p.victim == id && ++as_victim <= kPreemptionsListed)
      out += fmt::format("\n  preempted at {} by {}: {}{}", seconds(p.at_ms), other_job_text(workload, p.preemptor),
                         preemption_text(p.reason), lost_text(p));
    else if (p.victim == id)
      unlisted_by[queue_of(workload, p.preemptor)].add(p);
    if (p.preemptor != id) continue;
    // The evictions made for it at this instant for this reason (the log keeps them together).
    size_t end = i;
    while (end < run.preemptions.size() && run.preemptions[end].preemptor == id && run.preemptions[end].at_ms == p.at_ms &&
           run.preemptions[end].reason == p.reason)
      ++end;
    const size_t n = end - i;
    i = end - 1;
    if (++groups > kPreemptionsListed) {
      unlisted += n;
      continue;
    }
    std::vector<std::string> victims;
    for (size_t k = 0; k < n && k < kPreemptionsListed; ++k)
      victims.push_back(other_job_text(workload, run.preemptions[end - n + k].victim));
    out += fmt::format("\n  to be admitted it preempted, at {}, {}{}: {}", seconds(p.at_ms), join(victims, ", "),
                       n > victims.size() ? fmt::format(" and {} more", n - victims.size()) : "", preemption_text(p.reason));
  }
  if (as_victim > kPreemptionsListed) {
    // By the preemptors' queues, most first: which tenants took its GPUs back.
    std::vector<std::pair<EvictionSum, std::string>> by;
    for (const auto& [queue, sum] : unlisted_by) by.emplace_back(sum, queue);
    std::stable_sort(by.begin(), by.end(), [](const auto& a, const auto& b) { return a.first.evictions > b.first.evictions; });
    std::vector<std::string> parts;
    for (const auto& [sum, queue] : by)
      parts.push_back(fmt::format("{} by {} of {}{}", sum.evictions, sum.evictions == 1 ? "a job" : "jobs",
                                  queue.empty() ? "no queue" : "queue " + queue,
                                  sum.known ? " (" + gpu_hours_text(sum.lost_gpu_ms) + " GPU-hours lost)" : ""));
    out += fmt::format("\n  ... and {} more preemptions of it: {} (results.json's preemptions lists them)",
                       as_victim - kPreemptionsListed, join(parts, ", "));
  }
  if (unlisted > 0) out += fmt::format("\n  ... and {} more jobs it preempted (results.json's preemptions lists them)", unlisted);
  return out;
}

// "  step: 5 s = compute 3.71 + tensor-parallel 0.95 + ...; 819.8 tokens/s per GPU, MFU 35.89%,
// micro-batch 2" (the micro-batch when the records give it).
std::string llm_step_line(const LlmStep& s) {
  const std::pair<const char*, double> parts[] = {
      {"compute", s.compute_ms},          {"tensor-parallel", s.tp_ms},        {"expert all-to-all", s.ep_ms},
      {"context exchange", s.cp_ms},      {"pipeline bubble", s.pp_bubble_ms}, {"pipeline sends", s.pp_p2p_ms},
      {"data-parallel", s.dp_exposed_ms}, {"optimizer", s.optimizer_ms},       {"host offload", s.offload_ms}};
  std::string out = "  step: " + format_number(s.step_ms / 1000) + " s =";
  bool first = true;
  for (const auto& [name, ms] : parts)
    if (ms > 0) {
      out += fmt::format("{} {} {} s", first ? "" : " +", name, format_number(ms / 1000));
      first = false;
    }
  out += fmt::format("; {} tokens/s per GPU, MFU {}%", format_number(s.tokens_per_sec_per_gpu), format_number(100 * s.mfu));
  return s.micro_batch > 0 ? out + fmt::format(", micro-batch {}", s.micro_batch) : out;
}

// A job larger than a multi-node NVLink domain (GB200 NVL72) placed below its ideal by a tier
// plug-in that was not asked for slices (its annotations, as jobs.jsonl keeps them): the ideal
// rate it is measured against is the faster of whole domains in order and segments of 16 nodes
// per domain (core/llm_estimate.h default_segments), and the plug-in lays out the segments when
// asked (docs/fabric.md "Jobs larger than an NVL72 rack"). "" when that is not the case.
std::string segment_hint(const std::string& scheduler, const JobRecord& r, const JobExtras* extras, const FabricView& fabric) {
  const bool kueue = scheduler == "kueue-tas", volcano = scheduler == "volcano-topology";
  if ((!kueue && !volcano) || !r.llm || r.ideal_samples_per_sec <= 0 || r.samples_per_sec >= 0.99 * r.ideal_samples_per_sec)
    return "";
  // Asked already (the annotations jobs.jsonl keeps): its own plug-in's slice keys.
  const std::vector<const char*> asks =
      kueue ? std::vector<const char*>{"kueue.x-k8s.io/podset-slice-required-topology",
                                       "kueue.x-k8s.io/podset-slice-required-topology-constraints"}
            : std::vector<const char*>{"volcano.sh/partition-size"};
  if (extras && std::any_of(asks.begin(), asks.end(), [&](const char* key) { return extras->annotations.count(key) > 0; }))
    return "";
  const FabricLevelView* level = nvlink_level(fabric);
  if (!level) return "";
  int domain_nodes = 0;
  for (const FabricGroupView& group : level->groups) domain_nodes = std::max(domain_nodes, group.nodes);
  std::map<int, int> pods_on;
  for (const PodPlacement& pod : r.pods) ++pods_on[pod.node];
  const int nodes = static_cast<int>(pods_on.size()), pods = static_cast<int>(r.pods.size());
  const std::vector<int> layouts = default_segments(domain_nodes, nodes);
  if (std::find(layouts.begin(), layouts.end(), kLargeJobSegmentNodes) == layouts.end() || pods % nodes != 0) return "";
  const int slice = kLargeJobSegmentNodes * (pods / nodes);
  const std::string name = level->label.empty() ? level->name : level->label;
  const std::string out = fmt::format(
      "\n  hint: its ideal is the faster of two layouts on the {0} domains, whole domains in order or segments of {1} nodes "
      "per domain; {2} places it in such segments when the job carries ",
      level->name, kLargeJobSegmentNodes, scheduler);
  if (kueue)
    return out +
           fmt::format("kueue.x-k8s.io/podset-slice-required-topology: {} and kueue.x-k8s.io/podset-slice-size: {}", name, slice);
  const int tier = static_cast<int>(level - fabric.levels.data()) + 1;
  return out + fmt::format(
                   "volcano.sh/partition-size: {}, volcano.sh/partition-network-topology-mode: hard and "
                   "volcano.sh/partition-highest-tier-allowed: {} (hard partitions without a tier are not held to one)",
                   slice, tier);
}

// The node models of a job's pods when it ran on several (in order of first use), else none: a
// gang over node types runs at the pace of the one it is slowest on and its ideal is the fastest
// one's (sim/job_timing.h). Modelled clusters only, whose groups hold consecutive nodes (a
// trace's node list is grouped by type, its groups labelled `milli`).
std::vector<std::string> pod_models(const JobRecord& r, const ScenarioInfo& scenario) {
  const auto& groups = scenario.node_groups;
  if (std::any_of(groups.begin(), groups.end(), [](const NodeGroupInfo& g) { return g.label == "milli"; })) return {};
  std::vector<std::string> models;
  for (const PodPlacement& pod : r.pods) {
    int first = 0;
    for (const NodeGroupInfo& group : groups) {
      if (pod.node < first + group.count) {
        if (std::find(models.begin(), models.end(), group.model) == models.end()) models.push_back(group.model);
        break;
      }
      first += group.count;
    }
  }
  return models.size() > 1 ? models : std::vector<std::string>{};
}

// How many of job `id`'s evictions came before it first started (at `start_ms`): admitted, its
// pods perhaps bound, it stopped nothing that ran.
size_t evictions_before_start(const RunResult& run, uint32_t id, int64_t start_ms) {
  return static_cast<size_t>(std::count_if(run.preemptions.begin(), run.preemptions.end(),
                                           [&](const Preemption& p) { return p.victim == id && p.at_ms < start_ms; }));
}

// Where its pods are and, for a training job that ran, its ring, rate and stops: lines each
// ending in a newline.
std::string placed_lines(const SchedulerResult& s, const JobSpec& job, const JobRecord& r, const JobExtras* extras,
                         const ScenarioInfo& scenario, const std::string& header_layout) {
  std::string out;
  if (r.pods.empty()) return out;
  out += "  GPUs: " + gpus_text(r, scenario.node_names) + "\n";
  if (!job.is_training() || r.start_ms < 0) return out;
  if (r.comm.transport != CommTransport::None)
    out += fmt::format("  ring: {}, {} GB/s bus bandwidth{}\n", enum_name(r.comm.transport),
                       format_number(r.comm.bus_bandwidth_gbps),
                       r.host_network ? "; its pods on the host network (NCCL sees its nodes, not its pods)" : "");
  out += "  throughput: " + format_number(r.samples_per_sec) + " " + throughput_unit(job, r);
  if (r.ideal_samples_per_sec > 0)
    out += fmt::format(" ({:.1f}% of the ideal placement's {})", 100 * r.samples_per_sec / r.ideal_samples_per_sec,
                       format_number(r.ideal_samples_per_sec));
  // A model mix's LLM job takes the layout that fits the GPU it runs on: under a scheduler that
  // placed it on other GPUs than the first line's it ran with another.
  if (const std::string layout = layout_ran(*s.runs.front().workload, job, r); r.llm && layout != header_layout)
    out += "\n  layout: " + layout + " (the one that fits the GPUs it ran on here; the first line's is " + header_layout + ")";
  if (r.llm) out += "\n" + llm_step_line(*r.llm);
  if (const auto models = pod_models(r, scenario); !models.empty())
    out += "\n  node types: " + join(models, ", ") +
           ": every step waits for the slowest ranks, so it runs at the pace of the type it is slowest on; its ideal is "
           "the fastest type's";
  out += segment_hint(s.name, r, extras, scenario.fabric_view);
  if (r.contended_ms > 0)
    out += fmt::format("\n  slowed by uplinks shared with other jobs for {} s, down to {:.1f}% of its ring's network bandwidth",
                       format_number(static_cast<double>(r.contended_ms) / 1e3), 100 * r.least_network_share);
  if (!r.relaxed.empty()) out += "\n  constraints dropped: " + join(r.relaxed, ", ");
  if (r.interruptions > 0 || r.evictions > 0 || r.checkpoint_ms > 0) {
    out += "\n  stopped: " + counted(r.interruptions, "time") + " by node failures, " + counted(r.evictions, "time") +
           " by preemption";
    if (const size_t before = s.runs.empty() ? 0 : evictions_before_start(s.runs.front(), job.id, r.start_ms); before > 0)
      out += before == r.evictions ? " (before it first ran)" : fmt::format(" ({} of them before it first ran)", before);
    if (r.resizes > 0) out += ", resized " + counted(r.resizes, "time") + " (elastic)";
    out += "; training redone " + seconds(r.recompute_ms) + ", restarting " + seconds(r.restart_ms) + ", writing checkpoints " +
           seconds(r.checkpoint_ms) + ", waiting to restart " + seconds(r.requeue_ms);
    if (r.finish_ms > r.start_ms)
      out +=
          fmt::format("; effective training time {:.1f}% of {}",
                      100 * productive_ms(r) / static_cast<double>(r.finish_ms - r.start_ms), seconds(r.finish_ms - r.start_ms));
  }
  return out + "\n";
}

std::string scheduler_lines(const SchedulerResult& s, const JobSpec& job, const JobRecord& r, const JobExtras* extras,
                            const ScenarioInfo& scenario, const std::string& header_layout) {
  // A job waiting when the run ended had not always waited from the start: a preemption or a
  // failure may have stopped it after it started.
  const std::string state = r.state != JobState::Pending ? std::string(enum_name(r.state))
                            : r.start_ms >= 0            ? "waiting again when the run ended"
                                                         : "never placed";
  std::string out = fmt::format("{} (seed {}): {}", s.name, s.runs.front().seed, state);
  if (r.start_ms >= 0) {
    out += fmt::format(", {} {}", r.state == JobState::Pending ? "first started after" : "waited",
                       seconds(r.start_ms - r.submit_ms));
    if (r.finish_ms >= 0) out += ", ran " + seconds(r.finish_ms - r.start_ms);
  }
  if (!r.reason.empty()) out += "\n  why: " + (r.reason.starts_with("never placed: ") ? r.reason.substr(14) : r.reason);
  if (!r.placement_note.empty()) out += "\n  note: " + r.placement_note;
  out += "\n";
  if (const std::vector<std::string>& flavors = s.runs.front().flavors;
      r.flavor >= 0 && static_cast<size_t>(r.flavor) < flavors.size())
    out += "  Kueue flavor: " + flavors[static_cast<size_t>(r.flavor)] + " (its " +
           std::string(job.is_training() ? "nvidia.com/gpu"
                       : job.is_share()  ? "aliyun.com/gpu-mem"
                                         : "GPUs") +
           " at its last admission; the flavor's nodeLabels are its pods' node selector)\n";
  out += placed_lines(s, job, r, extras, scenario, header_layout);
  // What stopped it or what it stopped: "\n  ..." each.
  const std::string events =
      failure_lines(s.runs.front(), job.id, r, scenario) + preemption_lines(s.runs.front(), job.id, *s.runs.front().workload);
  if (!events.empty()) out += events.substr(1) + "\n";
  return out;
}

// "#ID" asks for a job by its id (jobs.jsonl's "id"); nullopt for a name.
std::optional<uint32_t> asked_id(const std::string& asked) {
  if (asked.size() < 2 || asked.front() != '#') return std::nullopt;
  uint32_t id = 0;
  const char* end = asked.data() + asked.size();
  const auto [at, error] = std::from_chars(asked.data() + 1, end, id);
  return error == std::errc{} && at == end ? std::optional<uint32_t>(id) : std::nullopt;
}

// A fill experiment draws a trace's pods with replacement: one name may name several jobs. The
// first is explained; this line says so and how to ask for the others.
std::string shared_name_line(const std::string& name, const std::vector<uint32_t>& ids) {
  constexpr size_t kShown = 10;
  std::vector<std::string> shown;
  for (size_t i = 0; i < ids.size() && i < kShown; ++i) shown.push_back(std::to_string(ids[i]));
  return fmt::format("  ({} names {} jobs of this run, ids {}{}; this is id {}: `topsim explain DIR '#ID'` explains another)\n",
                     name, format_count(static_cast<long long>(ids.size())), join(shown, ", "),
                     ids.size() > kShown ? ", ..." : "", ids.front());
}

}  // namespace

Expected<std::string> explain_job(const ResultSet& results, const std::string& job_name) {
  if (results.schedulers.empty() || results.schedulers.front().runs.empty()) return Error{"the results hold no run"};
  if (!has_job_records(results.schedulers.front().runs.front()))
    return Error{"the results have no per-job records (written with --summary-only)"};
  const std::optional<uint32_t> by_id = asked_id(job_name);
  std::string header, header_layout, body;
  std::vector<std::string> names;
  std::vector<uint32_t> same_name;  // ids of the first scheduler's jobs with the asked name
  size_t jobs = 0;                  // of the first scheduler's run
  for (const SchedulerResult& s : results.schedulers) {
    const bool first_scheduler = &s == &results.schedulers.front();
    std::optional<std::string> found;
    const Workload& workload = *s.runs.front().workload;
    const Status read = for_each_job(s.runs.front(), [&](const JobSpec& job, const JobRecord& record) {
      const std::string name = workload.job_name(job.id);
      if (first_scheduler && ++jobs <= 100000) names.push_back(name);
      if (by_id ? job.id != *by_id : name != job_name) return;
      if (first_scheduler && !by_id) same_name.push_back(job.id);
      if (found) return;
      const auto extras = workload.extras.find(job.id);
      const JobExtras* asked = extras == workload.extras.end() ? nullptr : &extras->second;
      if (header.empty()) {
        header_layout = layout_ran(workload, job, record);
        header = job_line(workload, job, name, asked, header_layout);
      }
      found = scheduler_lines(s, job, record, asked, results.scenario, header_layout);
    });
    if (!read) return read.error();
    if (!found && by_id)
      return Error{jobs == 0 ? "the run has no jobs" : fmt::format("no job has id {} (ids run from 0 to {})", *by_id, jobs - 1)};
    if (!found && !by_id)
      if (std::optional<std::string> skipped = skipped_text(results.scenario, job_name)) return *skipped;
    if (!found) return Error{unknown_name("job", job_name, names, jobs, "jobs.jsonl names them all")};
    body += *found;
  }
  if (same_name.size() > 1) header += shared_name_line(job_name, same_name);
  return header + body;
}

}  // namespace topsim
