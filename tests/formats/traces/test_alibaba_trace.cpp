#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/hardware.h"
#include "formats/traces/alibaba_trace.h"
#include "formats/traces/alibaba_workload.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

// Reads pod-list text; returns the error message ("" on success) and the pods read.
std::string read_pods(const std::string& text, std::vector<TracePod>* pods = nullptr, const char* source = "pods.csv") {
  std::istringstream in(text);
  const Status status = read_pod_list(in, source, [&](TracePod&& pod) {
    if (pods) pods->push_back(std::move(pod));
  });
  return status ? "" : status.error().message;
}

std::string read_nodes(const std::string& text, std::vector<TraceNode>* nodes = nullptr) {
  std::istringstream in(text);
  const Status status = read_node_list(in, "nodes.csv", [&](TraceNode&& node) {
    if (nodes) nodes->push_back(std::move(node));
  });
  return status ? "" : status.error().message;
}

}  // namespace

TEST_CASE("formats::alibaba trace parses both pod list layouts", "[formats][trace]") {
  SECTION("11 columns: gpu_spec 'A|B' becomes a type mask, an empty scheduled_time is -1") {
    std::vector<TracePod> pods;
    REQUIRE(read_pods(std::string(kPodHeader) + "p0,12000,16384,1,460,V100M16|V100M32,LS,Running,427061,12902960,\n"
                                                "p1,6000,12288,8,1000,,BE,Failed,5,10,6\r\n",
                      &pods) == "");
    REQUIRE(pods.size() == 2);
    CHECK(pods[0].gpu_milli == 460);
    CHECK(pods[0].gpu_type_mask == ((1u << *alibaba_gpu_type("V100M16")) | (1u << *alibaba_gpu_type("V100M32"))));
    CHECK(pods[0].creation_time_s == 427061);
    CHECK(pods[0].scheduled_time_s == -1);
    CHECK(pods[0].qos == "LS");
    CHECK(pods[1].num_gpu == 8);
    CHECK(pods[1].gpu_type_mask == 0);  // any model
    CHECK(pods[1].pod_phase == "Failed");
  }
  SECTION("5 columns (multigpu variants): times absent") {
    std::vector<TracePod> pods;
    REQUIRE(read_pods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,2048,4,1000\n", &pods) == "");
    REQUIRE(pods.size() == 1);
    CHECK(pods[0].num_gpu == 4);
    CHECK(pods[0].creation_time_s == -1);
  }
  SECTION("a trace pod becomes a milli request; num_gpu 0 is CPU-only") {
    TracePod pod;
    pod.num_gpu = 2;
    pod.gpu_milli = 1000;
    pod.cpu_milli = 3000;
    const PodRequest request = trace_pod_request(pod);
    CHECK(request.gpu.kind == GpuAskKind::Milli);
    CHECK(request.gpu.count == 2);
    CHECK(request.cpu_milli == 3000);
    pod.num_gpu = 0;
    CHECK(trace_pod_request(pod).gpu.kind == GpuAskKind::None);
  }
  SECTION("node rows: CPU-only nodes have an empty model") {
    std::vector<TraceNode> nodes;
    REQUIRE(read_nodes("sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,0,\nn1,96000,786432,8,G2\n", &nodes) == "");
    REQUIRE(nodes.size() == 2);
    CHECK(nodes[0].gpu_type == -1);
    CHECK(nodes[1].gpu_type == *alibaba_gpu_type("G2"));
    CHECK(trace_share_node(nodes[1]).cards.size() == 8);
  }
}

TEST_CASE("formats::alibaba trace bad input names file, line and column", "[formats][trace]") {
  SECTION("a header without gpu_milli: missing column") {
    const std::string error = read_pods("name,cpu_milli,memory_mib,num_gpu,gpu_spec\n");
    CHECK_THAT(error, Catch::StartsWith("pods.csv:1: header: missing column gpu_milli"));
  }
  SECTION("a row with a field missing: the first missing column is named") {
    CHECK(read_pods(std::string(kPodHeader) + "p0,1,1,1,1000,,LS,Running,0,1,0\np1,1,1,1\n") ==
          "pods.csv:3: column gpu_milli: missing (the row has 4 of 11 fields)");
  }
  SECTION("a negative gpu_milli") {
    CHECK(read_pods(std::string(kPodHeader) + "p0,1,1,1,-5,,LS,Running,0,1,0\n") ==
          "pods.csv:2: column gpu_milli: -5 is negative");
  }
  SECTION("an unknown GPU model in gpu_spec") {
    CHECK(read_pods(std::string(kPodHeader) + "p0,1,1,1,500,T4|H100,LS,Running,0,1,0\n") ==
          "pods.csv:2: column gpu_spec: unknown GPU model 'H100' (known: G2,G3,T4,P100,V100M16,V100M32,A10)");
  }
  SECTION("a non-numeric field") {
    CHECK(read_pods(std::string(kPodHeader) + "p0,abc,1,1,500,,LS,Running,0,1,0\n") ==
          "pods.csv:2: column cpu_milli: 'abc' is not a number");
    CHECK(read_pods(std::string(kPodHeader) + "p0,1,1,1,500,,LS,Running,1.5,1,0\n") ==
          "pods.csv:2: column creation_time: '1.5' is not a number");
  }
  SECTION("an extra field") {
    CHECK(read_pods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1,1,1,500,x\n") == "pods.csv:2: 6 fields, expected 5");
  }
  SECTION("node list: unknown model, empty model on a GPU node") {
    CHECK(read_nodes("sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,2,H100\n") ==
          "nodes.csv:2: column model: unknown GPU model 'H100' (known: G2,G3,T4,P100,V100M16,V100M32,A10)");
    CHECK(read_nodes("sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,2,\n") ==
          "nodes.csv:2: column model: empty for a node with 2 GPUs");
  }
  SECTION("a file: the error starts with its path; a missing file cannot be opened") {
    test::TempDir dir;
    const std::string path = dir.file("openb_pod_list_x.csv");
    std::ofstream(path) << kPodHeader << "p0,1,1,1,500,,LS,Running,0,1,0\n"
                        << "p1,1,1,1,-5,,LS,Running,0,1,0\n";
    const auto pods = load_pod_list(path);
    REQUIRE_FALSE(pods.ok());
    CHECK(pods.error().message == path + ":3: column gpu_milli: -5 is negative");
    const auto missing = load_pod_list(dir.file("absent.csv"));
    REQUIRE_FALSE(missing.ok());
    CHECK_THAT(missing.error().message,
               Catch::Contains("cannot open '") && Catch::Contains("absent.csv': No such file or directory"));
  }
}

TEST_CASE("formats::alibaba trace real files", "[formats][trace][shared]") {
  const std::string dir = test::shared_file("traces/alibaba-gpu-v2023");
  if (dir.empty()) return;
  SECTION("default pod list: 8152 pods; GPU node list: 1213 nodes, 6212 GPUs") {
    const auto pods = load_pod_list(dir + "/openb_pod_list_default.csv");
    REQUIRE(pods.ok());
    CHECK(pods->size() == 8152);
    const auto nodes = load_node_list(dir + "/openb_node_list_gpu_node.csv");
    REQUIRE(nodes.ok());
    CHECK(nodes->size() == 1213);
    int gpus = 0;
    for (const TraceNode& node : *nodes) gpus += node.gpu_count;
    CHECK(gpus == 6212);
  }
  SECTION("all-node list: 1523 nodes of which 310 are CPU-only") {
    const auto nodes = load_node_list(dir + "/openb_node_list_all_node.csv");
    REQUIRE(nodes.ok());
    CHECK(nodes->size() == 1523);
    CHECK(std::count_if(nodes->begin(), nodes->end(), [](const TraceNode& n) { return n.gpu_count == 0; }) == 310);
  }
  SECTION("every pod list variant (including the 5-column multigpu files) loads") {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("openb_pod_list_", 0) != 0) continue;
      const auto pods = load_pod_list(entry.path().string());
      INFO(name);
      REQUIRE(pods.ok());
      CHECK(pods->size() > 7000);
    }
  }
}

