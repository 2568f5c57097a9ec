// The fabric-tier plug-ins: Kueue TAS (sim/schedulers/kueue_tas.cpp) and Volcano's
// network-topology-aware scheduling (sim/schedulers/volcano_topology.cpp), on four DGX A100
// nodes in racks of two.
#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

Scenario gang_with(int workers, const std::string& annotations, const std::string& scheduler) {
  const std::string jobs = R"([{"name": "g", "submit_s": 0, "workers": )" + std::to_string(workers) +
                           R"(, "gpus_per_worker": 8, "model": "vgg16", "iterations": 20, "annotations": {)" + annotations +
                           "}}]";
  return scenario_from(scenario_json(R"([{"model": "dgx-a100", "count": 4}])", jobs,
                                     R"(, "schedulers": [")" + scheduler + R"("])",
                                     R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2}]})"));
}

}  // namespace

TEST_CASE("scenario::kueue-tas a required level holds the gang in one domain or keeps it waiting", "[scenario]") {
  const Scenario fits = gang_with(2, R"("kueue.x-k8s.io/podset-required-topology": "rack")", "kueue-tas");
  const RunResult fits_run = run(fits, "kueue-tas");
  const JobRecord& g = record(fits_run, fits, "g");
  REQUIRE(g.state == JobState::Finished);
  CHECK(g.pods[0].node / 2 == g.pods[1].node / 2);
  CHECK(g.host_network);

  const Scenario too_big = gang_with(3, R"("kueue.x-k8s.io/podset-required-topology": "rack")", "kueue-tas");
  const RunResult too_big_run = run(too_big, "kueue-tas");
  const JobRecord& w = record(too_big_run, too_big, "g");
  CHECK(w.state == JobState::Pending);
  CHECK_THAT(w.reason, Catch::Contains("no rack has room for all 3 pods (kueue.x-k8s.io/podset-required-topology)"));
}

TEST_CASE("scenario::kueue-tas a preferred level falls back to the levels above", "[scenario]") {
  const Scenario s = gang_with(3, R"("kueue.x-k8s.io/podset-preferred-topology": "rack")", "kueue-tas");
  const RunResult s_run = run(s, "kueue-tas");
  const JobRecord& g = record(s_run, s, "g");
  CHECK(g.state == JobState::Finished);
  CHECK(g.pods.size() == 3);
}

TEST_CASE("scenario::kueue-tas a level the fabric does not have is refused at submission", "[scenario]") {
  const Scenario s = gang_with(2, R"("kueue.x-k8s.io/podset-required-topology": "block")", "kueue-tas");
  const RunResult s_run = run(s, "kueue-tas");
  const JobRecord& g = record(s_run, s, "g");
  CHECK(g.state == JobState::Rejected);
  CHECK(g.reason == "kueue.x-k8s.io/podset-required-topology: 'block' is not a level of the cluster's fabric (rack)");
}

TEST_CASE("scenario::volcano-topology hard mode keeps the gang within its highest tier, soft mode does not", "[scenario]") {
  const Scenario hard =
      gang_with(3, R"("volcano.sh/network-topology-mode": "hard", "volcano.sh/network-topology-highest-tier-allowed": "1")",
                "volcano-topology");
  const RunResult hard_run = run(hard, "volcano-topology");
  const JobRecord& h = record(hard_run, hard, "g");
  CHECK(h.state == JobState::Pending);
  CHECK_THAT(h.reason, Catch::Contains("no HyperNode of tier <= 1 (rack) has room for all 3 pods"));

  const Scenario soft = gang_with(3, R"("volcano.sh/network-topology-mode": "soft")", "volcano-topology");
  const RunResult soft_run = run(soft, "volcano-topology");
  CHECK(record(soft_run, soft, "g").state == JobState::Finished);

  const Scenario two = gang_with(2, R"("volcano.sh/network-topology-mode": "hard")", "volcano-topology");
  const RunResult two_run = run(two, "volcano-topology");
  const JobRecord& t = record(two_run, two, "g");
  REQUIRE(t.state == JobState::Finished);
  CHECK(t.pods[0].node / 2 == t.pods[1].node / 2);

  const Scenario beyond =
      gang_with(2, R"("volcano.sh/network-topology-mode": "hard", "volcano.sh/network-topology-highest-tier-allowed": "3")",
                "volcano-topology");
  const RunResult beyond_run = run(beyond, "volcano-topology");
  CHECK_THAT(
      record(beyond_run, beyond, "g").reason,
      Catch::StartsWith("volcano.sh/network-topology-highest-tier-allowed: '3' is not a tier of the fabric (1 .. 1: rack)"));
}
