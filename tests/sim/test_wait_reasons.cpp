// The reason a job never placed carries is the scheduler's binding one, not "not enough free
// GPUs" while GPUs sat idle: no network path between nodes without NICs, the gang's shape, the
// free GPUs against the job's.
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
