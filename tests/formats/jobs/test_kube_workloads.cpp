// The workload kinds users run, GPU shares as they declare them, and what a read that skips
// objects says (parse_kube_manifests; the real files in tests/real_files are run by the CLI test).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "formats/jobs/imported_jobs.h"
#include "formats/jobs/kube_manifests.h"

using namespace topsim;

namespace {

Expected<ImportedJobs> manifests(const std::string& yaml, const ImportOptions& options = {}) {
  return parse_kube_manifests({{"jobs.yaml", yaml}}, options);
}

nlohmann::json only_job(const Expected<ImportedJobs>& r) {
  INFO((r ? "" : r.error().message));
  REQUIRE(r.ok());
  const auto jobs = nlohmann::json::parse(render_job_list(*r)).at("jobs");
  REQUIRE(jobs.size() == 1);
  return jobs[0];
}

std::string gpu_container(const std::string& resources) {
  return "{containers: [{name: c, resources: {limits: {" + resources + "}}}]}";
}

}  // namespace

TEST_CASE("formats::kube_workloads: kinds users run become their gangs", "[formats][kubernetes]") {
  SECTION("LeaderWorkerSet: replicas groups of one leader and size - 1 workers, each group a job copy") {
    const auto job =
        only_job(manifests("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: lws}\n"
                           "spec:\n  replicas: 3\n  leaderWorkerTemplate:\n    size: 4\n"
                           "    leaderTemplate: {spec: " +
                           gpu_container("cpu: 1") +
                           "}\n"
                           "    workerTemplate: {spec: " +
                           gpu_container("nvidia.com/gpu: 8") + "}\n"));
    CHECK(job.at("workers") == 3);  // the leader asks no GPU: 3 workers x 8
    CHECK(job.at("gpus_per_worker") == 8);
    CHECK(job.at("count") == 3);
  }
  SECTION("LeaderWorkerSet without a leaderTemplate: the leader is a worker") {
    const auto job =
        only_job(manifests("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: lws}\n"
                           "spec:\n  leaderWorkerTemplate:\n    size: 2\n"
                           "    workerTemplate: {spec: " +
                           gpu_container("nvidia.com/gpu: 4") + "}\n"));
    CHECK(job.at("workers") == 2);
    CHECK_FALSE(job.contains("count"));  // replicas default 1
  }
  SECTION("JobSet: replicas x parallelism pods per replicated job, one gang") {
    const auto job =
        only_job(manifests("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\nspec:\n  replicatedJobs:\n"
                           "  - name: workers\n    replicas: 2\n    template: {spec: {parallelism: 4, template: {spec: " +
                           gpu_container("nvidia.com/gpu: 8") +
                           "}}}\n  - name: driver\n    template: {spec: {template: {spec: " + gpu_container("cpu: 1") + "}}}\n"));
    CHECK(job.at("workers") == 8);
  }
  SECTION("RayCluster: the head and each worker group's replicas x numOfHosts; replicas default 0 as in KubeRay") {
    const auto job =
        only_job(manifests("apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc}\nspec:\n"
                           "  headGroupSpec: {template: {spec: " +
                           gpu_container("cpu: 1") +
                           "}}\n"
                           "  workerGroupSpecs:\n  - {groupName: a, replicas: 2, numOfHosts: 2, template: {spec: " +
                           gpu_container("nvidia.com/gpu: 4") +
                           "}}\n  - {groupName: b, template: {spec: " + gpu_container("nvidia.com/gpu: 1") + "}}\n"));
    CHECK(job.at("workers") == 4);
    CHECK(job.at("gpus_per_worker") == 4);
  }
  SECTION("PaddleJob, MXJob, XGBoostJob, JAXJob: their replica specs") {
    for (const char* kind :
         {"PaddleJob:paddleReplicaSpecs", "MXJob:mxReplicaSpecs", "XGBoostJob:xgbReplicaSpecs", "JAXJob:jaxReplicaSpecs"}) {
      const std::string k(kind);
      INFO(k);
      const auto job =
          only_job(manifests("apiVersion: kubeflow.org/v1\nkind: " + k.substr(0, k.find(':')) +
                             "\nmetadata: {name: j}\nspec:\n  " + k.substr(k.find(':') + 1) +
                             ":\n    Worker: {replicas: 3, template: {spec: " + gpu_container("nvidia.com/gpu: 2") + "}}\n"));
      CHECK(job.at("workers") == 3);
    }
  }
  SECTION("TrainJob: numNodes x resourcesPerNode; what the runtime gives is named as missing") {
    const auto job =
        only_job(manifests("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\nspec:\n"
                           "  runtimeRef: {name: torch-distributed}\n  trainer:\n    numNodes: 4\n"
                           "    resourcesPerNode: {limits: {nvidia.com/gpu: 8}}\n"));
    CHECK(job.at("workers") == 4);
    CHECK(job.at("gpus_per_worker") == 8);
    const auto r = manifests(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\nspec:\n"
        "  runtimeRef: {name: torch-distributed}\n  trainer: {numNodes: 2}\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("TrainJob t: its spec.trainer.resourcesPerNode comes from the training runtime "
                                                  "'torch-distributed'"));
  }
  SECTION("v1alpha1 TFJob / MPIJob are refused naming the version; v1alpha2 MPIJob is read") {
    const auto r = manifests("apiVersion: kubeflow.org/v1alpha1\nkind: TFJob\nmetadata: {name: old}\nspec: {replicaSpecs: []}\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("TFJob old: apiVersion kubeflow.org/v1alpha1 of TFJob is not read"));
    CHECK(only_job(manifests("apiVersion: kubeflow.org/v1alpha2\nkind: MPIJob\nmetadata: {name: m}\nspec:\n  mpiReplicaSpecs:\n"
                             "    Worker: {replicas: 2, template: {spec: " +
                             gpu_container("nvidia.com/gpu: 1") + "}}\n"))
              .at("workers") == 2);
  }
}

