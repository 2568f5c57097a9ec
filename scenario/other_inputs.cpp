#include "scenario/other_inputs.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "formats/support/file_kind.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;

// The most files of a folder looked at: enough to tell a folder of manifests or queue objects.
constexpr size_t kMaxFolderFiles = 64;

struct Use {
  std::string what;
  std::string how;
};

Use use_of(const FileKindFound& found, const std::string& p, Wanted wanted) {
  const std::string q = "\"" + p + "\"";
  const std::string detail = found.detail.empty() ? "" : " (" + found.detail + ")";
  switch (found.kind) {
    case FileKind::KubeManifests:
      return {"Kubernetes manifests" + detail,
              "run them with `topsim run --cluster NODES --workload " + p +
                  "` (NODES: `kubectl get nodes -o json` output or a cluster file), or make a job list of them with "
                  "`topsim import jobs " +
                  p + " -o jobs.json`"};
    case FileKind::KubeNodes:
      return {"a list of Kubernetes nodes", "run on them with `topsim run --cluster " + p +
                                                " --workload JOBS`; `topsim import nodes " + p +
                                                " -o cluster.json` shows what topsim reads in them"};
    case FileKind::QueueObjects:
      return {"Kueue / KAI queue objects" + detail,
              "a scenario reads a folder of them as \"tenancy\": {\"queues\": \"FOLDER\"} (docs/tenancy.md); `topsim "
              "import queues " +
                  p + "` shows what topsim reads in them"};
    case FileKind::JobList:
      return {"a job list",
              "a scenario takes it as \"workload\": " + q + ", or run it with `topsim run --cluster NODES --workload " + p + "`"};
    case FileKind::PhillyTrace:
      return {"the Philly trace", "a scenario takes it as \"workload\": {\"kind\": \"philly\", \"path\": " + q +
                                      "} (as scenarios/philly-552-nodes.json)"};
    case FileKind::AlibabaPods:
      return {"an Alibaba 2023 pod list", "a scenario takes it as \"workload\": {\"kind\": \"alibaba\", \"path\": " + q +
                                              "} (jobs on modelled nodes) or {\"kind\": \"alibaba-pods\", \"path\": " + q +
                                              "} (its pods on the trace's node list; docs/workloads.md)"};
    case FileKind::AlibabaNodes:
      return {"an Alibaba 2023 node list",
              "a scenario takes it as \"cluster\": {\"node_list\": " + q + "} (as scenarios/fgd-artifact-default.json)"};
    case FileKind::HeliosLog:
    case FileKind::Sacct:
      return {found.kind == FileKind::Sacct ? "Slurm sacct output" : "a Helios job log",
              "run it with `topsim run --cluster NODES --workload " + p +
                  "`, or make a job list of it with `topsim import jobs " + p + " -o jobs.json`"};
    case FileKind::FailureTrace:
      return {"a failure trace", "a scenario takes it as \"failures\": {\"trace\": " + q + "} (docs/failures.md)"};
    case FileKind::NodeModel:
    case FileKind::TopoMatrix:
    case FileKind::NcclTopology:
      return {found.kind == FileKind::NodeModel    ? "a node model"
              : found.kind == FileKind::TopoMatrix ? "`nvidia-smi topo -m` output"
                                                   : "an NCCL topology file",
              "a scenario's cluster takes it as \"nodes\": [{\"model\": " + q + ", \"count\": N}]; `topsim topo show " + p +
                  "` draws it"};
    case FileKind::Cluster:
      return {"a cluster", "run on it with `topsim run --cluster " + p + " --workload JOBS`, or a scenario's \"cluster\": " + q};
    case FileKind::Scenario:
      return {"a scenario",
              "run it with `topsim run " + p + "`" +
                  (wanted == Wanted::Plan           ? "; a plan is its workload with the node types to size and the SLOs "
                                                      "to meet (\"node_types\", \"slo\")"
                   : wanted == Wanted::QualitySuite ? "; a suite lists it as {\"scenario\": " + q + ", \"metrics\": {...}}"
                   : wanted == Wanted::Results      ? ", then give its results folder (-o, default results/<name>)"
                                                    : "")};
    case FileKind::Plan: return {"a plan", "run it with `topsim plan " + p + "`"};
    case FileKind::QualitySuite: return {"a quality suite", "run it with `topsim check " + p + "`"};
    case FileKind::Results: {
      const std::string dir = fs::path(p).has_parent_path() ? fs::path(p).parent_path().string() : ".";
      return {"a run's results",
              "`topsim report " + dir + "` makes its report again; `topsim explain " + dir + " JOB` tells one job's story"};
    }
  }
  return {};
}

