// `topsim import jobs`: Kubernetes workload manifests -> a topsim job list, and the two-command
// path from manifests and `kubectl get nodes -o json` to a comparison. The manifests are written
// for this test in the shapes the operators document (Kubeflow training operator, Volcano).
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::run_shell;
using topsim::test::TempDir;

namespace {

// A PyTorchJob with one Master and three Workers of 4 GPUs each (16 GPUs: two DGX nodes).
const char* kPyTorchJob = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert-pretrain
  namespace: nlp
  creationTimestamp: "2024-05-01T10:00:00Z"
  annotations:
    topsim/model: bert-large
    topsim/duration-s: "7200"
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example.com/bert:2.1
              command: ["torchrun", "pretrain.py"]
              resources:
                limits:
                  nvidia.com/gpu: 4
                  memory: 200Gi
    Worker:
      replicas: 3
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example.com/bert:2.1
              resources:
                limits:
                  nvidia.com/gpu: 4
)";

// An MPIJob (Horovod): the launcher has no GPU and is left out; 2 workers x 8 GPUs.
// A Service in the same file is skipped. Two minutes after the PyTorchJob.
const char* kMpiJobAndService = R"(apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: resnet-horovod
  creationTimestamp: "2024-05-01T10:02:00Z"
  annotations:
    topsim/model: resnet50
    topsim/framework: tensorflow
    topsim/iterations: "5000"
spec:
  slotsPerWorker: 8
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
            - name: launcher
              image: horovod/horovod:0.28.1
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: worker
              image: horovod/horovod:0.28.1
              resources:
                limits:
                  nvidia.com/gpu: 8
---
apiVersion: v1
kind: Service
metadata:
  name: tensorboard
spec:
  ports: [{port: 6006}]
)";

// A Volcano job with 2 tasks of 1-GPU pods, and a notebook Deployment asking a 12 GiB share.
const char* kVolcanoAndShare = R"({"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
  "metadata": {"name": "vgg-sweep", "creationTimestamp": "2024-05-01T10:05:00Z", "annotations": {"topsim/model": "vgg16"}},
  "spec": {"minAvailable": 4, "schedulerName": "volcano", "tasks": [
    {"name": "ps", "replicas": 2, "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}},
    {"name": "worker", "replicas": 2, "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}]}},
 {"apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "notebook", "annotations": {"topsim/duration-s": "1800"}},
  "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "jupyter",
    "resources": {"limits": {"aliyun.com/gpu-mem": "12"}}}]}}}}]})";

std::string write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("cli::import jobs reads Kubeflow, MPI, Volcano and plain manifests into a job list", "[cli][import]") {
  TempDir dir;
  const std::filesystem::path manifests = dir.path / "manifests";
  write(manifests / "bert.yaml", kPyTorchJob);
  write(manifests / "horovod.yml", kMpiJobAndService);
  write(manifests / "more.json", kVolcanoAndShare);
  const CliResult r = run_cli("import jobs '" + manifests.string() + "' -o '" + dir.file("jobs.json") + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("skipped ") && Catch::Contains("Service tensorboard: not a workload topsim reads") &&
                        Catch::Contains("4 jobs -> "));
  CHECK_THAT(r.out, Catch::Contains("note: no metadata.creationTimestamp on some manifests"));
  const auto workload = nlohmann::json::parse(read_text(dir.file("jobs.json")));
  CHECK(workload.at("kind") == "jobs");
  const auto& jobs = workload.at("jobs");
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0] == nlohmann::json::parse(R"({"name": "nlp/bert-pretrain", "workers": 4, "gpus_per_worker": 4,
    "framework": "pytorch", "model": "bert-large", "duration_s": 7200, "submit_s": 0})"));
  CHECK(jobs[1] == nlohmann::json::parse(R"({"name": "resnet-horovod", "workers": 2, "gpus_per_worker": 8,
    "framework": "tensorflow", "model": "resnet50", "iterations": 5000, "submit_s": 120})"));
  CHECK(jobs[2].at("workers") == 4);
  CHECK(jobs[2].at("submit_s") == 300);
  CHECK(jobs[3].at("gpu_mem_gib") == 12);
  CHECK(jobs[3].at("submit_s") == 0);
}

