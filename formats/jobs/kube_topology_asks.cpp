#include "formats/jobs/kube_topology_asks.h"

#include <array>

#include "formats/jobs/job_list_json.h"
#include "formats/jobs/kube_yaml.h"

namespace topsim {

namespace {

// Kueue TAS pod-set annotations (sim/schedulers/kueue_tas.cpp), carried from a pod template.
constexpr std::array<const char*, 5> kKueueTopologyKeys = {
    "kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology",
    "kueue.x-k8s.io/podset-slice-required-topology", "kueue.x-k8s.io/podset-slice-size",
    "kueue.x-k8s.io/podset-slice-required-topology-constraints"};

// KAI Scheduler's topology constraint (sim/schedulers/kai_topology.cpp), carried from the
// workload's own metadata.annotations, where KAI's docs put it (docs/topology/README.md).
constexpr std::array<const char*, 3> kKaiTopologyKeys = {"kai.scheduler/topology", "kai.scheduler/topology-required-placement",
                                                         "kai.scheduler/topology-preferred-placement"};

// A Volcano networkTopology {mode, highestTierAllowed, highestTierName} (at `field`) as the
// volcano-topology plug-in's annotations `mode_key` and `tier_key`-allowed / `tier_key`-name;
// false when it is absent. The mode is hard when not given (the CRD's default). Throws
// ManifestFault on a tier number and a tier name together (Volcano's admission refuses them);
// notes hard mode without a tier, which Volcano's scheduler holds to no tier.
bool add_network_topology(const YAML::Node& topology, const std::string& field, const std::string& mode_key,
                          const std::string& tier_key, const std::string& job_name, nlohmann::ordered_json& asks,
                          std::vector<std::string>& notes) {
  if (!topology || topology.IsNull()) return false;
  if (!topology.IsMap()) throw ManifestFault{field + ": must be a map {mode, highestTierAllowed, highestTierName}"};
  std::string mode = text_of(child(topology, "mode"), field + ".mode");
  if (mode.empty()) mode = "hard";
  const std::string tier = text_of(child(topology, "highestTierAllowed"), field + ".highestTierAllowed");
  const std::string name = text_of(child(topology, "highestTierName"), field + ".highestTierName");
  if (!tier.empty() && !name.empty())
    throw ManifestFault{field + ": highestTierAllowed and highestTierName may not both be set (Volcano's admission)"};
  asks[mode_key] = mode;
  if (!tier.empty()) asks[tier_key + "-allowed"] = tier;
  if (!name.empty()) asks[tier_key + "-name"] = name;
  if (mode == "hard" && tier.empty() && name.empty())
    notes.push_back(job_name + ": " + field +
                    " is hard without highestTierAllowed or highestTierName: Volcano's scheduler holds it to no tier");
  return true;
}

// A Volcano Job's partitions (a GPU task's partitionPolicy: the SubGroup affinity policy) as the
// volcano-topology plug-in's annotations. Throws ManifestFault on what Volcano's admission refuses
// (totalPartitions x partitionSize other than the task's replicas).
void add_partitions(const YAML::Node& tasks, const std::vector<PodGroup>& groups, const std::string& job_name,
                    nlohmann::ordered_json& asks, std::vector<std::string>& notes) {
  int gpu_tasks = 0;
  std::string taken;
  for (size_t t = 0; tasks && tasks.IsSequence() && t < tasks.size() && t < groups.size(); ++t) {
    if (groups[t].ask.gpus <= 0) continue;
    ++gpu_tasks;
    const std::string at = "spec.tasks[" + std::to_string(t) + "].partitionPolicy";
    const YAML::Node policy = child(tasks[t], "partitionPolicy");
    if (!policy || !taken.empty()) continue;
    const int64_t size = count_of(child(policy, "partitionSize"), at + ".partitionSize", 0);
    const int64_t total = count_of(child(policy, "totalPartitions"), at + ".totalPartitions", 0);
    if (size < 1 || total < 1 || size * total != groups[t].replicas)
      throw ManifestFault{at + ": totalPartitions " + std::to_string(total) + " x partitionSize " + std::to_string(size) +
                          " must be the task's " + std::to_string(groups[t].replicas) + " replicas (Volcano's admission)"};
    if (!add_network_topology(child(policy, "networkTopology"), at + ".networkTopology",
                              "volcano.sh/partition-network-topology-mode", "volcano.sh/partition-highest-tier", job_name, asks,
                              notes))
      continue;  // partitions without a topology constraint: placed as one gang
    taken = at;
    asks["volcano.sh/partition-size"] = std::to_string(size);
    if (const int64_t least = count_of(child(policy, "minPartitions"), at + ".minPartitions", 0); least > 0 && least < total)
      notes.push_back(job_name + ": " + at + ".minPartitions is not modelled: the job starts with all its partitions");
  }
  if (!taken.empty() && gpu_tasks > 1)
    notes.push_back(job_name + ": " + taken + " is taken for all the job's GPU pods (topsim places them as one gang)");
}

// A pod template's asks: the Kueue TAS keys, then its `gpu.topology/*` annotations (the
// topology-aware scheduler's), each checked as the job list's reader checks them
// (annotation_problem; ManifestFault naming the annotation otherwise).
nlohmann::ordered_json template_asks(const PodGroup& group) {
  nlohmann::ordered_json these = nlohmann::ordered_json::object();
  const std::string at = group.field + ".metadata.annotations.";
  for (const char* key : kKueueTopologyKeys)
    if (const std::string value = text_of(child(group.annotations, key), at + key); !value.empty()) these[key] = value;
  if (!group.annotations || !group.annotations.IsMap()) return these;
  for (const auto& entry : group.annotations) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    if (key.rfind("gpu.topology/", 0) != 0) continue;
    const std::string value = text_of(entry.second, at + key);
    if (const std::string problem = annotation_problem(key, value); !problem.empty())
      throw ManifestFault{at + key + ": " + problem};
    these[key] = value;
  }
  return these;
}

}  // namespace

nlohmann::ordered_json topology_asks(const YAML::Node& doc, bool volcano_job, const std::vector<PodGroup>& groups,
                                     const std::string& job_name, std::vector<std::string>& notes) {
  nlohmann::ordered_json asks = nlohmann::ordered_json::object();
  const PodGroup* taken = nullptr;
  for (const PodGroup& group : groups) {
    if (group.ask.gpus <= 0) continue;
    nlohmann::ordered_json these = template_asks(group);
    if (these.empty() && !taken) continue;
    if (!taken) {
      taken = &group, asks = std::move(these);
    } else if (these != asks) {
      notes.push_back(job_name + ": " + group.field + " asks other placement (Kueue TAS, gpu.topology) than " + taken->field +
                      "; topsim places the job's GPU pods as one pod set, by " + taken->field + "'s");
    }
  }
  const YAML::Node annotations = child(child(doc, "metadata"), "annotations");
  for (const char* key : kKaiTopologyKeys)
    if (std::string value = text_of(child(annotations, key), std::string("metadata.annotations.") + key); !value.empty())
      asks[key] = std::move(value);
  if (volcano_job) {
    add_network_topology(child(child(doc, "spec"), "networkTopology"), "spec.networkTopology", "volcano.sh/network-topology-mode",
                         "volcano.sh/network-topology-highest-tier", job_name, asks, notes);
    add_partitions(child(child(doc, "spec"), "tasks"), groups, job_name, asks, notes);
  }
  return asks;
}

}  // namespace topsim
