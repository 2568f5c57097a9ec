// A Kueue flavor of one GPU model holds the jobs admitted on it to that model's nodes (its
// nodeLabels become the pods' node selector), under every scheduler; jobs.jsonl names the flavor.
// One HGX H100 node (node 0) and one DGX A100 node (node 1); the queue tries a100 first.
#include <catch2/catch.hpp>

#include <fstream>

#include "formats/results/job_line.h"
#include "tests/scenario/scenario_support.h"
#include "tests/sim/tenancy/gpu_flavors_yaml.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

std::string job(const std::string& name, double submit_s, int gpus, const std::string& extra = "") {
  return "{\"name\": \"" + name + "\", \"submit_s\": " + std::to_string(submit_s) +
         ", \"workers\": 1, \"gpus_per_worker\": " + std::to_string(gpus) +
         ", \"model\": \"resnet50\", \"iterations\": 2000, \"queue\": \"team\"" + extra + "}";
}

Scenario flavored(const TempDir& dir, const std::string& jobs, int a100_quota = 8) {
  std::filesystem::create_directories(dir.path / "q");
  std::ofstream(dir.file("q/queues.yaml")) << a100_then_h100_queues_yaml(a100_quota);
  return scenario_from(scenario_json(R"([{"model": "hgx-h100", "count": 1}, {"model": "dgx-a100", "count": 1}])", jobs,
                                     R"(, "tenancy": {"queues": "q"})"),
                       dir.path.string());
}

// A run under `scheduler` in which jobs `a` and `b` finished, with their records.
struct TwoFinished {
  RunResult run;
  const JobRecord* a = nullptr;
  const JobRecord* b = nullptr;
};
TwoFinished two_finished(const Scenario& s, const std::string& scheduler, const std::string& a, const std::string& b) {
  TwoFinished out{run(s, scheduler)};
  out.a = &record(out.run, s, a);
  out.b = &record(out.run, s, b);
  REQUIRE(out.a->state == JobState::Finished);
  REQUIRE(out.b->state == JobState::Finished);
  return out;
}

}  // namespace

TEST_CASE("sim::quota a job runs on the nodes of the flavor it was admitted on", "[sim][kueue][gpu-models]") {
  TempDir dir;
  // "any" selects nothing: a100 fits first. Without the flavor's selector topology-aware would
  // put it on the idle H100 node, where it runs faster.
  const Scenario s = flavored(dir, "[" + job("any", 0, 8) + "," + job("pinned", 0, 8, R"(, "gpu_models": "h100")") + "]");
  for (const char* scheduler : {"topology-aware", "default", "binpack", "kueue-tas", "fgd"}) {
    INFO(scheduler);
    const TwoFinished done = two_finished(s, scheduler, "any", "pinned");
    const RunResult& r = done.run;
    const JobRecord &any = *done.a, &pinned = *done.b;
    CHECK(r.flavors == std::vector<std::string>{"a100", "h100"});
    CHECK(any.flavor == 0);
    CHECK(pinned.flavor == 1);
    for (const PodPlacement& pod : any.pods) CHECK(pod.node == 1);
    for (const PodPlacement& pod : pinned.pods) CHECK(pod.node == 0);
    CHECK(any.start_ms == 0);
    CHECK(pinned.start_ms == 0);
    std::string line;
    append_job_line(line, scheduler, r.seed, *r.workload, s.workload->jobs[job_id(s, "any")], any, r.flavors);
    CHECK_THAT(line, Catch::Contains(R"("admitted_s":0.0,"flavor":"a100")"));
  }
}

TEST_CASE("sim::quota a job admitted on a full flavor's model waits for it, not for the other model's free nodes",
          "[sim][kueue][gpu-models]") {
  TempDir dir;
  // a100 quota 16 but only 8 A100 GPUs: "second" is admitted on a100 too and waits for the A100
  // node although the H100 node is idle; its wait reason says why the H100 node is not for it.
  const Scenario s = flavored(dir, "[" + job("first", 0, 8) + "," + job("second", 0, 8) + "]", 16);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& first = record(r, s, "first");
  const JobRecord& second = record(r, s, "second");
  CHECK(first.flavor == 0);
  CHECK(second.flavor == 0);
  CHECK(second.start_ms == first.finish_ms);
  for (const PodPlacement& pod : second.pods) CHECK(pod.node == 1);
}

TEST_CASE("sim::quota flavors with GPU models: bad queue folders", "[sim][kueue][gpu-models]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path / "q");
  const std::string jobs = "[" + job("j", 0, 8) + "]";
  const std::string nodes = R"([{"model": "hgx-h100", "count": 1}])";
  SECTION("a flavor of a GPU model the cluster has none of") {
    std::ofstream(dir.file("q/queues.yaml")) << a100_then_h100_queues_yaml();
    const auto loaded =
        parse_scenario(scenario_json(nodes, jobs, R"(, "tenancy": {"queues": "q"})"), "test.json", dir.path.string());
    REQUIRE_FALSE(loaded.ok());
    CHECK_THAT(loaded.error().message,
               Catch::EndsWith("queues.yaml:1: ResourceFlavor a100: spec.nodeLabels.nvidia.com/gpu.product "
                               "NVIDIA-A100-SXM4-40GB is GPU model a100, and the cluster has none (its "
                               "GPUs: h100); ClusterQueue team admits jobs on it that could never be placed"));
  }
  SECTION("a product label of no catalog GPU") {
    std::string yaml = a100_then_h100_queues_yaml();
    yaml.replace(yaml.find("NVIDIA-A100-SXM4-40GB"), 21, "NVIDIA-X999");
    std::ofstream(dir.file("q/queues.yaml")) << yaml;
    const auto loaded =
        parse_scenario(scenario_json(nodes, jobs, R"(, "tenancy": {"queues": "q"})"), "test.json", dir.path.string());
    REQUIRE_FALSE(loaded.ok());
    CHECK_THAT(loaded.error().message, Catch::Contains("queues.yaml:5"));
    CHECK_THAT(loaded.error().message, Catch::Contains("spec.nodeLabels.nvidia.com/gpu.product"));
    CHECK_THAT(loaded.error().message, Catch::Contains("'NVIDIA-X999' names no catalog GPU"));
  }
}