TEST_CASE("cli::import jobs reads an LLM job's configuration from its annotations", "[cli][import][llm]") {
  TempDir dir;
  const std::string manifest = R"(kind: PyTorchJob
metadata:
  name: gpt-22b
  annotations:
    topsim/model: megatron-22b
    topsim/iterations: "50"
    topsim/tp: "8"
    topsim/global-batch: "4"
    topsim/micro-batch: "4"
    topsim/sequence-parallel: "true"
    topsim/recompute: selective
    topsim/attention: unfused
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)";
  const CliResult r = run_cli("import jobs '" + write(dir.path / "gpt.yaml", manifest) + "' -o '" + dir.file("jobs.json") + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto jobs = nlohmann::json::parse(read_text(dir.file("jobs.json"))).at("jobs");
  REQUIRE(jobs.size() == 1);
  const auto& llm = jobs[0].at("llm");
  CHECK(llm.at("model") == "megatron-22b");
  CHECK(llm.at("tp") == 8);
  CHECK(llm.at("micro_batch") == 4);
  CHECK(llm.at("sequence_parallel") == true);
  CHECK(llm.at("recompute") == "selective");
  CHECK(llm.at("attention") == "unfused");
  // "auto": the fastest micro-batch that fits on each node type (docs/workloads.md).
  std::string automatic = manifest;
  const std::string four = "topsim/micro-batch: \"4\"";
  automatic.replace(automatic.find(four), four.size(), "topsim/micro-batch: auto");
  REQUIRE(
      run_cli("import jobs '" + write(dir.path / "auto.yaml", automatic) + "' -o '" + dir.file("auto.json") + "'").exit_code ==
      0);
  CHECK(nlohmann::json::parse(read_text(dir.file("auto.json"))).at("jobs")[0].at("llm").at("micro_batch") == "auto");
}

TEST_CASE("cli::import: from manifests and kubectl nodes to a topology-aware vs default comparison", "[cli][import]") {
  TempDir dir;
  write(dir.path / "manifests" / "bert.yaml", kPyTorchJob);
  write(dir.path / "manifests" / "horovod.yaml", kMpiJobAndService);
  const std::string gpu_node = R"({"kind": "Node", "metadata": {"name": "NAME", "labels": {"nvidia.com/gpu.product":
    "Tesla-V100-SXM2-16GB"}}, "status": {"allocatable": {"nvidia.com/gpu": "8"}}})";
  std::string a = gpu_node, b = gpu_node;
  a.replace(a.find("NAME"), 4, "dgx-0");
  b.replace(b.find("NAME"), 4, "dgx-1");
  write(dir.path / "nodes.json", R"({"kind": "List", "items": [)" + a + "," + b + "]}");
  REQUIRE(run_cli("import nodes '" + dir.file("nodes.json") + "' -o '" + dir.file("cluster.json") + "'").exit_code == 0);
  REQUIRE(run_cli("import jobs '" + dir.file("manifests") + "' -o '" + dir.file("jobs.json") + "'").exit_code == 0);
  // What the importers wrote, imported again: each says what it is and where it goes.
  check_bad_input(run_cli("import nodes '" + dir.file("cluster.json") + "' -o '" + dir.file("again.json") + "'"),
                  dir.file("cluster.json") +
                      ": a cluster, not `kubectl get nodes -o json` output (what `topsim import nodes` "
                      "reads, docs/importers.md): run on it with `topsim run --cluster " +
                      dir.file("cluster.json"));
  check_bad_input(run_cli("import jobs '" + dir.file("jobs.json") + "' -o '" + dir.file("again.json") + "'"),
                  dir.file("jobs.json") +
                      ": a job list, not what `topsim import jobs` reads (Kubernetes manifests, sacct "
                      "output or a Helios log, docs/importers.md): a scenario takes it as \"workload\"");
  CHECK_FALSE(std::filesystem::exists(dir.file("again.json")));
  write(dir.path / "s.json", R"({"name": "mine", "cluster": "cluster.json", "workload": "jobs.json"})");
  const CliResult run = run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' --no-report --quiet");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out,
             Catch::Contains("2 nodes, 16 GPUs, 2 jobs") && Catch::Contains("topology-aware") && Catch::Contains("default"));
  // Two commands: kubectl's node list and the manifests folder, straight into a run.
  const CliResult two = run_cli("run --cluster '" + dir.file("nodes.json") + "' --workload '" + dir.file("manifests") + "' -o '" +
                                dir.file("out3") + "' --no-report --quiet");
  INFO(two.err);
  REQUIRE(two.exit_code == 0);
  CHECK_THAT(two.out, Catch::Contains("scenario manifests: 2 nodes, 16 GPUs, 2 jobs"));
  check_bad_input(run_cli("run --cluster '" + dir.file("nodes.json") + "'"), "--cluster and --workload go together");
  // The manifests can also be the workload directly.
  write(dir.path / "k.json", R"({"cluster": "cluster.json", "workload": {"kind": "kubernetes", "path": "manifests"}})");
  const CliResult direct = run_cli("run '" + dir.file("k.json") + "' -o '" + dir.file("out2") + "' --no-report --quiet");
  INFO(direct.err);
  REQUIRE(direct.exit_code == 0);
  CHECK_THAT(direct.out, Catch::Contains("2 jobs"));
}

