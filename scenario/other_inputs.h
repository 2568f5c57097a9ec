// What a file handed to a command as its scenario, plan, quality suite, cluster, workload or
// results folder, or to an importer, is when it is another of the files topsim reads, and where it
// goes instead: `topsim run jobs.yaml` says "Kubernetes manifests (Job), not a scenario: run them
// with `topsim run --cluster NODES --workload jobs.yaml` ..." rather than a JSON syntax error at
// line 1. Recognised: Kubernetes manifests, kubectl node lists, Kueue / KAI queue objects, job
// lists, the Philly, Alibaba 2023 and Helios traces, sacct output, failure traces, node models
// (topsim's JSON, `nvidia-smi topo -m`, NCCL topology XML), cluster files, scenarios, plans,
// quality suites, saved results, and folders of them. Asked only after the file failed to load as
// what was wanted, so a file of that kind with a mistake keeps its own error.
#pragma once

#include <optional>
#include <string>

#include "formats/support/file_kind.h"

namespace topsim {

// What a command was handed `path` as.
enum class Wanted {
  Scenario,      // `topsim run`, `topo show --scenario`
  Plan,          // `topsim plan`
  QualitySuite,  // `topsim check`
  Cluster,       // --cluster: kubectl's node list or a cluster file
  Workload,      // --workload: manifests, a job list, sacct output or a Helios log
  Results,       // `topsim report`, `topsim explain`: a run's results folder
  KubeNodeList,  // `topsim import nodes`: kubectl's node list only
  JobRecords,    // `topsim import jobs`: manifests, sacct output or a Helios log (not a job list)
};

// The error line for `path` (a file or a folder): "<path>: <what it is>, not <what was wanted>
// (...): <how to use it>", or nothing when it is none of the files above or one `wanted` takes.
[[nodiscard]] std::optional<std::string> other_input(const std::string& path, Wanted wanted);

}  // namespace topsim
