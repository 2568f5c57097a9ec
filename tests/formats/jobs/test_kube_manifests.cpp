// Kubernetes workload manifests read from text (parse_kube_manifests); the CLI tests read the
// same through files and folders.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "formats/jobs/imported_jobs.h"
#include "formats/jobs/kube_manifests.h"

using namespace topsim;

namespace {

Expected<ImportedJobs> manifests(const std::string& yaml) { return parse_kube_manifests({{"jobs.yaml", yaml}}); }

// The manifests of `yaml` with its `placeholder` replaced by `value`.
Expected<ImportedJobs> manifests_with(std::string yaml, const std::string& placeholder, const std::string& value) {
  yaml.replace(yaml.find(placeholder), placeholder.size(), value);
  return manifests(yaml);
}

nlohmann::json entries(const ImportedJobs& imported) { return nlohmann::json::parse(render_job_list(imported)).at("jobs"); }

const char* kPyTorchJob = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: llm
  annotations: {topsim/model: gpt2-large, topsim/duration-s: "600"}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
    Worker:
      replicas: 1
      template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)";

}  // namespace

TEST_CASE("formats::kube_manifests: a training operator job is one gang", "[formats][kubernetes]") {
  SECTION("Master and Worker replicas are the pods, annotations say the model and the run time") {
    const auto r = manifests(kPyTorchJob);
    REQUIRE(r.ok());
    const auto jobs = entries(*r);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].at("name") == "llm");
    CHECK(jobs[0].at("model") == "gpt2-large");
    CHECK(jobs[0].at("duration_s") == 600);
    CHECK(imported_workload(*r, "").value().jobs.front().total_gpus() == 16);
  }
  SECTION("objects without GPU pods are listed as skipped") {
    const auto r = manifests(std::string(kPyTorchJob) + "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc}\n");
    REQUIRE(r.ok());
    CHECK(r->size() == 1);
    REQUIRE(r->skipped.size() == 1);
    CHECK_THAT(r->skipped.front(), Catch::Contains("svc"));
  }
  SECTION("defaults assumed are noted once") {
    const auto r = manifests(R"(apiVersion: batch/v1
kind: Job
metadata: {name: plain}
spec:
  parallelism: 2
  template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}
)");
    REQUIRE(r.ok());
    CHECK_FALSE(r->notes.empty());
    CHECK(entries(*r).at(0).at("workers") == 2);
  }
}