TEST_CASE("cli::import jobs: bad manifests are one line naming the file and document", "[cli][import]") {
  TempDir dir;
  std::string bad_replicas = kPyTorchJob;
  bad_replicas.replace(bad_replicas.find("replicas: 3"), 11, "replicas: many");
  check_bad_input(run_cli("import jobs '" + write(dir.path / "r.yaml", bad_replicas) + "' -o '" + dir.file("j.json") + "'"),
                  "r.yaml document 1: spec.pytorchReplicaSpecs.Worker.replicas: must be an integer in 0..65535, got 'many'");
  std::string bad_model = kPyTorchJob;
  bad_model.replace(bad_model.find("bert-large"), 10, "bert-lrage");
  check_bad_input(run_cli("import jobs '" + write(dir.path / "m.yaml", bad_model) + "' -o '" + dir.file("j.json") + "'"),
                  "m.yaml document 1: topsim/model: unknown model 'bert-lrage'");
  check_bad_input(run_cli("import jobs '" + write(dir.path / "y.yaml", "kind: Pod\nmetadata: {name: [\n") + "' -o '" +
                          dir.file("j.json") + "'"),
                  "y.yaml:");
  check_bad_input(
      run_cli("import jobs '" + write(dir.path / "svc.yaml", "kind: Service\nmetadata: {name: web}\n") + "' -o '" +
              dir.file("j.json") + "'"),
      "no workload asking GPUs in 1 file(s): " + dir.file("svc.yaml") + " document 1: Service web: not a workload topsim reads");
  // Streams on which yaml-cpp 0.7's LoadAll looped forever, allocating (a fuzz finding): refused.
  for (const char* text : {",\n", ",2020--0609 18:41:01\"name\": \"n\", \"labels\": {\"-40GB\"}}, \"s\": {\"a\": 8}}: }\n"}) {
    const CliResult r = run_cli("import jobs '" + write(dir.path / "loop.yaml", text) + "' -o '" + dir.file("j.json") + "'");
    CHECK(r.exit_code == 2);
  }
  CHECK_FALSE(std::filesystem::exists(dir.file("j.json")));
}

namespace {

// `sacct --allocations --parsable2 --format=JobID,JobName,Submit,Start,End,Elapsed,AllocTRES,NNodes,State`
// as Slurm 23 prints it, written for this test: a 2-node 16-GPU job, a 1-node 4-GPU job, a CPU
// job, a pending one and a 3-node job with 10 GPUs (uneven).
const char* kSacct =
    "JobID|JobName|Submit|Start|End|Elapsed|AllocTRES|NNodes|State\n"
    "1001|bert|2024-05-01T10:00:00|2024-05-01T10:00:05|2024-05-01T12:00:05|02:00:00|"
    "billing=128,cpu=128,gres/gpu=16,mem=1000G,node=2|2|COMPLETED\n"
    "1002|resnet|2024-05-01T10:01:00|2024-05-01T10:01:02|2024-05-01T10:31:02|00:30:00|"
    "billing=16,cpu=16,gres/gpu:a100=4,gres/gpu=4,mem=200G,node=1|1|FAILED\n"
    "1003|prep|2024-05-01T10:02:00|2024-05-01T10:02:01|2024-05-01T10:12:01|00:10:00|billing=8,cpu=8,mem=32G,node=1|1|COMPLETED\n"
    "1004|wait|2024-05-01T10:03:00|Unknown|Unknown|00:00:00|billing=8,cpu=8,gres/gpu=8,node=1|1|PENDING\n"
    "1005|odd|2024-05-01T10:04:00|2024-05-01T10:04:00|2024-05-01T11:04:00|01:00:00|cpu=24,gres/gpu=10,node=3|3|COMPLETED\n";

}  // namespace

