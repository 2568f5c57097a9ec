// The scenario's "tenancy" section: a Kueue folder read, jobs' queues bound to it, a run under
// quota; and its refusals.
#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

std::string example_queues() { return std::string(TOPSIM_SOURCE_DIR) + "/scenarios/queues/example-kueue"; }

std::string two_jobs(const std::string& queue_b) {
  return R"([{"name": "a1", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 100, "queue": "team-a"},
             {"name": "b1", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 100, "queue": ")" +
         queue_b + R"("}])";
}

std::string tenancy(const std::string& extra = "") {
  return R"(, "tenancy": {"queues": ")" + example_queues() + R"(", "checkpoint_every_s": 600)" + extra + "}";
}

}  // namespace

TEST_CASE("scenario::tenancy binds the jobs' LocalQueues and runs under quota", "[scenario][kueue]") {
  const Scenario s = scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", two_jobs("team-b"), tenancy()));
  REQUIRE(s.tenancy);
  CHECK(s.checkpoint.every_ms == 600'000);
  const RunResult r = run(s, "topology-aware");
  CHECK(metric(r, "finished@team-a") == 1);
  CHECK(metric(r, "finished@team-b") == 1);
  CHECK(metric(r, "nominal_gpus@team-a") == 64);
  CHECK(metric(r, "evictions") == 0);
  CHECK(record(r, s, "b1").admitted_ms == 0);
}

TEST_CASE("scenario::tenancy refuses an unknown queue, a missing folder and a fill experiment", "[scenario][kueue]") {
  auto error = [](const std::string& json) {
    auto s = parse_scenario(json, "t.json", "");
    REQUIRE(!s.ok());
    return s.error().message;
  };
  const std::string nodes = R"([{"model": "dgx1-v100", "count": 2}])";
  CHECK_THAT(error(scenario_json(nodes, two_jobs("team-z"), tenancy())),
             Catch::Contains("jobs name queue \"team-z\"") && Catch::Contains("neither a LocalQueue nor a ClusterQueue"));
  CHECK_THAT(error(scenario_json(nodes, two_jobs("team-b"), R"(, "tenancy": {"queues": "/nonexistent/queues"})")),
             Catch::Contains("/nonexistent/queues"));
  CHECK_THAT(error(scenario_json(nodes, two_jobs("team-b"), tenancy(R"(, "restart_overhead_s": -1)"))),
             Catch::Contains("/tenancy/restart_overhead_s"));
  CHECK_THAT(error(scenario_json(nodes, two_jobs("team-b"), tenancy(R"(, "queue_of": {"x": 3})"))),
             Catch::Contains("/tenancy/queue_of/x"));
}
