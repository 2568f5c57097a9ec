// `topsim schedulers [--json]`, and every listed scheduler accepted by `topsim run` in a replay.
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

using nlohmann::json;
using topsim::test::run_cli;
using topsim::test::TempDir;

namespace {

// Whole-GPU jobs on two nodes that follow the scheduler's label, GPU shares on a share node.
constexpr const char* kReplay = R"({
  "cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}, {"model": "dgx1-v100", "label": "share"}],
              "network": {"nic_speed_gbit": 100}},
  "workload": {"kind": "jobs", "jobs": [
    {"name": "gang", "submit_s": 0, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 60},
    {"name": "single", "submit_s": 5, "workers": 1, "gpus_per_worker": 2, "model": "vgg16", "duration_s": 30},
    {"name": "share", "submit_s": 0, "gpu_mem_gib": 4, "duration_s": 30, "count": 3}]},
  "schedulers": ["%NAME%"]
})";

}  // namespace

TEST_CASE("cli::schedulers lists every scheduler, as a table and as JSON", "[cli][scheduler]") {
  SECTION("the table: one line per scheduler, with what it places") {
    const auto r = run_cli("schedulers");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("NAME"));
    for (const char* name : {"topology-aware", "default", "binpack", "fgd", "gpu-clustering"})
      CHECK_THAT(r.out, Catch::Contains(name));
    CHECK_THAT(r.out, Catch::Contains("whole-GPU gangs, GPU shares, trace pods"));
    CHECK_THAT(r.out, Catch::Contains("\"protocol\": \"fgd-artifact\""));  // which versions run under it
    CHECK_THAT(r.out, Catch::Contains("fgd-pack"));
  }
  SECTION("--json: fifteen schedulers with name, summary, handles, label and the source file that holds the policy") {
    const auto r = run_cli("schedulers --json");
    REQUIRE(r.exit_code == 0);
    const json list = json::parse(r.out).at("schedulers");
    REQUIRE(list.size() == 15);
    bool binpack = false;
    for (const json& s : list) {
      CHECK_FALSE(s.at("summary").get<std::string>().empty());
      CHECK_FALSE(s.at("handles").empty());
      CHECK(std::filesystem::is_regular_file(std::filesystem::path(TOPSIM_SOURCE_DIR) / s.at("source").get<std::string>()));
      if (s.at("name") == "binpack") {
        binpack = true;
        CHECK(s.at("handles") == json::array({"whole-GPU gangs", "GPU shares", "trace pods"}));
        CHECK(s.at("serves_label") == "default");
      }
    }
    CHECK(binpack);
  }
  SECTION("--help explains the columns") {
    const auto r = run_cli("schedulers --help");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("docs/schedulers.md"));
  }
}

TEST_CASE("cli::run accepts every scheduler of the registry in a replay scenario", "[cli][scheduler]") {
  const auto list = json::parse(run_cli("schedulers --json").out).at("schedulers");
  TempDir dir;
  for (const json& entry : list) {
    const std::string name = entry.at("name");
    INFO(name);
    std::string text = kReplay;
    text.replace(text.find("%NAME%"), 6, name);
    std::ofstream(dir.file(name + ".json")) << text;
    const auto r = run_cli("run '" + dir.file(name + ".json") + "' -o '" + dir.file(name) + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json results = json::parse(topsim::test::read_text(dir.file(name + "/results.json")));
    REQUIRE(results.at("schedulers").size() == 1);
    const json& metrics = results.at("schedulers")[0].at("runs")[0].at("metrics");
    CHECK(results.at("schedulers")[0].at("name") == name);
    CHECK(metrics.at("finished") == 5);  // every job ran, whatever placed it
    CHECK(metrics.at("share_jobs") == 3);
  }
}
