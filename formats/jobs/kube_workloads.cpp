#include "formats/jobs/kube_workloads.h"

#include <functional>
#include <map>

#include "formats/jobs/kube_yaml.h"

namespace topsim {
namespace {

// What a reader of one kind needs besides the document.
struct KindReader {
  const YAML::Node& doc;
  std::vector<std::string>& notes;
  WorkloadPods out;

  // `replicas` pods of the pod template `pod_template` ({metadata, spec}) read at `field`.
  void add(std::string role, int64_t replicas, const YAML::Node& pod_template, const std::string& field) {
    const YAML::Node spec = child(pod_template, "spec");
    PodGpuAsk ask = read_pod_gpu_ask(spec, child(child(pod_template, "metadata"), "annotations"),
                                     child(child(doc, "metadata"), "annotations"), field + ".spec", notes);
    out.groups.push_back({std::move(role), replicas, std::move(ask),
                          text_of(child(spec, "priorityClassName"), field + ".spec.priorityClassName"),
                          child(child(pod_template, "metadata"), "labels"), child(child(pod_template, "metadata"), "annotations"),
                          field, spec, field + ".spec"});
  }
};

YAML::Node spec_of(const YAML::Node& doc) { return child(doc, "spec"); }

// The replica specs of a Kubeflow training operator job: {"Master": {replicas, template}, ...}.
void replica_specs(KindReader& r, const char* key) {
  const std::string field = std::string("spec.") + key;
  const YAML::Node specs = child(spec_of(r.doc), key);
  if (!specs || !specs.IsMap()) throw ManifestFault{field + ": missing (a map of replica types)"};
  for (const auto& entry : specs) {
    const std::string role = entry.first.as<std::string>();
    const std::string at = field + "." + role;
    r.add(role, count_of(child(entry.second, "replicas"), at + ".replicas", 1), child(entry.second, "template"),
          at + ".template");
  }
}

void read_pod(KindReader& r) {
  const YAML::Node spec = spec_of(r.doc);
  PodGpuAsk ask = read_pod_gpu_ask(spec, child(child(r.doc, "metadata"), "annotations"), YAML::Node(), "spec", r.notes);
  r.out.groups.push_back({"", 1, std::move(ask), text_of(child(spec, "priorityClassName"), "spec.priorityClassName"),
                          YAML::Node(), YAML::Node(), "spec", spec, "spec"});
}

void read_batch_job(KindReader& r) {
  const YAML::Node spec = spec_of(r.doc);
  r.add("", count_of(child(spec, "parallelism"), "spec.parallelism", 1), child(spec, "template"), "spec.template");
}

void read_replicated(KindReader& r) {
  const YAML::Node spec = spec_of(r.doc);
  r.add("", count_of(child(spec, "replicas"), "spec.replicas", 1), child(spec, "template"), "spec.template");
  r.out.replicated = true;
}

void read_volcano_job(KindReader& r) {
  const YAML::Node tasks = child(spec_of(r.doc), "tasks");
  if (!tasks || !tasks.IsSequence()) throw ManifestFault{"spec.tasks: must be a list"};
  for (size_t t = 0; t < tasks.size(); ++t) {
    const std::string at = "spec.tasks[" + std::to_string(t) + "]";
    r.add(text_of(child(tasks[t], "name"), at + ".name"), count_of(child(tasks[t], "replicas"), at + ".replicas", 1),
          child(tasks[t], "template"), at + ".template");
  }
}

// JobSet (jobset.x-k8s.io): replicatedJobs[i] runs `replicas` (default 1) Jobs of its template,
// each of `parallelism` (default 1) pods; all of them one gang.
void read_jobset(KindReader& r) {
  const YAML::Node jobs = child(spec_of(r.doc), "replicatedJobs");
  if (!jobs || !jobs.IsSequence()) throw ManifestFault{"spec.replicatedJobs: must be a list"};
  for (size_t j = 0; j < jobs.size(); ++j) {
    const std::string at = "spec.replicatedJobs[" + std::to_string(j) + "]";
    const YAML::Node job_spec = child(child(jobs[j], "template"), "spec");
    const int64_t replicas = count_of(child(jobs[j], "replicas"), at + ".replicas", 1);
    const int64_t parallelism = count_of(child(job_spec, "parallelism"), at + ".template.spec.parallelism", 1);
    r.add(text_of(child(jobs[j], "name"), at + ".name"), replicas * parallelism, child(job_spec, "template"),
          at + ".template.spec.template");
  }
}

// LeaderWorkerSet (leaderworkerset.x-k8s.io/v1): `replicas` (default 1) groups, each a gang of
// one leader (leaderTemplate, else workerTemplate) and size - 1 workers (size default 1).
void read_leader_worker_set(KindReader& r) {
  const YAML::Node spec = spec_of(r.doc);
  const YAML::Node lwt = child(spec, "leaderWorkerTemplate");
  if (!lwt || !lwt.IsMap()) throw ManifestFault{"spec.leaderWorkerTemplate: missing"};
  const int64_t size = count_of(child(lwt, "size"), "spec.leaderWorkerTemplate.size", 1);
  if (size < 1) throw ManifestFault{"spec.leaderWorkerTemplate.size: must be at least 1, got 0"};
  const bool own_leader = static_cast<bool>(child(lwt, "leaderTemplate"));
  r.add("leader", 1, own_leader ? child(lwt, "leaderTemplate") : child(lwt, "workerTemplate"),
        own_leader ? "spec.leaderWorkerTemplate.leaderTemplate" : "spec.leaderWorkerTemplate.workerTemplate");
  if (size > 1) r.add("worker", size - 1, child(lwt, "workerTemplate"), "spec.leaderWorkerTemplate.workerTemplate");
  r.out.copies = count_of(child(spec, "replicas"), "spec.replicas", 1);
}

// KubeRay's cluster spec: the head pod and each worker group's replicas (KubeRay's default 0,
// ray-operator/apis/ray/v1/raycluster_types.go) x numOfHosts (default 1).
void read_ray_cluster_spec(KindReader& r, const YAML::Node& cluster, const std::string& field) {
  if (!cluster || !cluster.IsMap()) throw ManifestFault{field + ": missing"};
  r.add("head", 1, child(child(cluster, "headGroupSpec"), "template"), field + ".headGroupSpec.template");
  const YAML::Node groups = child(cluster, "workerGroupSpecs");
  if (groups && !groups.IsSequence()) throw ManifestFault{field + ".workerGroupSpecs: must be a list"};
  for (size_t g = 0; groups && g < groups.size(); ++g) {
    const std::string at = field + ".workerGroupSpecs[" + std::to_string(g) + "]";
    const int64_t hosts = count_of(child(groups[g], "numOfHosts"), at + ".numOfHosts", 1);
    r.add(text_of(child(groups[g], "groupName"), at + ".groupName"),
          count_of(child(groups[g], "replicas"), at + ".replicas", 0) * hosts, child(groups[g], "template"), at + ".template");
  }
}

// Kubeflow Trainer's TrainJob: spec.trainer.numNodes pods of spec.trainer.resourcesPerNode; either
// may be left to the runtime it references (spec.runtimeRef), which the file does not hold.
void read_train_job(KindReader& r) {
  const YAML::Node trainer = child(spec_of(r.doc), "trainer");
  const std::string runtime = text_of(child(child(spec_of(r.doc), "runtimeRef"), "name"), "spec.runtimeRef.name");
  const YAML::Node resources = child(trainer, "resourcesPerNode");
  if (!child(trainer, "numNodes") || !resources) {
    r.out.not_read = std::string("its ") +
                     (!child(trainer, "numNodes") ? "spec.trainer.numNodes" : "spec.trainer.resourcesPerNode") +
                     " comes from the training runtime '" + runtime + "', which is not in the manifests: give it in the TrainJob";
    return;
  }
  YAML::Node pod;
  pod["spec"]["containers"].push_back(YAML::Node());
  pod["spec"]["containers"][0]["resources"] = resources;
  r.add("node", count_of(child(trainer, "numNodes"), "spec.trainer.numNodes", 1), pod, "spec.trainer.resourcesPerNode");
}

struct KindEntry {
  std::vector<std::string> api_versions;  // read ("group/version"; "" = the core group v1, "group/*" = any version)
  std::function<void(KindReader&)> read;
  const char* versions_text;  // the versions read, for the message
};

// Kubeflow's v1alpha1 TFJob, PyTorchJob and MPIJob listed replicas differently (spec.replicaSpecs,
// spec.replicas with spec.gpus); their replica-spec maps exist from v1alpha2 on.
const std::vector<std::string> kKubeflowVersions = {"kubeflow.org/v1alpha2", "kubeflow.org/v1beta1", "kubeflow.org/v1beta2",
                                                    "kubeflow.org/v1", "kubeflow.org/v2beta1"};

const std::map<std::string, KindEntry>& kinds() {
  static const std::map<std::string, KindEntry> table = {
      {"Pod", {{"v1"}, read_pod, "v1"}},
      {"Deployment", {{"apps/v1", "apps/v1beta1", "apps/v1beta2", "extensions/v1beta1"}, read_replicated, "apps/v1"}},
      {"StatefulSet", {{"apps/v1", "apps/v1beta1", "apps/v1beta2"}, read_replicated, "apps/v1"}},
      {"ReplicaSet", {{"apps/v1", "apps/v1beta2", "extensions/v1beta1"}, read_replicated, "apps/v1"}},
      {"PyTorchJob", {kKubeflowVersions, [](KindReader& r) { replica_specs(r, "pytorchReplicaSpecs"); }, "kubeflow.org/v1"}},
      {"TFJob", {kKubeflowVersions, [](KindReader& r) { replica_specs(r, "tfReplicaSpecs"); }, "kubeflow.org/v1"}},
      {"MPIJob", {kKubeflowVersions, [](KindReader& r) { replica_specs(r, "mpiReplicaSpecs"); }, "kubeflow.org/v1, v2beta1"}},
      {"PaddleJob", {kKubeflowVersions, [](KindReader& r) { replica_specs(r, "paddleReplicaSpecs"); }, "kubeflow.org/v1"}},
      {"MXJob", {kKubeflowVersions, [](KindReader& r) { replica_specs(r, "mxReplicaSpecs"); }, "kubeflow.org/v1"}},
      {"XGBoostJob", {kKubeflowVersions, [](KindReader& r) { replica_specs(r, "xgbReplicaSpecs"); }, "kubeflow.org/v1"}},
      {"JAXJob", {kKubeflowVersions, [](KindReader& r) { replica_specs(r, "jaxReplicaSpecs"); }, "kubeflow.org/v1"}},
      {"TrainJob", {{"trainer.kubeflow.org/*"}, read_train_job, "trainer.kubeflow.org"}},
      {"JobSet", {{"jobset.x-k8s.io/*"}, read_jobset, "jobset.x-k8s.io"}},
      {"LeaderWorkerSet", {{"leaderworkerset.x-k8s.io/*"}, read_leader_worker_set, "leaderworkerset.x-k8s.io/v1"}},
      {"RayCluster", {{"ray.io/*"}, [](KindReader& r) { read_ray_cluster_spec(r, spec_of(r.doc), "spec"); }, "ray.io/v1"}},
      {"RayJob",
       {{"ray.io/*"},
        [](KindReader& r) { read_ray_cluster_spec(r, child(spec_of(r.doc), "rayClusterSpec"), "spec.rayClusterSpec"); },
        "ray.io/v1"}},
      {"RayService",
       {{"ray.io/*"},
        [](KindReader& r) { read_ray_cluster_spec(r, child(spec_of(r.doc), "rayClusterConfig"), "spec.rayClusterConfig"); },
        "ray.io/v1"}},
  };
  return table;
}

// Kinds that run pods but are no job topsim replays, with the reason.
const std::map<std::string, std::string>& not_jobs() {
  static const std::map<std::string, std::string> table = {
      {"DaemonSet", "a DaemonSet runs a pod on every node, not a job"},
      {"CronJob", "a CronJob makes Jobs on a schedule: give the Job it makes"},
      {"AppWrapper", "the components of an AppWrapper are not read: give them as manifests of their own"},
  };
  return table;
}

// An object without apiVersion is read as the kind's current layout (kubectl would refuse it;
// hand-written job lists often leave it out).
bool version_read(const KindEntry& entry, const std::string& api_version) {
  if (api_version.empty()) return true;
  for (const std::string& v : entry.api_versions) {
    if (v == api_version) return true;
    if (v.size() > 2 && v.substr(v.size() - 2) == "/*" && api_version.rfind(v.substr(0, v.size() - 1), 0) == 0) return true;
  }
  return false;
}

}  // namespace

WorkloadPods workload_pods(const std::string& kind, const std::string& api_version, const YAML::Node& doc,
                           std::vector<std::string>& notes) {
  if (kind == "Job" && api_version.rfind("batch.volcano.sh/", 0) == 0) {
    KindReader r{doc, notes, {}};
    read_volcano_job(r);
    return std::move(r.out);
  }
  if (kind == "Job") {
    KindReader r{doc, notes, {}};
    read_batch_job(r);
    return std::move(r.out);
  }
  const auto entry = kinds().find(kind);
  if (entry == kinds().end()) {
    const auto reason = not_jobs().find(kind);
    WorkloadPods out;
    out.not_read = reason != not_jobs().end() ? reason->second : "not a workload topsim reads";
    return out;
  }
  if (!version_read(entry->second, api_version)) {
    WorkloadPods out;
    out.not_read = "apiVersion " + (api_version.empty() ? std::string("(none)") : api_version) + " of " + kind +
                   " is not read (topsim reads " + entry->second.versions_text + ")";
    return out;
  }
  KindReader r{doc, notes, {}};
  entry->second.read(r);
  return std::move(r.out);
}

}  // namespace topsim
