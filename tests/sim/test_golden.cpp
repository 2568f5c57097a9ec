// Golden figures of the shipped scenarios: every metric of every scheduler (the mean over seeds)
// and, for small workloads, every job's predicted throughput, pinned in tests/golden/<name>.json.
// A change that moves a figure fails here; when the change is meant, regenerate with
//   TOPSIM_UPDATE_GOLDEN=1 build/tests/topsim_tests "[golden]"
// and review the diff of tests/golden/ (the figures before and after are both in it).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scenario/scenario_loader.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using nlohmann::ordered_json;

namespace {

constexpr size_t kMaxJobFigures = 20;  // per-job figures for workloads this small

// Every metric of one run (its seed's figures).
ordered_json run_metrics(const RunResult& run) {
  ordered_json metrics = ordered_json::object();
  for (const Metric& m : run.metrics.all()) metrics[m.name] = m.value;
  return metrics;
}

ordered_json figures(const ResultSet& results) {
  ordered_json out;
  out["scenario"] = results.scenario.name;
  for (const SchedulerResult& s : results.schedulers) {
    ordered_json metrics = ordered_json::object();
    for (const MetricSummary& m : s.metrics) metrics[m.name] = m.over_seeds.mean;
    out["schedulers"][s.name]["metrics"] = metrics;
    const RunResult& run = s.runs.front();
    // With several seeds, the first seed's own figures too: the sanitizer build replays that
    // seed alone and checks them (check_golden).
    if (results.scenario.seeds > 1) out["schedulers"][s.name]["first_seed"] = run_metrics(run);
    if (run.jobs.empty() || run.jobs.size() > kMaxJobFigures) continue;
    for (uint32_t id = 0; id < run.jobs.size(); ++id)
      out["schedulers"][s.name]["samples_per_sec"][run.workload->job_name(id)] = run.jobs[id].samples_per_sec;
  }
  return out;
}

void check_same(const ordered_json& expected, const ordered_json& actual, const std::string& path) {
  if (expected.is_object()) {
    CHECK(expected.size() == actual.size());
    for (const auto& [key, value] : expected.items()) {
      INFO(path + "/" + key);
      REQUIRE(actual.contains(key));
      check_same(value, actual.at(key), path + "/" + key);
    }
  } else if (expected.is_number()) {
    const double want = expected.get<double>(), got = actual.get<double>();
    INFO(path << ": pinned " << want << ", now " << got);
    CHECK(std::abs(got - want) <= 1e-9 * std::max(1.0, std::abs(want)));
  } else {
    CHECK(expected == actual);
  }
}

void check_golden(const std::string& scenario_name, bool needs_traces) {
  if (needs_traces && test::shared_file("traces").empty()) return;
  auto scenario = load_scenario(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/" + scenario_name + ".json");
  REQUIRE(scenario.ok());
#ifdef TOPSIM_SANITIZED
  // Under ASan + UBSan a run is 10-20x slower: a scenario of several seeds replays its first seed
  // only (the same code on every path; seeds are independent runs) and checks that seed's pinned
  // figures. The full set is checked by the regular build.
  if (scenario->seeds > 1) {
    REQUIRE_FALSE(std::getenv("TOPSIM_UPDATE_GOLDEN"));  // goldens are written by the regular build
    scenario->seeds = 1;
    const ResultSet results = test::run_all(*scenario, 2);
    const auto expected = test::golden(scenario_name, {});
    REQUIRE(expected);
    for (const SchedulerResult& s : results.schedulers) {
      INFO(s.name);
      REQUIRE(expected->at("schedulers").contains(s.name));
      check_same(expected->at("schedulers").at(s.name).at("first_seed"), run_metrics(s.runs.front()),
                 "/schedulers/" + s.name + "/first_seed");
    }
    CHECK(results.schedulers.size() == expected->at("schedulers").size());
    return;
  }
#endif
  const ordered_json actual = figures(test::run_all(*scenario, 2));
  if (const auto expected = test::golden(scenario_name, actual)) check_same(*expected, actual, "");
}

}  // namespace

TEST_CASE("golden: the brief's benchmark (the TF and PyTorch table)", "[sim][golden]") {
  check_golden("ack-v100-benchmark", false);
}
TEST_CASE("golden: mixed H100 / A100, synthetic workload", "[sim][golden]") { check_golden("mixed-h100-a100-synthetic", false); }
TEST_CASE("golden: Philly on 552 nodes", "[sim][golden][shared]") { check_golden("philly-552-nodes", true); }
TEST_CASE("golden: Philly on DGX A100", "[sim][golden][shared]") { check_golden("philly-dgx-a100", true); }
TEST_CASE("golden: Alibaba 2023 replay", "[sim][golden][shared]") { check_golden("alibaba-2023-replay", true); }
TEST_CASE("golden: Alibaba 2023 with GPU shares on modelled nodes", "[sim][golden][shared]") {
  check_golden("alibaba-2023-shared-topology", true);
}
TEST_CASE("golden: Alibaba 2023 pods on 2% of the trace's nodes", "[sim][golden][shared]") {
  check_golden("alibaba-share-replay", true);
}
TEST_CASE("golden: the FGD table (fill, default pod list, 8 schedulers x 10 seeds)", "[sim][golden][shared]") {
  check_golden("fgd-openb-default", true);
}
TEST_CASE("golden: the FGD table under the artifact's protocol (7 schedulers x 10 seeds)", "[sim][golden][shared]") {
  check_golden("fgd-artifact-default", true);
}
