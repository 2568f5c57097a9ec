// The pods a Kubernetes workload object makes, per kind (docs/importers.md has the table):
// Pod, batch Job, Deployment / StatefulSet / ReplicaSet, the Kubeflow training operator's
// PyTorchJob, TFJob, MPIJob, PaddleJob, MXJob, XGBoostJob and JAXJob, Kubeflow Trainer's
// TrainJob, Volcano Job, JobSet, LeaderWorkerSet, and KubeRay's RayJob, RayCluster and
// RayService. Internal to formats/jobs.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/jobs/kube_gpu_asks.h"

namespace topsim {

struct PodGroup {
  std::string role;  // "" or the replica type, task, replicated job or worker group
  int64_t replicas = 1;
  PodGpuAsk ask;
  std::string priority_class;  // spec.priorityClassName of its pods, "" when absent
  YAML::Node labels;           // its pod template's metadata.labels (undefined when none)
  YAML::Node annotations;      // its pod template's metadata.annotations (undefined when none or a bare Pod)
  std::string field;           // where its pod template is ("spec.tasks[1].template")
  YAML::Node spec;             // its pods' spec (undefined when none)
  std::string spec_field;      // where that is ("spec.tasks[1].template.spec"; a bare Pod's "spec")
};

struct WorkloadPods {
  std::vector<PodGroup> groups;  // the pods of one gang
  int64_t copies = 1;            // independent copies of that gang (LeaderWorkerSet replicas)
  bool replicated = false;       // Deployment / StatefulSet / ReplicaSet: replicas of one pod template
  std::string not_read;          // non-empty: why topsim does not read the object (the skip reason)
};

// The pods of `doc`, a `kind` object of `api_version`. A kind topsim does not read, or an
// apiVersion whose layout it does not read (kubeflow.org/v1alpha1 TFJob, ...), gives `not_read`.
// Throws ManifestFault naming the field on malformed counts and quantities.
WorkloadPods workload_pods(const std::string& kind, const std::string& api_version, const YAML::Node& doc,
                           std::vector<std::string>& notes);

}  // namespace topsim
