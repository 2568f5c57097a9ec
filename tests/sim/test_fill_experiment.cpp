#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reports/fill_report.h"
#include "sim/fill_experiment.h"
#include "test_support.h"

using namespace topsim;

namespace {

// A small trace: 3 GPU nodes (2 + 4 + 8 = 14 GPUs) and one CPU-only node; 6 pod specs, the
// last one invalid (num_gpu 1 with gpu_milli 0).
struct SmallTrace {
  test::TempDir dir;
  std::string nodes = dir.file("nodes.csv");
  std::string pods = dir.file("pods.csv");
  SmallTrace() {
    std::ofstream(nodes) << "sn,cpu_milli,memory_mib,gpu,model\n"
                            "n0,32000,131072,2,T4\n"
                            "n1,32000,131072,4,V100M16\n"
                            "n2,64000,262144,8,G2\n"
                            "n3,16000,65536,0,\n";
    std::ofstream(pods) << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
                           "scheduled_time\n"
                           "p0,4000,8192,1,500,,LS,Running,0,10,0\n"
                           "p1,8000,16384,1,1000,,LS,Running,0,10,0\n"
                           "p2,2000,4096,0,0,,BE,Running,0,10,0\n"
                           "p3,16000,32768,2,1000,,LS,Running,0,10,0\n"
                           "p4,4000,8192,1,250,T4,LS,Running,0,10,0\n"
                           "p5,4000,8192,1,0,,LS,Running,0,10,0\n";
  }
  std::string scenario(const std::string& extra) const {
    const std::string path = dir.file("fill.json");
    std::ofstream(path) << R"({"mode": "fill", "node_list": ")" << nodes << R"(", "pod_list": ")" << pods << "\"" << extra << "}";
    return path;
  }
};

FillScenario load(const std::string& path) {
  auto scenario = load_fill_scenario(path);
  INFO((scenario.ok() ? std::string() : scenario.error().message));
  REQUIRE(scenario.ok());
  return std::move(scenario).value();
}

std::string load_error(const std::string& path) {
  const auto scenario = load_fill_scenario(path);
  return scenario.ok() ? "" : scenario.error().message;
}

}  // namespace

TEST_CASE("sim::fill protocol stops at the requested load", "[sim][fill]") {
  const SmallTrace trace;
  const FillScenario scenario = load(trace.scenario(""));
  auto inputs = load_fill_inputs(scenario);
  REQUIRE(inputs.ok());
  SECTION("the cluster is the 3 GPU nodes (14 GPUs); the invalid pod is marked rejected with its reason") {
    CHECK(inputs->nodes.size() == 3);
    CHECK(inputs->gpus == 14);
    CHECK(inputs->pod_rejected == std::vector<char>{0, 0, 0, 0, 0, 1});
    CHECK(inputs->rejections == std::vector<std::string>{"p5: gpu_milli 0 is below the minimum 1"});
  }
  SECTION("arrivals stop at the first pod that brings the GPU request to 130% of 14 GPUs (18200 milli)") {
    const FillRun run = run_fill_once(*inputs, SharePolicyKind::Fgd, 5, 1.3);
    CHECK(run.arrived_milli >= 18200);
    CHECK(run.arrived_milli - run.last_pod_milli < 18200);
    CHECK(run.pods_arrived == run.pods_placed + run.pods_failed + run.pods_rejected);
    CHECK(run.pods_failed > 0);  // 130% cannot all fit
  }
  SECTION("the curve has a point at every 1% from 0 to 130%, allocation never decreases") {
    const FillRun run = run_fill_once(*inputs, SharePolicyKind::BestFit, 9, 1.3);
    REQUIRE(run.curve.size() == 131);
    CHECK(run.curve.front().gpu_alloc_ratio == 0);
    for (size_t p = 0; p < run.curve.size(); ++p) {
      CHECK(run.curve[p].load_percent == static_cast<int>(p));
      if (p > 0) CHECK(run.curve[p].gpu_alloc_ratio >= run.curve[p - 1].gpu_alloc_ratio);
      CHECK(run.curve[p].gpu_alloc_ratio <= 1.0);
    }
    CHECK(run.final.gpu_alloc_ratio >= run.curve.back().gpu_alloc_ratio);
  }
  SECTION("a 50% target gives 51 points and stops at 7000 milli") {
    const FillRun run = run_fill_once(*inputs, SharePolicyKind::Binpack, 1, 0.5);
    CHECK(run.curve.size() == 51);
    CHECK(run.arrived_milli >= 7000);
    CHECK(run.arrived_milli - run.last_pod_milli < 7000);
  }
  SECTION("include_cpu_nodes adds the CPU-only node, not its GPUs") {
    const auto with_cpu = load_fill_inputs(load(trace.scenario(R"(, "include_cpu_nodes": true)")));
    REQUIRE(with_cpu.ok());
    CHECK(with_cpu->nodes.size() == 4);
    CHECK(with_cpu->gpus == 14);
  }
}