// Whether `wanted` takes a file (or, `folder`, a folder) of `kind`.
bool takes(Wanted wanted, FileKind kind, bool folder) {
  switch (wanted) {
    case Wanted::Scenario: return kind == FileKind::Scenario;
    case Wanted::Plan: return kind == FileKind::Plan;
    case Wanted::QualitySuite: return kind == FileKind::QualitySuite;
    case Wanted::Cluster: return kind == FileKind::Cluster || kind == FileKind::KubeNodes;
    case Wanted::Results: return kind == FileKind::Results && folder;  // its folder, not results.json
    case Wanted::KubeNodeList: return kind == FileKind::KubeNodes;
    case Wanted::Workload:
    case Wanted::JobRecords:
      return kind == FileKind::KubeManifests || kind == FileKind::Sacct || kind == FileKind::HeliosLog ||
             (kind == FileKind::JobList && wanted == Wanted::Workload);
  }
  return false;
}

const char* wanted_name(Wanted wanted) {
  switch (wanted) {
    case Wanted::Scenario: return "a scenario (a JSON file, docs/scenarios.md)";
    case Wanted::Plan: return "a plan (docs/planning.md)";
    case Wanted::QualitySuite: return "a quality suite (docs/ci.md)";
    case Wanted::Cluster: return "a cluster (`kubectl get nodes -o json` output or a cluster file, docs/importers.md)";
    case Wanted::Results: return "a run's results folder (written by `topsim run`, docs/results-format.md)";
    case Wanted::Workload:
      return "a workload (Kubernetes manifests, a job list, sacct output or a Helios log, docs/importers.md)";
    case Wanted::KubeNodeList: return "`kubectl get nodes -o json` output (what `topsim import nodes` reads, docs/importers.md)";
    case Wanted::JobRecords:
      return "what `topsim import jobs` reads (Kubernetes manifests, sacct output or a Helios log, docs/importers.md)";
  }
  return "";
}

// A folder's kind: its results, else what its *.yaml, *.yml and *.json files hold (manifests
// before nodes and queue objects: a folder mixing them is read as manifests).
std::optional<FileKindFound> folder_kind(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(fs::path(path) / "results.json", ec)) return FileKindFound{FileKind::Results, ""};
  std::vector<std::string> files;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if ((ext == ".yaml" || ext == ".yml" || ext == ".json") && it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  std::optional<FileKindFound> kind;
  for (size_t i = 0; i < std::min(files.size(), kMaxFolderFiles); ++i) {
    const std::optional<FileKindFound> found = file_kind(files[i]);
    if (!found) continue;
    if (found->kind == FileKind::KubeManifests) return FileKindFound{FileKind::KubeManifests, ""};
    if (!kind && (found->kind == FileKind::QueueObjects || found->kind == FileKind::KubeNodes))
      kind = FileKindFound{found->kind, ""};
  }
  return kind;
}

}  // namespace

std::optional<std::string> other_input(const std::string& path, Wanted wanted) {
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);
  const std::optional<FileKindFound> found = folder ? folder_kind(path) : file_kind(path);
  if (!found || takes(wanted, found->kind, folder)) return std::nullopt;
  // A results folder is named by its results.json, whose folder the commands take.
  const bool results_folder = folder && found->kind == FileKind::Results;
  const Use use = use_of(*found, results_folder ? (fs::path(path) / "results.json").string() : path, wanted);
  return path + ": " + (folder ? "a folder of " : "") + use.what + ", not " + wanted_name(wanted) + ": " + use.how;
}

}  // namespace topsim