namespace {

// Two flavors for GPU shares (aliyun.com/gpu-mem, GiB): a100 with `a100_gib`, then h100 with 160.
std::string share_flavors_yaml(int a100_gib) {
  std::string yaml = a100_then_h100_queues_yaml();
  const std::string queue = yaml.substr(0, yaml.find("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue"));
  return queue + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team}
spec:
  resourceGroups:
  - coveredResources: [aliyun.com/gpu-mem]
    flavors:
    - name: a100
      resources: [{name: aliyun.com/gpu-mem, nominalQuota: )" +
         std::to_string(a100_gib) + R"(}]
    - name: h100
      resources: [{name: aliyun.com/gpu-mem, nominalQuota: 160}]
)";
}

std::string share(const std::string& name, double submit_s, int gib) {
  return "{\"name\": \"" + name + "\", \"submit_s\": " + std::to_string(submit_s) + ", \"gpu_mem_gib\": " + std::to_string(gib) +
         ", \"duration_s\": 600, \"queue\": \"team\"}";
}

// One HGX H100 node (node 0) and one DGX A100 node (node 1), both serving GPU shares.
const char* kShareNodes =
    R"([{"model": "hgx-h100", "count": 1, "label": "share"}, {"model": "dgx-a100", "count": 1, "label": "share"}])";

}  // namespace

TEST_CASE("sim::quota a GPU share runs on the nodes of the flavor its gpu-mem was admitted on", "[sim][kueue][gpu-models]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path / "q");
  std::ofstream(dir.file("q/queues.yaml")) << share_flavors_yaml(8);
  // "first" takes the a100 flavor's 8 GiB; "second" is admitted on h100. Binpack would put it on
  // the A100 card "first" already uses (the fullest card that fits): the flavor's node selector
  // holds it to the H100 node.
  const Scenario s = scenario_from(scenario_json(kShareNodes, "[" + share("first", 0, 8) + "," + share("second", 0, 8) + "]",
                                                 R"(, "tenancy": {"queues": "q"})"),
                                   dir.path.string());
  for (const char* scheduler : {"binpack", "gpu-packing", "fgd", "topology-aware", "default"}) {
    INFO(scheduler);
    const TwoFinished done = two_finished(s, scheduler, "first", "second");
    const RunResult& r = done.run;
    const JobRecord &first = *done.a, &second = *done.b;
    CHECK(first.flavor == 0);
    CHECK(second.flavor == 1);
    REQUIRE(first.pods.size() == 1);
    REQUIRE(second.pods.size() == 1);
    CHECK(first.pods.front().node == 1);
    CHECK(second.pods.front().node == 0);
    CHECK(second.start_ms == 0);
    std::string line;
    append_job_line(line, scheduler, r.seed, *r.workload, s.workload->jobs[job_id(s, "second")], second, r.flavors);
    CHECK_THAT(line, Catch::Contains(R"("flavor":"h100")"));
  }
}

TEST_CASE("sim::quota GPU-share quota on a flavor whose GPU model no share node has is refused", "[sim][kueue][gpu-models]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path / "q");
  std::ofstream(dir.file("q/queues.yaml")) << share_flavors_yaml(8);
  // The A100 node serves whole GPUs only: the a100 flavor's 8 GiB could never be used.
  const auto loaded =
      parse_scenario(scenario_json(R"([{"model": "hgx-h100", "count": 1, "label": "share"}, {"model": "dgx-a100", "count": 1}])",
                                   "[" + share("s", 0, 8) + "]", R"(, "tenancy": {"queues": "q"})"),
                     "test.json", dir.path.string());
  REQUIRE_FALSE(loaded.ok());
  CHECK_THAT(loaded.error().message,
             Catch::EndsWith("queues.yaml:1: ResourceFlavor a100: spec.nodeLabels.nvidia.com/gpu.product NVIDIA-A100-SXM4-40GB "
                             "is GPU model a100, and no node of that model is labelled share or core_mem; ClusterQueue team "
                             "gives 8 aliyun.com/gpu-mem on it to GPU shares that could never be placed there (label a group "
                             "of a100 nodes \"share\", or drop the flavor's aliyun.com/gpu-mem quota)"));
  // A flavor without gpu-mem quota there is fine.
  std::ofstream(dir.file("q/queues.yaml")) << share_flavors_yaml(0);
  CHECK(
      parse_scenario(scenario_json(R"([{"model": "hgx-h100", "count": 1, "label": "share"}, {"model": "dgx-a100", "count": 1}])",
                                   "[" + share("s", 0, 8) + "]", R"(, "tenancy": {"queues": "q"})"),
                     "test.json", dir.path.string())
          .ok());
}
