// Queue configurations as platform teams keep them in git (docs/tenancy.md, "Queue
// configuration"): Kueue's ClusterQueue, Cohort, LocalQueue, ResourceFlavor and
// WorkloadPriorityClass (kueue.x-k8s.io v1beta1 and v1beta2; Cohort also v1alpha1), Kubernetes
// PriorityClass (scheduling.k8s.io/v1), Kueue's Configuration (config.kueue.x-k8s.io, for Fair
// Sharing) and KAI-Scheduler's Queue (scheduling.run.ai/v2), in YAML files of several documents,
// `kind: List` included. Objects of other kinds are skipped and counted by kind.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/tenancy/queue_config.h"
#include "util/expected.h"

namespace topsim {

// `path`: one YAML file, or a folder whose *.yaml and *.yml files (in every subfolder, names
// starting with '.' left out) are read in sorted path order. Every problem is one line naming the
// file and line, the object and the field ("q/queues.yaml:12: ClusterQueue team-a:
// spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: '-4' must not be negative"); a
// folder without a ClusterQueue or KAI Queue is an error.
[[nodiscard]] Expected<QueueConfig> read_queue_config(const std::string& path);

// The same from (file name, text) pairs, read in the order given; `source` names them all.
[[nodiscard]] Expected<QueueConfig> parse_queue_config(const std::vector<std::pair<std::string, std::string>>& files,
                                                       const std::string& source);

}  // namespace topsim
