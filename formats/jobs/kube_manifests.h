// Kubernetes workload manifests as a topsim job list (docs/importers.md): every kind of
// formats/jobs/kube_workloads.h (Pod, batch Job, Deployment / StatefulSet / ReplicaSet, the
// Kubeflow training jobs and TrainJob, Volcano Job, JobSet, LeaderWorkerSet, KubeRay),
// YAML (multi-document) or JSON, `kind: List` included. Each manifest with GPU pods becomes one
// job: its GPU pods are the gang (pods without GPUs, e.g. an MPI launcher, are left out). Its
// queue and priority class come from the Kueue / KAI labels (formats/jobs/tenant_labels.h) and
// the pod templates' spec.priorityClassName.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "formats/jobs/imported_jobs.h"
#include "util/expected.h"

namespace topsim {

// Reads every file (a folder: its *.yaml, *.yml and *.json files, sorted). Errors name the file
// and the document: "jobs.yaml document 2: spec.pytorchReplicaSpecs.Worker.replicas: ...";
// objects not read are listed in `skipped` with why ("jobs.yaml document 3: Service web: not a
// workload topsim reads"), and a read that finds no workload fails with the first reasons.
[[nodiscard]] Expected<ImportedJobs> load_kube_manifests(const std::vector<std::string>& paths,
                                                         const ImportOptions& options = {});
// The same from (file name, text) pairs.
[[nodiscard]] Expected<ImportedJobs> parse_kube_manifests(const std::vector<std::pair<std::string, std::string>>& files,
                                                          const ImportOptions& options = {});

// `message` ("cannot open '<path>': reason") without the path it names: "reason".
std::string without_path(const std::string& message, const std::string& path);

// Annotations (or labels) a manifest can carry for what Kubernetes does not say:
inline constexpr const char* kModelAnnotation = "topsim/model";          // catalog model; default resnet50
inline constexpr const char* kFrameworkAnnotation = "topsim/framework";  // tensorflow | pytorch
inline constexpr const char* kDurationAnnotation = "topsim/duration-s";  // run time under an ideal placement; default 3600
inline constexpr const char* kIterationsAnnotation = "topsim/iterations";

}  // namespace topsim