TEST_CASE("formats::kube_manifests: bad manifests are one line naming the file and document", "[formats][kubernetes]") {
  SECTION("a replica count that is not a number") {
    std::string bad = kPyTorchJob;
    bad.replace(bad.rfind("replicas: 1"), 11, "replicas: lots");  // the Worker
    const auto r = manifests(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message ==
          "jobs.yaml document 1: spec.pytorchReplicaSpecs.Worker.replicas: must be an integer in 0..65535, got 'lots'");
    CHECK(r.error().message.find('\n') == std::string::npos);
  }
  SECTION("YAML that does not parse") {
    const auto r = manifests("apiVersion: v1\nkind: [Pod\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("jobs.yaml"));
  }
}

TEST_CASE("formats::kube_manifests: duplicate keys, deep nesting and alias bombs are refused", "[formats][kubernetes]") {
  const std::string pod = "kind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    resources:\n      limits:\n";
  SECTION("a key twice in one mapping names the line of the second") {
    const auto r = manifests(pod + "        nvidia.com/gpu: 1\n        nvidia.com/gpu: 8\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "jobs.yaml:10: duplicate key 'nvidia.com/gpu' (a key may appear once per mapping)");
  }
  SECTION("nested past the one limit") {
    const auto r = manifests("kind: Pod\nspec: " + std::string(100, '[') + std::string(100, ']') + "\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("jobs.yaml:2: nested more than 64 levels deep"));
  }
  SECTION("aliases that expand a document a billion-fold") {
    std::string bomb = "kind: Pod\nmetadata:\n  name: p\n  annotations:\n    a: &a [x, x, x, x, x, x, x, x, x]\n";
    std::string previous = "a";
    for (const char* name : {"b", "c", "d", "e", "f", "g", "h", "i", "j"}) {
      bomb += std::string("    ") + name + ": &" + name + " [";
      for (int k = 0; k < 9; ++k) bomb += (k ? ", *" : "*") + previous;
      bomb += "]\n";
      previous = name;
    }
    const auto r = manifests(bomb);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("(an alias bomb?)"));
  }
  SECTION("a few aliases, as real manifests use them, are fine") {
    const auto r = manifests(pod + "        nvidia.com/gpu: &n 2\n  nodeSelector: {gpus: *n}\n");
    CHECK(r.ok());
  }
}

TEST_CASE("formats::kube_manifests: fabric-tier asks are carried into the job's annotations", "[formats][kubernetes]") {
  SECTION("Kueue TAS pod-set annotations of the GPU pod template, slices included") {
    const auto r = manifests(R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train}
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 16
        completions: 16
        template:
          metadata:
            annotations:
              kueue.x-k8s.io/podset-preferred-topology: cloud.provider.com/topology-block
              kueue.x-k8s.io/podset-slice-required-topology: cloud.provider.com/topology-rack
              kueue.x-k8s.io/podset-slice-size: "16"
              example.com/other: not carried
          spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}
)");
    REQUIRE(r.ok());
    const auto annotations = entries(*r).at(0).at("annotations");
    CHECK(annotations.size() == 3);
    CHECK(annotations.at("kueue.x-k8s.io/podset-preferred-topology") == "cloud.provider.com/topology-block");
    CHECK(annotations.at("kueue.x-k8s.io/podset-slice-required-topology") == "cloud.provider.com/topology-rack");
    CHECK(annotations.at("kueue.x-k8s.io/podset-slice-size") == "16");
    CHECK(imported_workload(*r, "").value().jobs.front().workers == 32);
  }
  SECTION("Kueue's multi-layer slices, a JSON block scalar, as written") {
    const auto r = manifests(R"(apiVersion: batch/v1
kind: Job
metadata: {name: layered}
spec:
  parallelism: 64
  completions: 64
  template:
    metadata:
      annotations:
        kueue.x-k8s.io/podset-slice-required-topology-constraints: |
          [
            {"topology": "cloud.provider.com/topology-block", "size": 32},
            {"topology": "cloud.provider.com/topology-rack", "size": 16}
          ]
    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}
)");
    REQUIRE(r.ok());
    const auto annotations = entries(*r).at(0).at("annotations");
    CHECK(annotations.size() == 1);
    CHECK(annotations.at("kueue.x-k8s.io/podset-slice-required-topology-constraints") ==
          "[\n  {\"topology\": \"cloud.provider.com/topology-block\", \"size\": 32},\n"
          "  {\"topology\": \"cloud.provider.com/topology-rack\", \"size\": 16}\n]\n");
  }
  SECTION("the topology-aware scheduler's gpu.topology annotations, checked as the job list checks them") {
    const std::string job = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: aware}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        metadata:
          annotations: {gpu.topology/policy: nvlink, gpu.topology/max-nodes: "2", example.com/other: x}
        spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}
)";
    const auto r = manifests(job);
    REQUIRE(r.ok());
    const auto annotations = entries(*r).at(0).at("annotations");
    CHECK(annotations.size() == 2);
    CHECK(annotations.at("gpu.topology/policy") == "nvlink");
    CHECK(annotations.at("gpu.topology/max-nodes") == "2");
    std::string bad = job;
    bad.replace(bad.find("policy: nvlink"), 14, "policy: fastest");
    const auto refused = manifests(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message ==
          "jobs.yaml document 1: spec.pytorchReplicaSpecs.Worker.template.metadata.annotations.gpu.topology/policy: "
          "'fastest' is not one of single-numa, nvlink, best-effort, spread");
  }
  SECTION("GPU templates asking differently: the first one's, noted") {
    const auto r = manifests(R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: two}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}
        spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}
    Worker:
      replicas: 3
      template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)");
    REQUIRE(r.ok());
    CHECK(entries(*r).at(0).at("annotations").at("kueue.x-k8s.io/podset-required-topology") == "rack");
    CHECK(std::any_of(r->notes.begin(), r->notes.end(), [](const std::string& note) {
      return note ==
             "two: spec.pytorchReplicaSpecs.Worker.template asks other placement (Kueue TAS, gpu.topology) than "
             "spec.pytorchReplicaSpecs.Master.template; topsim places the job's GPU pods as one pod set, by "
             "spec.pytorchReplicaSpecs.Master.template's";
    }));
  }
  SECTION("KAI's topology constraint from the workload's own annotations") {
    const auto r = manifests(R"(apiVersion: batch/v1
kind: Job
metadata:
  name: distributed-training
  annotations:
    kai.scheduler/topology: cluster-topology
    kai.scheduler/topology-required-placement: topology.kubernetes.io/zone
    kai.scheduler/topology-preferred-placement: topology.kubernetes.io/rack
spec:
  parallelism: 3
  completions: 3
  template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}
)");
    REQUIRE(r.ok());
    const auto annotations = entries(*r).at(0).at("annotations");  // a copy: entries() returns a temporary
    CHECK(annotations.size() == 3);
    CHECK(annotations.at("kai.scheduler/topology") == "cluster-topology");
    CHECK(annotations.at("kai.scheduler/topology-required-placement") == "topology.kubernetes.io/zone");
    CHECK(annotations.at("kai.scheduler/topology-preferred-placement") == "topology.kubernetes.io/rack");
  }
  SECTION("a Volcano Job's spec.networkTopology") {
    const auto r = manifests(R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vj}
spec:
  minAvailable: 2
  networkTopology: {mode: hard, highestTierAllowed: 1}
  tasks:
  - replicas: 2
    name: worker
    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)");
    REQUIRE(r.ok());
    const auto annotations = entries(*r).at(0).at("annotations");
    CHECK(annotations.at("volcano.sh/network-topology-mode") == "hard");
    CHECK(annotations.at("volcano.sh/network-topology-highest-tier-allowed") == "1");
  }
  SECTION("a Volcano Job task's partitionPolicy") {
    const char* job = R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: parts}
