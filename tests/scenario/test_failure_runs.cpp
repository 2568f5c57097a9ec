// Runs with failing nodes (sim/failures.h in the engine): a failure at a known time costs exactly
// the training since the last checkpoint and the restart; the job waits for the repair or
// restarts elsewhere; checkpoint writes lengthen runs; the failures do not depend on the
// scheduler; the scenario keys and their refusals. Worked by hand.
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// One 8-GPU job of 1000 s (ResNet-50, measured on the cluster's V100s) at 0.
constexpr const char* kOneJob =
    R"([{"name": "j", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000}])";

// `nodes` DGX-1, checkpoints every 100 s (`write_s` each) with a 30 s restart, and node 0 down at
// 250 s for 500 s from a trace in `dir`.
Scenario failing(const TempDir& dir, int nodes, double write_s = 0) {
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,gpu\n";
  const std::string extra = R"(, "checkpoints": {"every_s": 100, "write_s": )" + std::to_string(write_s) +
                            R"(, "restart_s": 30}, "failures": {"rates": "none", "trace": "incidents.csv"})";
  return scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": )" + std::to_string(nodes) + "}]", kOneJob, extra),
                       dir.path.string());
}

}  // namespace

TEST_CASE("sim::failures a failure at a known time loses the training since the last checkpoint", "[sim][failures]") {
  TempDir dir;
  const Scenario s = failing(dir, 1);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& j = record(r, s, "j");
  // Expected: at 250 s it had saved 200 s (checkpoints at 100 and 200 s) and loses 50 s; its only
  // node comes back at 750 s, and it runs the 30 s restart and the 800 s left.
  CHECK(j.state == JobState::Finished);
  CHECK(j.interruptions == 1);
  CHECK(j.recompute_ms == 50'000);
  CHECK(j.restart_ms == 30'000);
  CHECK(j.requeue_ms == 500'000);
  CHECK(j.start_ms == 0);
  CHECK(j.finish_ms == 750'000 + 30'000 + 800'000);
  CHECK(metric(r, "node_failures") == 1);
  CHECK(metric(r, "node_failures.gpu") == 1);
  CHECK(metric(r, "interruptions.gpu") == 1);
  CHECK(metric(r, "failure_lost_gpu_hours") == Approx((50.0 + 30) * 8 / 3600));
  CHECK(metric(r, "requeue_gpu_hours") == Approx(500.0 * 8 / 3600));
  // Effective training time: the 1000 s of training that counted over 1580 s from start to end.
  CHECK(metric(r, "ettr.mean") == Approx(1000.0 / 1580));
  CHECK(metric(r, "goodput") == Approx(1000.0 / 1580));
  CHECK(metric(r, "gpus_down.max") == 8);
}

TEST_CASE("sim::failures an interrupted job restarts at once on another node", "[sim][failures]") {
  TempDir dir;
  const Scenario s = failing(dir, 2);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& j = record(r, s, "j");
  REQUIRE(j.pods.size() == 1);
  CHECK(j.pods.front().node == 1);  // node 0 is down
  CHECK(j.requeue_ms == 0);
  CHECK(j.finish_ms == 250'000 + 30'000 + 800'000);
}

TEST_CASE("sim::failures checkpoint writes lengthen a run and are what a stop keeps", "[sim][failures]") {
  TempDir dir;
  const Scenario s = failing(dir, 1, 10);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& j = record(r, s, "j");
  // Expected: cycles of 100 s training + 10 s writing. At 250 s two cycles (220 s) are done, 200 s
  // saved; 30 s of training lost. Restarted at 750 s: 30 s overhead, then 800 s of training with 7
  // writes (after 100, ..., 700 s) of 10 s.
  CHECK(j.recompute_ms == 30'000);
  CHECK(j.finish_ms == 750'000 + 30'000 + 800'000 + 70'000);
  CHECK(j.checkpoint_ms == 20'000 + 70'000);
  CHECK(metric(r, "checkpoint_gpu_hours") == Approx(90.0 * 8 / 3600));
}

TEST_CASE("sim::failures the same seed draws the same failures whatever the scheduler", "[sim][failures]") {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 36000},
          {"name": "b", "submit_s": 60, "workers": 4, "gpus_per_worker": 2, "model": "vgg16", "duration_s": 36000}])";
  // H100 rates x 2,000: a failure every few hours on four nodes.
  const Scenario s = scenario_from(scenario_json(R"([{"model": "hgx-h100", "count": 4}])", jobs,
                                                 R"(, "checkpoints": {"every_s": 600, "restart_s": 60},
                                                     "failures": {"scale": 2000})"));
  const RunResult ta = run(s, "topology-aware"), def = run(s, "default");
  REQUIRE(ta.failures.size() > 3);
  // Expected: the runs end at different times; up to the shorter one, the same failures.
  const double end_ms = 1000 * std::min(metric(ta, "makespan_s"), metric(def, "makespan_s"));
  size_t compared = 0;
  for (size_t i = 0; i < ta.failures.size() && ta.failures[i].at_ms < end_ms; ++i, ++compared) {
    REQUIRE(i < def.failures.size());
    CHECK(ta.failures[i].at_ms == def.failures[i].at_ms);
    CHECK(ta.failures[i].node == def.failures[i].node);
    CHECK(ta.failures[i].cause == def.failures[i].cause);
  }
  CHECK(compared > 3);
  CHECK(metric(ta, "interruptions") > 0);
  CHECK(record(ta, s, "a").state == JobState::Finished);
  CHECK(record(def, s, "b").state == JobState::Finished);
}

TEST_CASE("sim::failures scenario keys: defaults by GPU, overrides, and one-line refusals", "[sim][failures]") {
  auto error = [](const std::string& json) {
    auto s = parse_scenario(json, "t.json", "");
    REQUIRE(!s.ok());
    return s.error().message;
  };
  const std::string v100 = R"([{"model": "dgx1-v100", "count": 1}])";
  CHECK_THAT(error(scenario_json(v100, kOneJob, R"(, "failures": {})")),
             Catch::Contains("t.json: /failures") && Catch::Contains("no built-in failure rates"));
  CHECK_THAT(error(scenario_json(v100, kOneJob, R"(, "failures": {"causes": {"disk": {"per_node_day": 1}}})")),
             Catch::Contains("/failures/causes/disk"));
  CHECK_THAT(error(scenario_json(v100, kOneJob, R"(, "failures": {"rates": "none"})")),
             Catch::Contains("/failures/rates") && Catch::Contains("no node would ever fail"));
  CHECK_THAT(error(scenario_json(v100, kOneJob, R"(, "checkpoints": {"write_s": 10})")), Catch::Contains("/checkpoints/write_s"));
  const Scenario s = scenario_from(scenario_json(v100, kOneJob, R"(, "failures": {"causes": {"gpu": {"per_gpu_day": 0.001,
      "repair_h": 12, "repair_sigma": 0.5}}})"));
  REQUIRE(s.failures);
  const FailureRates rates = resolve_failure_rates(*s.failures, find_gpu_model("v100"));
  CHECK(rates.per_node_hour(8) == Approx(0.008 / 24));
  CHECK(rates.causes[0].repair.median_h == 12);
}
