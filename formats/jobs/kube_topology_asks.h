// A Kubernetes workload's placement asks (Kueue TAS pod-set annotations, a Volcano Job's
// networkTopology and partitionPolicy, KAI's kai.scheduler/topology* workload annotations, the
// topology-aware scheduler's gpu.topology/* pod annotations) as the annotations the schedulers
// read (docs/importers.md). Internal to formats/ (kube_manifests.cpp).
#pragma once

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "formats/jobs/kube_workloads.h"

namespace topsim {

// The job's placement asks as the schedulers read them: the Kueue TAS and gpu.topology/*
// annotations of the first pod template whose pods ask GPUs and carries any (topsim places the
// job's GPU pods as one pod set; a GPU template asking otherwise is named in a note), the
// workload's own kai.scheduler/topology, -required-placement and -preferred-placement, and a
// Volcano Job's spec.networkTopology {mode, highestTierAllowed, highestTierName} (Volcano
// v1.11+; mode hard when not given) as volcano.sh/network-topology-mode, -highest-tier-allowed and
// -highest-tier-name, and its GPU task's partitionPolicy as volcano.sh/partition-*. Throws
// ManifestFault naming the field on a malformed ask.
nlohmann::ordered_json topology_asks(const YAML::Node& doc, bool volcano_job, const std::vector<PodGroup>& groups,
                                     const std::string& job_name, std::vector<std::string>& notes);

}  // namespace topsim