TEST_CASE("formats::alibaba shared pods become gpu-mem shares when a card size is given", "[formats][trace][share]") {
  // ceil(gpu_milli x card GiB / 1000) GiB; core: gpu_milli / 10 percent up to a multiple of 5.
  CHECK(alibaba_share_units(810, 16, false) == std::pair<int, int>{13, 0});  // 12.96 GiB -> 13
  CHECK(alibaba_share_units(470, 16, true) == std::pair<int, int>{8, 50});   // 7.52 -> 8; 47% -> 50%
  CHECK(alibaba_share_units(500, 16, true) == std::pair<int, int>{8, 50});   // exact: 8 GiB, 50%
  CHECK(alibaba_share_units(5, 16, true) == std::pair<int, int>{1, 5});      // at least 1 GiB and 5%
  test::TempDir dir;
  std::ofstream(dir.file("pods.csv")) << kPodHeader << "w,1000,1024,2,1000,,LS,Running,100,700,100\n"
                                      << "s,1000,1024,1,470,,LS,Running,0,50,10\n"
                                      << "c,1000,1024,0,0,,BE,Running,0,50,\n";
  auto skipped = load_alibaba_jobs(dir.file("pods.csv"));
  REQUIRE(skipped.ok());
  REQUIRE(skipped->jobs.size() == 1);
  CHECK_THAT(skipped->source, Catch::Contains("1 whole-GPU pods; skipped: 1 shared-GPU, 1 CPU-only"));
  // Expected: the skipped pods by name, each under its reason, for `topsim explain`.
  REQUIRE(skipped->skipped.size() == 2);
  CHECK_THAT(skipped->skipped[0].why, Catch::StartsWith("a shared-GPU pod"));
  CHECK(skipped->skipped[0].names == std::vector<std::string>{"s"});
  CHECK_THAT(skipped->skipped[1].why, Catch::StartsWith("a CPU-only pod"));
  CHECK(skipped->skipped[1].names == std::vector<std::string>{"c"});
  AlibabaJobOptions options;
  options.share_card_gib = 16;
  options.share_core = true;
  auto shared = load_alibaba_jobs(dir.file("pods.csv"), options);
  REQUIRE(shared.ok());
  REQUIRE(shared->jobs.size() == 2);
  const JobSpec& share = shared->jobs[0];  // created at 0 s, before the whole-GPU pod (100 s)
  CHECK(share.is_share());
  CHECK(share.gpu_mem_gib == 8);
  CHECK(share.gpu_core_percent == 50);
  CHECK(share.ideal_duration_ms == 40'000);  // scheduled 10 s -> deleted 50 s
  CHECK(share.model == kNoModel);
  // Each job keeps its pod's name, in submission order (before: "job-0", "job-1").
  CHECK(shared->job_name(0) == "s");
  CHECK(shared->job_name(1) == "w");
  CHECK(skipped->job_name(0) == "w");
  CHECK_FALSE(shared->jobs[1].is_share());
  CHECK(shared->jobs[1].gpus_per_worker == 2);
  CHECK(shared->jobs[1].submit_ms == 100'000);
  CHECK_THAT(shared->source,
             Catch::Contains("1 whole-GPU pods, 1 shared-GPU pods as gpu-mem shares of 16 GiB cards; skipped: 1 CPU-only"));
  REQUIRE(shared->skipped.size() == 1);
  CHECK(shared->skipped[0].names == std::vector<std::string>{"c"});
}

TEST_CASE("formats::alibaba a pod's gpu_spec names the GPU its duration was measured on", "[formats][trace]") {
  // Expectation: the first catalog model of the spec (G2/G3 are undisclosed, so skipped): T4 ->
  // t4, "G2|V100M32" -> v100-32g; no spec or only G2 -> the workload's reference.
  test::TempDir dir;
  std::ofstream(dir.file("pods.csv")) << kPodHeader << "a,1000,1024,1,1000,T4,LS,Running,0,700,0\n"
                                      << "b,1000,1024,1,1000,G2|V100M32,LS,Running,1,700,1\n"
                                      << "c,1000,1024,1,1000,G2,LS,Running,2,700,2\n"
                                      << "d,1000,1024,1,1000,,LS,Running,3,700,3\n";
  auto jobs = load_alibaba_jobs(dir.file("pods.csv"));
  REQUIRE(jobs.ok());
  REQUIRE(jobs->jobs.size() == 4);
  CHECK(gpu_at(jobs->jobs[0].reference_gpu) == find_gpu_model("t4"));
  CHECK(gpu_at(jobs->jobs[1].reference_gpu) == find_gpu_model("v100-32g"));
  CHECK(jobs->jobs[2].reference_gpu == kWorkloadReference);
  CHECK(jobs->jobs[3].reference_gpu == kWorkloadReference);
}