TEST_CASE("formats::kube_workloads: names, anchors and merge keys", "[formats][kubernetes]") {
  SECTION("generateName objects are named by the prefix and a number in file order, noted") {
    const std::string job = "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: train-}\nspec: {template: {spec: " +
                            gpu_container("nvidia.com/gpu: 1") + "}}\n";
    const auto r = manifests(job + "---\n" + job);
    REQUIRE(r.ok());
    const auto jobs = nlohmann::json::parse(render_job_list(*r)).at("jobs");
    CHECK(jobs[0].at("name") == "train-1");
    CHECK(jobs[1].at("name") == "train-2");
    CHECK_THAT(r->notes.front(), Catch::Contains("metadata.generateName"));
  }
  SECTION("a merge key brings in the anchored mapping; the mapping's own keys win") {
    const auto job =
        only_job(manifests("x-limits: &gpus {nvidia.com/gpu: 2, cpu: 4}\napiVersion: v1\nkind: Pod\n"
                           "metadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n"
                           "      limits:\n        <<: *gpus\n        cpu: 8\n"));
    CHECK(job.at("gpus_per_worker") == 2);
  }
  SECTION("merge keys from a list of anchors: the earlier wins") {
    const auto job =
        only_job(manifests("a: &a {nvidia.com/gpu: 4}\nb: &b {nvidia.com/gpu: 1}\napiVersion: v1\nkind: Pod\n"
                           "metadata: {name: p}\nspec: {containers: [{name: c, resources: {limits: {<<: [*a, *b]}}}]}\n"));
    CHECK(job.at("gpus_per_worker") == 4);
  }
}