spec:
  networkTopology: {mode: hard, highestTierAllowed: 2}
  tasks:
  - name: t0
    replicas: 8
    partitionPolicy:
      totalPartitions: TOTAL
      partitionSize: 4
      minPartitions: 1
      networkTopology: {mode: hard, highestTierAllowed: 1}
    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)";
    auto with_total = [&](const std::string& total) { return manifests_with(job, "TOTAL", total); };
    const auto r = with_total("2");
    REQUIRE(r.ok());
    const auto annotations = entries(*r).at(0).at("annotations");
    CHECK(annotations.at("volcano.sh/network-topology-highest-tier-allowed") == "2");
    CHECK(annotations.at("volcano.sh/partition-network-topology-mode") == "hard");
    CHECK(annotations.at("volcano.sh/partition-size") == "4");
    CHECK(annotations.at("volcano.sh/partition-highest-tier-allowed") == "1");
    CHECK(std::count(r->notes.begin(), r->notes.end(),
                     "parts: spec.tasks[0].partitionPolicy.minPartitions is not modelled: the job starts with all its "
                     "partitions") == 1);
    const auto bad = with_total("3");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().message,
               Catch::Contains("spec.tasks[0].partitionPolicy: totalPartitions 3 x partitionSize 4 must be the task's 8 "
                               "replicas (Volcano's admission)"));
  }
  SECTION("a Volcano Job's tier by name, its modes left to the CRD's default (hard)") {
    const char* job = R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: named}
spec:
  networkTopology: TOPOLOGY
  tasks:
  - name: t0
    replicas: 4
    partitionPolicy: {totalPartitions: 2, partitionSize: 2, networkTopology: {highestTierAllowed: 1}}
    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)";
    auto with = [&](const std::string& topology) { return manifests_with(job, "TOPOLOGY", topology); };
    const auto r = with("{highestTierName: rack}");
    REQUIRE(r.ok());
    const auto annotations = entries(*r).at(0).at("annotations");
    CHECK(annotations.at("volcano.sh/network-topology-mode") == "hard");
    CHECK(annotations.at("volcano.sh/network-topology-highest-tier-name") == "rack");
    CHECK_FALSE(annotations.contains("volcano.sh/network-topology-highest-tier-allowed"));
    CHECK(annotations.at("volcano.sh/partition-network-topology-mode") == "hard");
    CHECK(annotations.at("volcano.sh/partition-highest-tier-allowed") == "1");
    const auto tierless = [](const std::string& note) { return note.find("without highestTierAllowed") != std::string::npos; };
    CHECK(std::none_of(r->notes.begin(), r->notes.end(), tierless));
    // Hard without a tier: Volcano's scheduler holds the job to none, and the import says so.
    const auto bare = with("{mode: hard}");
    REQUIRE(bare.ok());
    CHECK(std::count(bare->notes.begin(), bare->notes.end(),
                     "named: spec.networkTopology is hard without highestTierAllowed or highestTierName: Volcano's "
                     "scheduler holds it to no tier") == 1);
    CHECK(std::count_if(bare->notes.begin(), bare->notes.end(), tierless) == 1);
    const auto both = with("{highestTierAllowed: 1, highestTierName: rack}");
    REQUIRE_FALSE(both.ok());
    CHECK_THAT(both.error().message,
               Catch::Contains("spec.networkTopology: highestTierAllowed and highestTierName may not both be set "
                               "(Volcano's admission)"));
    const auto scalar = with("hard");
    REQUIRE_FALSE(scalar.ok());
    CHECK_THAT(scalar.error().message,
               Catch::Contains("spec.networkTopology: must be a map {mode, highestTierAllowed, highestTierName}"));
  }
  SECTION("no asks: no annotations") {
    const auto r = manifests(kPyTorchJob);
    REQUIRE(r.ok());
    CHECK_FALSE(entries(*r).at(0).contains("annotations"));
  }
}

