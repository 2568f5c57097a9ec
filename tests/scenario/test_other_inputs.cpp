// A file handed over as a scenario that is another input topsim reads (scenario/other_inputs.h):
// the error says what it is and where it goes; scenarios with mistakes keep their own errors.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "gate/quality_gate.h"
#include "plan/plan.h"
#include "scenario/other_inputs.h"
#include "scenario/scenario_loader.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

std::string write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The error of loading `path` as a scenario.
std::string load_error(const std::string& path) {
  auto scenario = load_scenario(path);
  REQUIRE_FALSE(scenario);
  return scenario.error().message;
}

constexpr const char* kNotAScenario = ", not a scenario (a JSON file, docs/scenarios.md): ";

}  // namespace

TEST_CASE("other inputs: Kubernetes objects say what they are and where they go", "[scenario]") {
  const test::TempDir dir;
  const std::string job = write(dir, "job.yaml",
                                "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n---\n"
                                "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: b\n");
  CHECK(load_error(job) == job + ": Kubernetes manifests (Job, PyTorchJob)" + kNotAScenario +
                               "run them with `topsim run --cluster NODES --workload " + job +
                               "` (NODES: `kubectl get nodes -o json` output or a cluster file), or make a job list of them "
                               "with `topsim import jobs " +
                               job + " -o jobs.json`");
  // kubectl's JSON: a List of Nodes, and of Pods.
  const std::string nodes = write(dir, "nodes.json",
                                  R"({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node"},)"
                                  R"( {"apiVersion": "v1", "kind": "Node"}]})");
  CHECK_THAT(load_error(nodes), Catch::StartsWith(nodes + ": a list of Kubernetes nodes" + kNotAScenario +
                                                  "run on them with `topsim run --cluster " + nodes + " --workload JOBS`"));
  const std::string pods = write(dir, "pods.json", R"({"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod"}]})");
  CHECK_THAT(load_error(pods), Catch::StartsWith(pods + ": Kubernetes manifests (Pod)"));
  const std::string queues = write(dir, "q/queues.yaml",
                                   "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: a\n---\n"
                                   "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: f\n");
  CHECK_THAT(load_error(queues),
             Catch::StartsWith(queues + ": Kueue / KAI queue objects (ClusterQueue, ResourceFlavor)" + kNotAScenario +
                               "a scenario reads a folder of them as \"tenancy\": {\"queues\": \"FOLDER\"}"));
  // A folder: queue objects alone make a queue folder; one manifest makes it a folder of manifests.
  const std::string folder = dir.file("q");
  CHECK_THAT(load_error(folder), Catch::StartsWith(folder + ": a folder of Kueue / KAI queue objects" + kNotAScenario));
  write(dir, "q/job.yml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n");
  CHECK_THAT(load_error(folder), Catch::StartsWith(folder + ": a folder of Kubernetes manifests" + kNotAScenario));
  // YAML that does not parse but is plainly Kubernetes: still manifests (their reader says what is wrong).
  const std::string broken = write(dir, "broken.yaml", "apiVersion: v1\nkind: Pod\nmetadata: [\n");
  CHECK_THAT(load_error(broken), Catch::StartsWith(broken + ": Kubernetes manifests" + kNotAScenario));
}

