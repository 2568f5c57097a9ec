// Which of the files topsim reads a file is, from its content (not its name): for a command that
// was handed the wrong one, to say what it holds and where it goes (scenario/other_inputs.h).
// A recogniser, not a reader: the file may still be malformed; the reader of its kind says so.
#pragma once

#include <optional>
#include <string>

namespace topsim {

enum class FileKind {
  KubeManifests,  // Kubernetes objects other than nodes and queues (Pod, Job, PyTorchJob, ...)
  KubeNodes,      // `kubectl get nodes -o json|yaml`, or a stream of Node objects
  QueueObjects,   // Kueue ClusterQueue / LocalQueue / ResourceFlavor / Cohort / ..., KAI Queue
  JobList,        // {"kind": "jobs", "jobs": [...]}: `topsim import jobs`' output
  PhillyTrace,    // the Philly CSV (timestamp,duration,num_gpus,gpu_time,cluster)
  AlibabaPods,    // an Alibaba 2023 pod list (name,cpu_milli,...,gpu_milli,...)
  AlibabaNodes,   // an Alibaba 2023 node list (sn,cpu_milli,memory_mib,gpu,model)
  HeliosLog,      // a Helios cluster_log.csv (job_id,...,gpu_num,...)
  Sacct,          // Slurm sacct output (parsable or the fixed-width table)
  FailureTrace,   // node,start_s,duration_s[,cause]
  NodeModel,      // topsim's node JSON (gpus, numa_nodes, bridges, nics)
  TopoMatrix,     // `nvidia-smi topo -m` text
  NcclTopology,   // NCCL topology XML (<system>)
  Cluster,        // a cluster file: {"nodes": [...], "network": ...} (`topsim import nodes`' output)
  Scenario,       // a scenario (cluster and workload, none of a plan's own keys)
  Plan,           // a `topsim plan` file (node_types, slo, growth, quota_search, ...)
  QualitySuite,   // a `topsim check` suite (a list of scenarios)
  Results,        // a run's results.json
};

struct FileKindFound {
  FileKind kind;
  // What it holds in a word or two, when that helps the user: the object kinds of manifests
  // ("Job, PyTorchJob"); else empty.
  std::string detail;
};

// The kind of the regular file at `path`, or nothing when it is none of the above or cannot be
// read.
[[nodiscard]] std::optional<FileKindFound> file_kind(const std::string& path);

}  // namespace topsim