TEST_CASE("formats::kube_manifests: a nvidia.com/gpu.product node selector or required affinity selects GPU models",
          "[formats][kubernetes]") {
  const std::string job = R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: 2
  template:
    spec:
      SELECTOR
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
)";
  const auto selected = [&](const std::string& selector) {
    const auto r = manifests_with(job, "SELECTOR", selector);
    REQUIRE(r.ok());
    REQUIRE(r->size() == 1);
    const auto entry = entries(*r)[0];
    return entry.contains("gpu_models") ? entry.at("gpu_models").dump() : std::string("any");
  };
  const std::string affinity =
      "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [TERMS]}}}";
  const auto with_terms = [&](const std::string& terms) {
    std::string a = affinity;
    return a.replace(a.find("TERMS"), 5, terms);
  };
  SECTION("a node selector names one product; In lists several, in catalog order") {
    CHECK(selected("nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}") == R"(["h100"])");
    CHECK(selected(with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H200, "
                              "NVIDIA-A100-SXM4-80GB]}]}")) == R"(["a100-80g","h200"])");
    // Other labels leave the GPU model free.
    CHECK(selected("nodeSelector: {cloud.google.com/gke-nodepool: pool-a}") == "any");
  }
  SECTION("terms are ORed, a term's expressions ANDed, and the selector intersects the affinity") {
    CHECK(
        selected(with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3]}]}, "
                            "{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H200]}]}")) ==
        R"(["h100","h200"])");
    CHECK(selected(with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3, "
                              "NVIDIA-H200]}, {key: nvidia.com/gpu.product, operator: NotIn, values: [NVIDIA-H200]}]}")) ==
          R"(["h100"])");
    // A term that does not name the label lets any model through the OR.
    CHECK(selected(with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H200]}]}, "
                              "{matchExpressions: [{key: zone, operator: In, values: [a]}]}")) == "any");
    CHECK(selected("nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n      " +
                   with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3, "
                              "NVIDIA-H200]}]}")) == R"(["h100"])");
  }
  SECTION("NotIn keeps every other catalog model") {
    const std::string text = selected(
        with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: NotIn, values: [Tesla-V100-SXM2-16GB]}]}"));
    CHECK(text.find("\"h100\"") != std::string::npos);
    CHECK(text.find("\"v100\"") == std::string::npos);
    CHECK(text.find("\"v100-32g\"") != std::string::npos);
  }
  SECTION("an unknown product beside known ones is noted; alone it fails the document") {
    const auto r = manifests_with(job, "SELECTOR",
                                  with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: "
                                             "[NVIDIA-H100-80GB-HBM3, NVIDIA-X999]}]}"));
    REQUIRE(r.ok());
    CHECK(entries(*r)[0].at("gpu_models").dump() == R"(["h100"])");
    CHECK(std::any_of(r->notes.begin(), r->notes.end(), [](const std::string& n) {
      return n.find("NVIDIA-X999 name no catalog GPU: the job runs on the others it names") != std::string::npos;
    }));
    const auto bad = manifests_with(job, "SELECTOR", "nodeSelector: {nvidia.com/gpu.product: NVIDIA-X999}");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().message, Catch::StartsWith("jobs.yaml document 1: spec.template.spec.nodeSelector.nvidia.com/"
                                                      "gpu.product: 'NVIDIA-X999' names no catalog GPU ("));
    const auto op = manifests_with(job, "SELECTOR",
                                   with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: Gt, values: [1]}]}"));
    REQUIRE_FALSE(op.ok());
    CHECK_THAT(op.error().message,
               Catch::Contains("matchExpressions[0].operator: 'Gt' is not In, NotIn, Exists or DoesNotExist"));
  }
  SECTION("a selection that leaves no model skips the job, saying why") {
    const auto r = manifests_with(job, "SELECTOR",
                                  "nodeSelector: {nvidia.com/gpu.product: Tesla-T4}\n      " +
                                      with_terms("{matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: "
                                                 "[NVIDIA-H100-80GB-HBM3]}]}"));
    REQUIRE_FALSE(r.ok());  // nothing else to read
    CHECK_THAT(r.error().message, Catch::Contains("spec.template.spec selects no GPU model"));
  }
  SECTION("templates of one gang that select different models are skipped (one that selects none takes the other's)") {
    std::string two = kPyTorchJob;
    two.replace(two.find("template: {spec: {"), 18, "template: {spec: {nodeSelector: {nvidia.com/gpu.product: Tesla-T4}, ");
    two.replace(two.rfind("template: {spec: {"), 18, "template: {spec: {nodeSelector: {nvidia.com/gpu.product: NVIDIA-H200}, ");
    const auto r = manifests(two);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(
        r.error().message,
        Catch::Contains(
            "its GPU pods select GPU models no single model satisfies (spec.pytorchReplicaSpecs.Master."
            "template.spec: t4; spec.pytorchReplicaSpecs.Worker.template.spec: h200): topsim holds a gang to one set of models"));
  }
}