TEST_CASE("sim::fill determinism", "[sim][fill]") {
  const SmallTrace trace;
  const FillScenario scenario = load(trace.scenario(R"(, "seeds": 3, "seed": 11)"));
  SECTION("two runs with the same seeds give identical result JSON") {
    const auto a = run_fill(scenario, 1);
    const auto b = run_fill(scenario, 1);
    REQUIRE((a.ok() && b.ok()));
    CHECK(render_fill_json(*a) == render_fill_json(*b));
  }
  SECTION("1 thread and 2 threads give identical result JSON") {
    const auto one = run_fill(scenario, 1);
    const auto two = run_fill(scenario, 2);
    REQUIRE((one.ok() && two.ok()));
    CHECK(render_fill_json(*one) == render_fill_json(*two));
  }
  SECTION("runs are policy-major with seeds base, base + 1, ...; every policy by default") {
    const auto result = run_fill(scenario, 2);
    REQUIRE(result.ok());
    REQUIRE(result->runs.size() == share_policy_names().size() * 3);
    CHECK(result->runs[0].seed == 11);
    CHECK(result->runs[2].seed == 13);
    CHECK(result->runs[3].policy == SharePolicyKind::Spread);
    CHECK(result->runs[0].pods_arrived == result->runs[3].pods_arrived);  // same pod sequence per seed
  }
}

TEST_CASE("sim::fill scenario errors name the JSON path", "[sim][fill]") {
  const SmallTrace trace;
  SECTION("an unknown policy, with a suggestion") {
    CHECK_THAT(load_error(trace.scenario(R"(, "policies": ["binpack", "fdg"])")),
               Catch::Contains("fill.json: /policies/1: unknown policy 'fdg'") && Catch::Contains("did you mean 'fgd'?"));
  }
  SECTION("seeds 0, target_load 0, a misspelt key, the wrong mode") {
    CHECK_THAT(load_error(trace.scenario(R"(, "seeds": 0)")), Catch::Contains("/seeds: must be an integer in 1..100000, got 0"));
    CHECK_THAT(load_error(trace.scenario(R"(, "target_load": 0)")), Catch::Contains("/target_load: must be a number in (0, 10], got 0"));
    CHECK_THAT(load_error(trace.scenario(R"(, "seed_count": 3)")), Catch::Contains("/seed_count: unknown key"));
    const std::string path = trace.dir.file("other.json");
    std::ofstream(path) << R"({"mode": "gang", "node_list": "x", "pod_list": "y"})";
    CHECK_THAT(load_error(path), Catch::Contains("other.json: /mode: must be \"fill\""));
    CHECK_FALSE(is_fill_scenario(path));
    CHECK(is_fill_scenario(trace.scenario("")));
  }
  SECTION("a missing trace file and a missing key") {
    const std::string path = trace.dir.file("missing.json");
    std::ofstream(path) << R"({"mode": "fill", "node_list": "/nonexistent/nodes.csv"})";
    CHECK_THAT(load_error(path), Catch::Contains("missing.json: /node_list: '/nonexistent/nodes.csv': no such file"));
    std::ofstream(path) << R"({"mode": "fill", "node_list": ")" << trace.nodes << R"("})";
    CHECK_THAT(load_error(path), Catch::Contains("/pod_list: missing required key"));
  }
  SECTION("relative trace paths resolve against the given traces folder") {
    const std::string path = trace.dir.file("relative.json");
    std::ofstream(path) << R"({"mode": "fill", "node_list": "nodes.csv", "pod_list": "pods.csv"})";
    const auto scenario = load_fill_scenario(path, trace.dir.path.string());
    REQUIRE(scenario.ok());
    CHECK(scenario->node_list == trace.nodes);
    CHECK(scenario->node_list_source == "nodes.csv");
  }
}