TEST_CASE("cli::import jobs reads Slurm sacct output", "[cli][import]") {
  TempDir dir;
  const CliResult r = run_cli("import jobs '" + write(dir.path / "sacct.txt", kSacct) + "' -o '" + dir.file("jobs.json") + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("skipped 1 job that never started or had not ended") &&
                        Catch::Contains("skipped 1 job without GPUs") && Catch::Contains("3 jobs -> "));
  const auto jobs = nlohmann::json::parse(read_text(dir.file("jobs.json"))).at("jobs");
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0] == nlohmann::json::parse(R"({"name": "1001-bert", "workers": 2, "gpus_per_worker": 8, "model": "resnet50",
    "duration_s": 7200, "submit_s": 0})"));
  CHECK(jobs[1].at("gpus_per_worker") == 4);  // gres/gpu, not gres/gpu:a100 + gres/gpu
  CHECK(jobs[1].at("submit_s") == 60);
  CHECK(jobs[2].at("pods") == nlohmann::json::array({4, 3, 3}));
  // and as a workload kind
  write(dir.path / "s.json", R"({"cluster": {"nodes": [{"model": "dgx-a100", "count": 4}]},
    "workload": {"kind": "sacct", "path": "sacct.txt"}})");
  const CliResult run = run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' --no-report --quiet");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  // Expected: the run accounts for the records it did not replay, as the import does.
  CHECK_THAT(run.out, Catch::Contains("3 jobs (Slurm sacct from sacct.txt (skipped: 1 job that never started or had not "
                                      "ended; 1 job without GPUs))"));
  std::string bad = kSacct;
  bad.replace(bad.find("|2|COMPLETED"), 12, "|two|COMPLETED");
  check_bad_input(run_cli("import jobs '" + write(dir.path / "bad.txt", bad) + "' -o '" + dir.file("j.json") + "'"),
                  "bad.txt:2: column NNodes: 'two' is not a node count");
}

TEST_CASE("cli::run of manifests names what it skipped, and explain says why of a skipped object", "[cli][import]") {
  TempDir dir;
  write(dir.path / "manifests" / "bert.yaml", kPyTorchJob);
  write(dir.path / "manifests" / "horovod.yml", kMpiJobAndService);
  write(dir.path / "manifests" / "web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
        "spec: {replicas: 2, template: {spec: {containers: [{name: nginx, image: nginx}]}}}\n");
  write(dir.path / "cluster.json", R"({"nodes": [{"model": "dgx-a100", "count": 4}]})");
  // Expected: the workload line names the skipped objects by file, from the folder given (not the
  // absolute path the run opened), and each named one is explained, read back from the results.
  const std::string cwd = "cd '" + dir.path.string() + "' && " + TOPSIM_CLI_PATH;
  const CliResult r = run_shell(cwd + " run --cluster cluster.json --workload manifests/ --no-report --quiet -o out");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string service = "manifests/horovod.yml document 2: Service tensorboard: not a workload topsim reads";
  CHECK_THAT(r.out, Catch::Contains("(Kubernetes manifests from manifests (skipped: ") && Catch::Contains(service) &&
                        Catch::Contains("; manifests/web.yaml document 1: Deployment web: no pod asks GPUs))"));
  CHECK(r.out.find(dir.path.string()) == std::string::npos);
  const CliResult why = run_shell(cwd + " explain out tensorboard");
  REQUIRE(why.exit_code == 0);
  CHECK_THAT(why.out, Catch::StartsWith("tensorboard was not replayed: " + service + ".\n"));
  // A namespaced object is asked by the job name it would have had.
  const CliResult web = run_shell(cwd + " explain out shop/web");
  REQUIRE(web.exit_code == 0);
  CHECK_THAT(web.out,
             Catch::StartsWith("shop/web was not replayed: manifests/web.yaml document 1: Deployment web: no pod asks GPUs.\n"));
  check_bad_input(run_shell(cwd + " explain out tensorboards"), "unknown job 'tensorboards'");
}