TEST_CASE("other inputs: traces, records and node files", "[scenario]") {
  const test::TempDir dir;
  const auto what = [&](const std::string& name, const std::string& text) {
    const std::string path = write(dir, name, text);
    const std::string error = load_error(path);
    REQUIRE(error.rfind(path + ": ", 0) == 0);
    const size_t end = error.find(kNotAScenario);
    REQUIRE(end != std::string::npos);
    return error.substr(path.size() + 2, end - path.size() - 2) + " | " + error.substr(end + std::strlen(kNotAScenario));
  };
  CHECK(what("philly.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,11cb48\n") ==
        "the Philly trace | a scenario takes it as \"workload\": {\"kind\": \"philly\", \"path\": \"" + dir.file("philly.csv") +
            "\"} (as scenarios/philly-552-nodes.json)");
  CHECK_THAT(what("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\nopenb-pod-0000,12000,16384,1,1000,\n"),
             Catch::StartsWith("an Alibaba 2023 pod list | a scenario takes it as \"workload\": {\"kind\": \"alibaba\""));
  CHECK_THAT(what("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,64000,262144,2,P100\n"),
             Catch::StartsWith("an Alibaba 2023 node list | a scenario takes it as \"cluster\": {\"node_list\": "));
  CHECK_THAT(what("failures.csv", "node,start_s,duration_s,cause\nnode-0,100,3600,gpu\n"),
             Catch::StartsWith("a failure trace | a scenario takes it as \"failures\": {\"trace\": "));
  CHECK_THAT(what("sacct.txt", "JobID|JobName|Submit|Start|End|Elapsed|AllocTRES|NNodes|State\n"),
             Catch::StartsWith("Slurm sacct output | run it with `topsim run --cluster NODES --workload "));
  CHECK_THAT(what("cluster_log.csv", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time\n"),
             Catch::StartsWith("a Helios job log | "));
  CHECK_THAT(what("jobs.json", R"({"kind": "jobs", "jobs": []})"),
             Catch::StartsWith("a job list | a scenario takes it as \"workload\": \"" + dir.file("jobs.json") + "\""));
  CHECK_THAT(what("node.json", R"({"name": "n", "numa_nodes": [], "gpus": []})"),
             Catch::StartsWith("a node model | a scenario's cluster takes it as \"nodes\": [{\"model\": "));
  CHECK_THAT(what("topo.txt", "# captured on a DGX\n\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV12\t0-63\n"),
             Catch::StartsWith("`nvidia-smi topo -m` output | "));
  CHECK_THAT(what("topo.xml", "<?xml version=\"1.0\"?>\n<system version=\"1\">\n</system>\n"),
             Catch::StartsWith("an NCCL topology file | "));
  CHECK(what("plan.json", R"({"workload": {"kind": "synthetic"}, "slo": {}})") ==
        "a plan | run it with `topsim plan " + dir.file("plan.json") + "`");
  CHECK(what("suite.json", R"({"baseline": "b.json", "scenarios": []})") ==
        "a quality suite | run it with `topsim check " + dir.file("suite.json") + "`");
}

TEST_CASE("other inputs: a run's results, as a file and as its folder", "[scenario]") {
  const test::TempDir dir;
  const std::string results = write(dir, "run/results.json", R"({"schema": "topsim.results/1"})");
  const std::string folder = dir.file("run");
  const std::string use = kNotAScenario + std::string("`topsim report ") + folder + "` makes its report again; `topsim explain " +
                          folder + " JOB` tells one job's story";
  CHECK(load_error(results) == results + ": a run's results" + use);
  CHECK(load_error(folder) == folder + ": a folder of a run's results" + use);
  // `topsim report` and `topsim explain` take the folder: results.json itself gets the same answer.
  const std::string not_results = ", not a run's results folder (written by `topsim run`, docs/results-format.md): ";
  CHECK(other_input(results, Wanted::Results) == results + ": a run's results" + not_results + "`topsim report " + folder +
                                                     "` makes its report again; `topsim explain " + folder +
                                                     " JOB` tells one job's story");
  CHECK_FALSE(other_input(folder, Wanted::Results));
  const std::string scenario = write(dir, "s.json", R"({"cluster": {}, "workload": {}})");
  CHECK(other_input(scenario, Wanted::Results) == scenario + ": a scenario" + not_results + "run it with `topsim run " +
                                                      scenario + "`, then give its results folder (-o, default results/<name>)");
}

TEST_CASE("other inputs: a scenario with a mistake, and what is no known input, keep their own errors", "[scenario]") {
  const test::TempDir dir;
  CHECK_THAT(load_error(write(dir, "typo.json", R"({"clustr": {}})")), Catch::Contains("/clustr: unknown key"));
  CHECK_THAT(load_error(write(dir, "comma.json", R"({"cluster": {},})")), Catch::Contains("syntax error"));
  CHECK_THAT(load_error(write(dir, "notes.yaml", "just: some\nyaml: here\n")), Catch::Contains("syntax error"));
  CHECK_THAT(load_error(write(dir, "empty.json", "")), !Catch::Contains("not a scenario"));
  CHECK_THAT(load_error(dir.file("absent.json")), Catch::Contains("No such file or directory"));
  std::filesystem::create_directories(dir.file("empty"));
  CHECK_THAT(load_error(dir.file("empty")), Catch::Contains("it is a directory"));
}

TEST_CASE("other inputs: scenarios, plans and suites handed to each other's commands", "[scenario]") {
  const test::TempDir dir;
  const std::string scenario =
      write(dir, "s.json",
            R"({"cluster": {"nodes": [{"model": "dgx-a100", "count": 1}]}, "workload": {"kind": "synthetic", "jobs": 3},)"
            R"( "record_transitions": true})");
  const std::string plan = write(dir, "p.json", R"({"workload": {"kind": "synthetic", "jobs": 3}, "slo": {}, "node_types": []})");
  const std::string suite = write(dir, "suite.json", R"({"scenarios": [{"scenario": "s.json"}]})");
  const std::string jobs = write(dir, "jobs.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
  const auto plan_error = [](const std::string& path) {
    auto loaded = load_plan(path);
    REQUIRE_FALSE(loaded);
    return loaded.error().message;
  };
  const auto suite_error = [](const std::string& path) {
    auto loaded = load_suite(path);
    REQUIRE_FALSE(loaded);
    return loaded.error().message;
  };
  CHECK(plan_error(scenario) == scenario + ": a scenario, not a plan (docs/planning.md): run it with `topsim run " + scenario +
                                    "`; a plan is its workload with the node types to size and the SLOs to meet (\"node_types\", "
                                    "\"slo\")");
  CHECK(suite_error(scenario) == scenario + ": a scenario, not a quality suite (docs/ci.md): run it with `topsim run " +
                                     scenario + "`; a suite lists it as {\"scenario\": \"" + scenario +
                                     "\", \"metrics\": {...}}");
  CHECK(suite_error(plan) == plan + ": a plan, not a quality suite (docs/ci.md): run it with `topsim plan " + plan + "`");
  CHECK(plan_error(suite) ==
        suite + ": a quality suite, not a plan (docs/planning.md): run it with `topsim check " + suite + "`");
  CHECK_THAT(plan_error(jobs), Catch::StartsWith(jobs + ": Kubernetes manifests (Pod), not a plan (docs/planning.md): run them"));
  CHECK_THAT(suite_error(jobs), Catch::StartsWith(jobs + ": Kubernetes manifests (Pod), not a quality suite (docs/ci.md): run"));
  // Each with a mistake of its own keeps its own error under its own command.
  CHECK_THAT(load_error(write(dir, "s2.json", R"({"cluster": {}, "workload": {}, "sede": 1})")),
             Catch::Contains("/sede: unknown key"));
  CHECK_THAT(plan_error(write(dir, "p2.json", R"({"workload": {"kind": "synthetic"}, "slo": {}, "nodes_types": []})")),
             Catch::Contains("/nodes_types: unknown key"));
  CHECK_THAT(suite_error(write(dir, "suite2.json", R"({"scenarios": [{"scenario": "s.json"}], "basline": "b.json"})")),
             Catch::Contains("/basline: unknown key"));
}

TEST_CASE("other inputs: --cluster and --workload swapped, or given something else", "[scenario]") {
  const test::TempDir dir;
  const std::string nodes = write(dir, "nodes.json",
                                  R"({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a", "labels": )"
                                  R"({"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}}, "status": {"allocatable": )"
                                  R"({"nvidia.com/gpu": "8"}}}]})");
  const std::string jobs =
      write(dir, "jobs.json", R"({"kind": "jobs", "jobs": [{"name": "g", "model": "vgg16", "iterations": 5}]})");
  const std::string philly = write(dir, "philly.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n");
  REQUIRE(scenario_from_files(nodes, jobs));
  const auto error = [](const Expected<Scenario>& loaded) {
    REQUIRE_FALSE(loaded);
    return loaded.error().message;
  };
  const std::string not_a_cluster = ", not a cluster (`kubectl get nodes -o json` output or a cluster file, docs/importers.md): ";
  const std::string not_a_workload =
      ", not a workload (Kubernetes manifests, a job list, sacct output or a Helios log, docs/importers.md): ";
  CHECK(error(scenario_from_files(jobs, nodes)) == jobs + ": a job list" + not_a_cluster +
                                                       "a scenario takes it as \"workload\": \"" + jobs +
                                                       "\", or run it with `topsim run --cluster NODES --workload " + jobs + "`");
  CHECK(error(scenario_from_files(nodes, nodes)) ==
        nodes + ": a list of Kubernetes nodes" + not_a_workload + "run on them with `topsim run --cluster " + nodes +
            " --workload JOBS`; `topsim import nodes " + nodes + " -o cluster.json` shows what topsim reads in them");
  CHECK_THAT(error(scenario_from_files(nodes, philly)), Catch::StartsWith(philly + ": the Philly trace" + not_a_workload +
                                                                          "a scenario takes it as \"workload\": {\"kind\""));
  CHECK_THAT(error(load_cluster_only(jobs)), Catch::StartsWith(jobs + ": a job list" + not_a_cluster));
  // A cluster file (`topsim import nodes`' output) is a cluster; its own mistake keeps its error.
  const std::string cluster = write(dir, "cluster.json", R"({"nodes": [{"model": "hgx-h100", "count": 0}]})");
  CHECK_THAT(error(scenario_from_files(cluster, jobs)), Catch::Contains("/nodes/0/count"));
  CHECK_THAT(error(load_scenario(cluster)),
             Catch::StartsWith(cluster +
                               ": a cluster, not a scenario (a JSON file, docs/scenarios.md): run on it with `topsim run "
                               "--cluster " +
                               cluster + " --workload JOBS`"));
}