TEST_CASE("formats::kube_workloads: GPU shares the ways users declare them", "[formats][kubernetes]") {
  const auto pod = [](const std::string& annotations, const std::string& resources) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: s, annotations: {" + annotations +
           "}}\nspec: " + gpu_container(resources) + "\n";
  };
  SECTION("aliyun.com/gpu-mem: a plain number is GiB (noted), a suffix is read as written") {
    auto r = manifests(pod("", "aliyun.com/gpu-mem: 3"));
    CHECK(only_job(r).at("gpu_mem_gib") == 3);
    CHECK_THAT(r->notes.front(), Catch::Contains("read as GiB"));
    CHECK(only_job(manifests(pod("", "aliyun.com/gpu-mem: 4096Mi"))).at("gpu_mem_gib") == 4);
    CHECK(only_job(manifests(pod("", "aliyun.com/gpu-mem: 2Gi"))).at("gpu_mem_gib") == 2);
  }
  SECTION("HAMi gpumem (MiB, rounded up to whole GiB and noted) and gpucores (rounded up to a multiple of 5, noted)") {
    const auto r = manifests(pod("", "nvidia.com/gpu: 1, nvidia.com/gpumem: 5000, nvidia.com/gpucores: 33"));
    const auto job = only_job(r);
    CHECK(job.at("gpu_mem_gib") == 5);
    CHECK(job.at("gpu_core_percent") == 35);
    CHECK(r->notes.size() >= 2);
  }
  SECTION("KAI gpu-memory MiB; gpu-fraction needs the card's memory") {
    CHECK(only_job(manifests(pod("gpu-memory: '2048'", "cpu: 1"))).at("gpu_mem_gib") == 2);
    const auto without = manifests(pod("gpu-fraction: '0.25'", "cpu: 1"));
    REQUIRE_FALSE(without.ok());
    CHECK_THAT(without.error().message,
               Catch::Contains("KAI gpu-fraction 0.25 is a share of a card") && Catch::Contains("--share-card-gib"));
    ImportOptions options;
    options.share_card_gib = 80;
    CHECK(only_job(manifests(pod("gpu-fraction: '0.25'", "cpu: 1"), options)).at("gpu_mem_gib") == 20);
  }
  SECTION("alibabacloud.com annotations: gpu-milli 1000 is whole cards, gpu-mem a quantity") {
    const auto whole = only_job(manifests(pod("alibabacloud.com/gpu-milli: '1000', alibabacloud.com/gpu-count: '4'", "cpu: 1")));
    CHECK(whole.at("gpus_per_worker") == 4);
    CHECK(only_job(manifests(pod("alibabacloud.com/gpu-mem: 3072Mi", "cpu: 1"))).at("gpu_mem_gib") == 3);
  }
  SECTION("a share in a gang, or over several cards, is not read, saying why") {
    auto r = manifests(pod("", "nvidia.com/gpu: 2, nvidia.com/gpumem: 1024"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("a share of 2 cards"));
    r = manifests(
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: p}\nspec:\n  pytorchReplicaSpecs:\n"
        "    Worker: {replicas: 2, template: {spec: " +
        gpu_container("aliyun.com/gpu-mem: 4") + "}}\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("in a gang of several pods is not modelled"));
  }
  SECTION("accelerators topsim does not model are named, never dropped silently") {
    const auto mig = manifests(pod("", "nvidia.com/mig-1g.5gb: 1"));
    REQUIRE_FALSE(mig.ok());
    CHECK_THAT(mig.error().message, Catch::Contains("Pod s: its pods ask nvidia.com/mig-1g.5gb, which topsim does not model"));
    const auto beside = manifests(pod("", "nvidia.com/gpu: 1, amd.com/gpu: 1"));
    CHECK(only_job(beside).at("gpus_per_worker") == 1);
    CHECK_THAT(beside->notes.front(), Catch::Contains("s: amd.com/gpu asked beside whole GPUs is not modelled"));
  }
  SECTION("a quantity that is none is refused naming the field") {
    const auto r = manifests(pod("", "nvidia.com/gpumem: 3Gi"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("nvidia.com/gpumem: '3Gi' is not a number of MiB"));
  }
}

TEST_CASE("formats::kube_workloads: what is not read is always said", "[formats][kubernetes]") {
  SECTION("nothing read: the reasons, workloads before objects that are none") {
    const auto r = manifests(
        "apiVersion: v1\nkind: Service\nmetadata: {name: svc}\n---\napiVersion: kubeflow.org/v1\n"
        "kind: MXJob\nmetadata: {name: mx}\nspec:\n  mxReplicaSpecs:\n    Worker: {template: {spec: " +
        gpu_container("cpu: 1") + "}}\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message ==
          "no workload asking GPUs in 1 file(s): jobs.yaml document 2: MXJob mx: no pod asks GPUs; jobs.yaml document 1: Service "
          "svc: not a workload topsim reads");
  }
  SECTION("several files: one that cannot be read is skipped with its error, unless strict") {
    const std::string good = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: " + gpu_container("nvidia.com/gpu: 1") + "\n";
    const std::vector<std::pair<std::string, std::string>> files = {
        {"a.yaml", good}, {"b.yaml", "kind: Pod\nmetadata: {name: [\n"}, {"c.yaml", "name: {{ .Values.name }}\n"}};
    const auto lenient = parse_kube_manifests(files);
    REQUIRE(lenient.ok());
    CHECK(lenient->size() == 1);
    REQUIRE(lenient->skipped.size() == 2);
    CHECK_THAT(lenient->skipped[0], Catch::StartsWith("b.yaml:"));
    CHECK_THAT(lenient->skipped[1], Catch::StartsWith("c.yaml: an unrendered Helm template"));
    CHECK(lenient->skipped_jobs.empty());  // neither names an object
    // Expectation: a named object skipped in a file whose later error drops the file is taken
    // back with it (the file's one line stands for all of it); one in a file that reads stays.
    const std::vector<std::pair<std::string, std::string>> named = {
        {"a.yaml", good + "---\napiVersion: v1\nkind: Service\nmetadata: {name: kept}\n"},
        {"b.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: dropped}\n---\n" + good}};  // p again: b is dropped
    const auto partly = parse_kube_manifests(named);
    REQUIRE(partly.ok());
    REQUIRE(partly->skipped_jobs.size() == 1);
    CHECK(partly->skipped_jobs[0].first == "kept");
    CHECK(partly->skipped_jobs[0].second == "a.yaml document 2: Service kept: not a workload topsim reads");
    REQUIRE(partly->skipped.size() == 2);
    CHECK_THAT(partly->skipped[1], Catch::StartsWith("b.yaml") && Catch::Contains("'p' is used twice"));
    // Expectation: what the skipped file noted is taken back with it, and noted again by the next.
    const std::vector<std::pair<std::string, std::string>> noted = {
        {"a.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: " + gpu_container("nvidia.com/gpu: 1") +
                       "\n---\nkind: Pod\nmetadata: {name: p}\nspec: " + gpu_container("nvidia.com/gpu: 1") + "\n"},
        {"b.yaml", good}};
    const auto again = parse_kube_manifests(noted);
    REQUIRE(again.ok());
    CHECK(again->size() == 1);
    CHECK(std::count_if(again->notes.begin(), again->notes.end(),
                        [](const std::string& n) { return n.find("topsim/model") != std::string::npos; }) == 1);
    ImportOptions strict;
    strict.strict = true;
    const auto r = parse_kube_manifests(files, strict);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("b.yaml:"));
  }
}
