#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "reports/share_replay_report.h"
#include "sim/share_replay.h"
#include "test_support.h"

using namespace topsim;

namespace {

// One node with 2 T4 cards. p0 takes 600 thousandths of one card (0..30 s), p1 the other card
// whole (0..100 s); p2 (whole card, arrives at 10 s, no scheduled time: runs 50 - 10 = 40 s)
// finds no idle card and waits until p0 departs at 30 s.
struct TinyTrace {
  test::TempDir dir;
  std::string nodes = dir.file("nodes.csv");
  std::string pods = dir.file("pods.csv");
  TinyTrace() {
    std::ofstream(nodes) << "sn,cpu_milli,memory_mib,gpu,model\n"
                            "n0,64000,262144,2,T4\n";
    std::ofstream(pods) << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
                           "scheduled_time\n"
                           "p0,1000,1024,1,600,,LS,Running,0,30,0\n"
                           "p1,1000,1024,1,1000,,LS,Running,0,100,0\n"
                           "p2,1000,1024,1,1000,,LS,Running,10,50,\n";
  }
  std::string scenario(const std::string& body) const {
    const std::string path = dir.file("replay.json");
    std::ofstream(path) << body;
    return path;
  }
  std::string valid_scenario() const {
    return scenario(R"({"mode": "share-replay", "node_list": "nodes.csv", "pod_list": "pods.csv", "sample_every_s": 10})");
  }
};

ShareReplayResult replay(const std::string& path) {
  auto scenario = load_share_replay_scenario(path);
  INFO((scenario.ok() ? std::string() : scenario.error().message));
  REQUIRE(scenario.ok());
  auto result = run_share_replay(*scenario);
  INFO((result.ok() ? std::string() : result.error().message));
  REQUIRE(result.ok());
  return std::move(result).value();
}

const ShareReplaySample& sample_at(const ShareReplayRun& run, int64_t time_s) {
  const auto it = std::find_if(run.curve.begin(), run.curve.end(), [&](const ShareReplaySample& s) { return s.time_s == time_s; });
  REQUIRE(it != run.curve.end());
  return *it;
}

}  // namespace

TEST_CASE("sim::share-replay a pod waits for a departure, then starts", "[sim][share-replay]") {
  const TinyTrace trace;
  const ShareReplayResult result = replay(trace.valid_scenario());
  REQUIRE(result.pods == 3);
  REQUIRE(result.runs.size() == share_policy_names().size());
  for (const ShareReplayRun& run : result.runs) {
    INFO(share_policy_name(run.policy));
    {
      // p0 and p1 start on arrival; p2 starts exactly when p0 departs (30 s), after 20 s of wait.
      CHECK(run.start_s == std::vector<int64_t>{0, 0, 30});
      CHECK(run.pods_placed == 3);
      CHECK(run.never_placed == 0);
      CHECK(run.peak_pending == 1);
      CHECK(run.mean_wait_s == Approx(20.0 / 3));
      CHECK(run.p95_wait_s == 20);
      CHECK(run.end_s == 100);
    }
    // The 400 free thousandths beside p0 fit no pod of the workload (all ask 600 or more):
    // fragmented while p2 waits, gone once p0 departs and p2 takes the card.
    CHECK(sample_at(run, 20).frag_gpus > 0);
    CHECK(sample_at(run, 20).pending == 1);
    CHECK(sample_at(run, 20).running == 2);
    CHECK(sample_at(run, 30).frag_gpus == 0);
    CHECK(sample_at(run, 30).pending == 0);
    CHECK(sample_at(run, 30).gpu_alloc_ratio == Approx(1.0));
    CHECK(sample_at(run, 100).running == 0);
    CHECK(sample_at(run, 100).gpu_alloc_ratio == 0);
  }
}

TEST_CASE("sim::share-replay is deterministic", "[sim][share-replay]") {
  // Same input, same JSON, byte for byte.
  const TinyTrace trace;
  const std::string first = render_share_replay_json(replay(trace.valid_scenario()));
  const std::string second = render_share_replay_json(replay(trace.valid_scenario()));
  CHECK(first == second);
  CHECK(first.find("\"p95_wait_s\": 20.0") != std::string::npos);
}

TEST_CASE("sim::share-replay scenario errors name the JSON pointer", "[sim][share-replay]") {
  const TinyTrace trace;
  SECTION("missing pod_list") {
    // The error names the file and /pod_list.
    const std::string path = trace.scenario(R"({"mode": "share-replay", "node_list": "nodes.csv"})");
    const auto scenario = load_share_replay_scenario(path);
    REQUIRE_FALSE(scenario.ok());
    CHECK(scenario.error().message == path + ": /pod_list: missing required key");
  }
  SECTION("unknown policy") {
    // The pointer names the array element.
    const std::string path = trace.scenario(
        R"({"mode": "share-replay", "node_list": "nodes.csv", "pod_list": "pods.csv", "policies": ["fgd", "bestfit"]})");
    const auto scenario = load_share_replay_scenario(path);
    REQUIRE_FALSE(scenario.ok());
    CHECK(scenario.error().message.find("/policies/1: unknown policy 'bestfit'") != std::string::npos);
  }
  SECTION("sample period 0") {
    // Sampling needs a positive period.
    const std::string path = trace.scenario(
        R"({"mode": "share-replay", "node_list": "nodes.csv", "pod_list": "pods.csv", "sample_every_s": 0})");
    const auto scenario = load_share_replay_scenario(path);
    REQUIRE_FALSE(scenario.ok());
    CHECK(scenario.error().message.find("/sample_every_s: must be an integer") != std::string::npos);
  }
}

TEST_CASE("sim::share-replay the default Alibaba pod list with every policy", "[sim][share-replay][real]") {
  const std::string scenario_path = std::string(TOPSIM_SOURCE_DIR) + "/scenarios/alibaba-share-replay.json";
  if (test::shared_file("traces/alibaba-gpu-v2023/openb_pod_list_default.csv").empty()) return;
  const ShareReplayResult result = replay(scenario_path);
  REQUIRE(result.runs.size() == share_policy_names().size());
  for (const ShareReplayRun& run : result.runs) {
    INFO(share_policy_name(run.policy));
    // Every timed pod is placed, rejected or still waiting; the waits form a distribution.
    const int64_t waiting_or_done = run.pods_placed + run.pods_rejected + run.never_placed;
    CHECK(waiting_or_done == static_cast<int64_t>(result.pods));
    CHECK(run.pods_placed > 0);
    CHECK(run.p95_wait_s >= 0);
    CHECK(run.mean_wait_s >= 0);
    CHECK(run.curve.size() > 100);
  }
}

TEST_CASE("cli::run dispatches share-replay scenarios", "[cli][share-replay]") {
  const TinyTrace trace;
  SECTION("valid scenario") {
    // Exit 0, one table row per policy, results.json written to -o.
    const test::CliResult result = test::run_cli("run " + trace.valid_scenario() + " -o " + trace.dir.file("out"));
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out.find("share-replay replay: 1 nodes, 2 GPUs, 3 timed pods") != std::string::npos);
    CHECK(result.out.find("fgd") != std::string::npos);
    CHECK(std::filesystem::is_regular_file(trace.dir.file("out/results.json")));
  }
  SECTION("missing pod_list") {
    // Exit 2 and one line naming the JSON pointer.
    const std::string path = trace.scenario(R"({"mode": "share-replay", "node_list": "nodes.csv"})");
    const test::CliResult result = test::run_cli("run " + path);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("/pod_list: missing required key") != std::string::npos);
  }
}