TEST_CASE("other inputs: the real files users hold", "[scenario][real]") {
  const std::string source = TOPSIM_SOURCE_DIR;
  CHECK_THAT(load_error(source + "/tests/real_files/manifests"), Catch::Contains(": a folder of Kubernetes manifests, not a"));
  CHECK_THAT(load_error(source + "/tests/real_files/manifests/kai-pytorch-job.yaml"),
             Catch::Contains(": Kubernetes manifests (PyTorchJob), not a"));
  CHECK_THAT(load_error(source + "/tests/real_files/nodes/device-plugin-112-node.yaml"),
             Catch::Contains(": a list of Kubernetes nodes, not a"));
  CHECK_THAT(load_error(source + "/scenarios/queues/philly-vcs"),
             Catch::Contains(": a folder of Kueue / KAI queue objects, not a"));
  CHECK_THAT(load_error(source + "/scenarios/plan-philly-quotas.json"), Catch::Contains(": a plan, not a"));
  CHECK_THAT(load_error(source + "/ci/quality-suite.json"), Catch::Contains(": a quality suite, not a"));
  CHECK_THAT(load_error(source + "/scenarios/nodes/pcie-2gpu-v100.json"), Catch::Contains(": a node model, not a"));
  const std::string philly = test::shared_file("traces/philly/philly.csv");
  if (philly.empty()) return;
  CHECK_THAT(load_error(philly), Catch::Contains(": the Philly trace, not a"));
  const std::string traces = test::shared_file("traces/alibaba-gpu-v2023/");
  CHECK_THAT(load_error(traces + "openb_pod_list_default.csv"), Catch::Contains(": an Alibaba 2023 pod list, not a"));
  CHECK_THAT(load_error(traces + "openb_node_list_gpu_node.csv"), Catch::Contains(": an Alibaba 2023 node list, not a"));
  CHECK_THAT(load_error(test::shared_file("topologies/dgx-a100_topo-m.txt")),
             Catch::Contains(": `nvidia-smi topo -m` output, not a"));
  CHECK_THAT(load_error(test::shared_file("topologies/azure-ndv4-topo.xml")), Catch::Contains(": an NCCL topology file, not a"));
}