TEST_CASE("cli::import jobs reads a Helios cluster_log.csv", "[cli][import]") {
  TempDir dir;
  // The Helios schema (job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,
  // end_time,duration,queue); rows written for this test.
  const std::string log =
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
      "1425511,uA,vcA,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
      "1425512,uB,vcB,16,64,2,FAILED,2020-06-09 18:41:27,2020-06-09 18:42:27,2020-06-09 18:45:36,189,60\n"
      "1425513,uC,vcC,0,8,1,COMPLETED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-09 18:51:28,600,0\n";
  const CliResult r =
      run_cli("import jobs '" + write(dir.path / "cluster_log.csv", log) + "' -o '" + dir.file("jobs.json") + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("skipped 1 job without GPUs") && Catch::Contains("2 jobs -> "));
  const auto jobs = nlohmann::json::parse(read_text(dir.file("jobs.json"))).at("jobs");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0] == nlohmann::json::parse(R"({"name": "1425511", "queue": "vcA", "workers": 1, "gpus_per_worker": 1,
    "model": "resnet50", "duration_s": 36848, "submit_s": 0})"));
  CHECK(jobs[1].at("queue") == "vcB");  // the virtual cluster is the queue
  CHECK(jobs[1].at("workers") == 2);
  CHECK(jobs[1].at("gpus_per_worker") == 8);
  CHECK(jobs[1].at("submit_s") == 26);
  CHECK(jobs[1].at("duration_s") == 189);
  std::string bad = log;
  bad.replace(bad.find("2020-06-09 18:41:27"), 19, "June 9th");
  check_bad_input(run_cli("import jobs '" + write(dir.path / "h.csv", bad) + "' -o '" + dir.file("j.json") + "'"),
                  "h.csv:3: column submit_time: 'June 9th' is not a time");
}

TEST_CASE("cli::run --cluster: the network read from the nodes in one line, the run named after the workload", "[cli][import]") {
  TempDir dir;
  write(dir.path / "manifests" / "bert.yaml", kPyTorchJob);
  const auto node = [](const std::string& name, const std::string& extra) {
    return R"({"kind": "Node", "metadata": {"name": ")" + name +
           R"(", "labels": {"nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB"}}, "status": {"allocatable": {"nvidia.com/gpu": "8")" +
           extra + "}}}";
  };
  const std::string rdma = R"(, "rdma/rdma_shared_device_a": "63")";
  write(dir.path / "rdma.json", R"({"kind": "List", "items": [)" + node("a", rdma) + "," + node("b", rdma) + "]}");
  write(dir.path / "plain.yaml", "apiVersion: v1\nkind: List\nitems:\n- " + node("a", "") + "\n- " + node("b", "") + "\n");
  // Expectation: a folder given with a trailing slash still names the run (results/manifests),
  // and the workload in the header reads "Kubernetes manifests from manifests".
  const std::string cwd = "cd '" + dir.path.string() + "' && " + TOPSIM_CLI_PATH;
  CliResult r = run_shell(cwd + " run --cluster rdma.json --workload manifests/ --no-report --quiet");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("network: ib (rdma/rdma_shared_device_a on 2 of 2 GPU nodes; a RoCE fabric: give "
                                      "--network roce)\n") &&
                        Catch::Contains("scenario manifests: 2 nodes, 16 GPUs, 1 job (Kubernetes manifests from manifests)") &&
                        Catch::Contains("results: results/manifests/results.json"));
  // kubectl's YAML, no RDMA device: tcp, and --network decides instead.
  r = run_shell(cwd + " run --cluster plain.yaml --workload manifests --no-report --quiet -o out-tcp");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("network: tcp (no RDMA device"));
  r = run_shell(cwd + " run --cluster plain.yaml --workload manifests --network roce --no-report --quiet -o out-roce");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("network: roce (as given; RDMA devices on 0 of 2 GPU nodes)"));
  check_bad_input(run_shell(cwd + " run --cluster plain.yaml --workload manifests --network rdma"),
                  "--network: 'rdma' is not one of ib, roce, tcp");
}
