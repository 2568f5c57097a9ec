// Kubernetes workload manifests as a topsim job list (docs/importers.md): Pod, batch Job,
// Deployment / StatefulSet / ReplicaSet, Kubeflow PyTorchJob / TFJob / MPIJob and Volcano Job,
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
// and the document: "jobs.yaml: document 2 (PyTorchJob bert): spec.pytorchReplicaSpecs.Worker.replicas: ...".
[[nodiscard]] Expected<ImportedJobs> load_kube_manifests(const std::vector<std::string>& paths);
// The same from (file name, text) pairs.
[[nodiscard]] Expected<ImportedJobs> parse_kube_manifests(const std::vector<std::pair<std::string, std::string>>& files);

// Annotations (or labels) a manifest can carry for what Kubernetes does not say:
inline constexpr const char* kModelAnnotation = "topsim/model";          // catalog model; default resnet50
inline constexpr const char* kFrameworkAnnotation = "topsim/framework";  // tensorflow | pytorch
inline constexpr const char* kDurationAnnotation = "topsim/duration-s";  // run time under an ideal placement; default 3600
inline constexpr const char* kIterationsAnnotation = "topsim/iterations";

}  // namespace topsim
