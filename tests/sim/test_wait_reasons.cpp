// The reason a job never placed carries is the scheduler's binding one, not "not enough free
// GPUs" while GPUs sat idle: no network path between nodes without NICs, the gang's shape, the
// free GPUs against the job's.
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

TEST_CASE("sim::never placed gang on nodes without NICs says there is no NIC path", "[sim]") {
  TempDir dir;
  const Scenario scenario = gang_without_nic_path(dir.path.string());
  const RunResult result = run(scenario, "topology-aware");
  const JobRecord& big = record(result, scenario, "big");
  // Expected: the gang waits to the end with 16 GPUs idle, and the reason names the NICs.
  CHECK(big.state == JobState::Pending);
  CHECK(big.reason == "never placed: no NIC path: its 2 pods of 8 GPUs need several nodes and no node serving it has a NIC");
  CHECK(record(result, scenario, "small").state == JobState::Finished);
}

TEST_CASE("sim::admission per job shape: a job that needs NICs is refused after and before one that does not", "[sim]") {
  // The node-type check is answered once per shape (model, framework, batch, LLM, NICs needed):
  // jobs of one model alternate between one pod and two, and each gets its own shape's answer.
  TempDir dir;
  std::ofstream((dir.path / "no-nic.json").string()) << kNodeWithoutNicJson;
  const std::string jobs =
      R"([{"name": "one", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "iterations": 100},
          {"name": "two", "submit_s": 1, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100},
          {"name": "three", "submit_s": 2, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "iterations": 100},
          {"name": "four", "submit_s": 3, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  const Scenario scenario = scenario_from(
      scenario_json(R"([{"model": "no-nic.json", "count": 2, "label": "default"}])", jobs, R"(, "schedulers": ["default"])"),
      dir.path.string());
  const RunResult result = run(scenario, "default");
  for (const char* name : {"one", "three"}) CHECK(record(result, scenario, name).state == JobState::Finished);
  for (const char* name : {"two", "four"}) {
    const JobRecord& r = record(result, scenario, name);
    CHECK(r.state == JobState::Rejected);
    CHECK(r.reason == "node type no-nic has no NIC: its pods cannot reach pods on other nodes");
  }
}