TEST_CASE("sim::fill report", "[sim][fill][report]") {
  const SmallTrace trace;
  const auto result = run_fill(load(trace.scenario(R"(, "seeds": 2, "policies": ["fgd", "random"])")), 2);
  REQUIRE(result.ok());
  SECTION("text: one row per policy with mean ± sd, and the rejection reason") {
    const std::string text = render_fill_text(*result);
    CHECK_THAT(text, Catch::Contains("\nfgd ") && Catch::Contains("\nrandom ") && Catch::Contains(" ± "));
    CHECK_THAT(text, Catch::Contains("rejected at submission: p5: gpu_milli 0 is below the minimum 1"));
  }
  SECTION("JSON: per policy the final statistics, the mean curve over 0..130% and each seed's run") {
    const auto json = nlohmann::json::parse(render_fill_json(*result));
    REQUIRE(json["policies"].size() == 2);
    const auto& fgd = json["policies"][0];
    CHECK(fgd["policy"] == "fgd");
    CHECK(fgd["mean_curve"]["load_percent"].size() == 131);
    CHECK(fgd["mean_curve"]["gpu_alloc_ratio"].size() == 131);
    CHECK(fgd["runs"].size() == 2);
    CHECK(fgd["final"]["gpu_alloc_ratio"]["mean"].get<double>() > 0);
    CHECK(json["cluster"]["gpus"] == 14);
  }
}

TEST_CASE("sim::fill on the Alibaba default trace", "[sim][fill][shared]") {
  const std::string scenario_path = std::string(TOPSIM_SOURCE_DIR) + "/scenarios/fgd-openb-default.json";
  if (test::shared_file("traces").empty()) return;
  const FillScenario scenario = load(scenario_path);
  SECTION("the shipped scenario: GPU node list and default pod list under ../shared, all policies, 10 seeds, 130%") {
    CHECK(scenario.node_list_source == "alibaba-gpu-v2023/openb_node_list_gpu_node.csv");
    CHECK(scenario.pod_list_source == "alibaba-gpu-v2023/openb_pod_list_default.csv");
    CHECK(scenario.seeds == 10);
    CHECK(scenario.target_load == 1.3);
    CHECK(scenario.policies.size() == share_policy_names().size());
  }
  SECTION("one seed: fgd allocates more than random and above 90% of the GPUs") {
    auto inputs = load_fill_inputs(scenario);
    REQUIRE(inputs.ok());
    CHECK(inputs->gpus == 6212);
    const FillRun fgd = run_fill_once(*inputs, SharePolicyKind::Fgd, 1, 1.3);
    const FillRun random = run_fill_once(*inputs, SharePolicyKind::Random, 1, 1.3);
    CHECK(fgd.arrived_milli >= static_cast<int64_t>(1.3 * 6212000));
    CHECK(fgd.final.gpu_alloc_ratio > 0.9);
    CHECK(fgd.final.gpu_alloc_ratio > random.final.gpu_alloc_ratio);
  }
}

TEST_CASE("sim::fill shipped scenarios load", "[sim][fill][shared]") {
  if (test::shared_file("traces").empty()) return;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TOPSIM_SOURCE_DIR) + "/scenarios")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("fgd-openb-", 0) != 0) continue;
    INFO(name);
    const auto scenario = load_fill_scenario(entry.path().string());
    CHECK(scenario.ok());
    ++count;
  }
  CHECK(count == 10);
}
