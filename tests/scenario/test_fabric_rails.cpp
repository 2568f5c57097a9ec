// Rail-aligned placement on a rail-optimised fabric (core/gang.h "rail alignment",
// sim/schedulers/topology_aware.cpp): a gang spanning nodes takes GPUs on the same rails of
// every node, so its traffic stays on the rail switches.
#include <set>

#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// DGX A100 nodes (GPU i on NIC i) in racks of `fanout`, `rails` rails, each node filled by two
// 4-GPU jobs "h<2n>" (GPUs 0-3) and "h<2n+1>" (GPUs 4-7); the jobs in `short_jobs` end at 100 s.
// The 2 x 4-GPU gang "g" arrives at 200 s, when no node has 8 GPUs free.
Scenario half_free_nodes(int nodes, int fanout, const std::set<int>& short_jobs, int rails) {
  std::string jobs = "[";
  for (int h = 0; h < 2 * nodes; ++h)
    jobs += R"({"name": "h)" + std::to_string(h) + R"(", "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "model": "vgg16", )" +
            (short_jobs.count(h) ? R"("duration_s": 100},)" : R"("duration_s": 100000},)");
  jobs += R"({"name": "g", "submit_s": 200, "workers": 2, "gpus_per_worker": 4, "model": "vgg16", "iterations": 50}])";
  const std::string network = R"(, "network": {"transport": "ib", "rails": )" + std::to_string(rails) +
                              R"(, "levels": [{"name": "rack", "fanout": )" + std::to_string(fanout) +
                              R"(, "oversubscription": 2}]})";
  return scenario_from(scenario_json(R"([{"model": "dgx-a100", "count": )" + std::to_string(nodes) + "}]", jobs,
                                     R"(, "schedulers": ["topology-aware"])", network));
}

std::vector<int> gpus_of(const JobRecord& r) {
  std::vector<int> gpus;
  for (const PodPlacement& pod : r.pods) gpus.insert(gpus.end(), pod.gpus.begin(), pod.gpus.end());
  return gpus;
}

}  // namespace

TEST_CASE("scenario::fabric topology-aware places a gang across nodes on the same rails", "[scenario]") {
  // Six nodes in racks of three; rack 1 full. Left free: node 0 GPUs 0-3, nodes 1 and 2 GPUs 4-7.
  const Scenario s = half_free_nodes(6, 3, {0, 3, 5}, 8);
  const RunResult run = topsim::test::run(s, "topology-aware");
  // The setting: which halves the short jobs held.
  REQUIRE(record(run, s, "h0").pods.at(0).node == 0);
  REQUIRE(gpus_of(record(run, s, "h0")) == std::vector<int>{0, 1, 2, 3});
  REQUIRE(record(run, s, "h3").pods.at(0).node == 1);
  REQUIRE(gpus_of(record(run, s, "h3")) == std::vector<int>{4, 5, 6, 7});
  REQUIRE(record(run, s, "h5").pods.at(0).node == 2);
  REQUIRE(gpus_of(record(run, s, "h5")) == std::vector<int>{4, 5, 6, 7});
  const JobRecord& g = record(run, s, "g");
  REQUIRE(g.state == JobState::Finished);
  REQUIRE(g.pods.size() == 2);
  // Nodes 0 and 1 come first by index, but use rails 0-3 and 4-7; nodes 1 and 2 share rails 4-7.
  CHECK(g.pods[0].node == 1);
  CHECK(g.pods[1].node == 2);
  CHECK(g.pods[0].gpus == std::vector<int>{4, 5, 6, 7});
  CHECK(g.pods[1].gpus == std::vector<int>{4, 5, 6, 7});
}

TEST_CASE("scenario::fabric without rails topology-aware packs by index as before", "[scenario]") {
  const Scenario s = half_free_nodes(6, 3, {0, 3, 5}, 0);
  const RunResult run = topsim::test::run(s, "topology-aware");
  const JobRecord& g = record(run, s, "g");
  REQUIRE(g.pods.size() == 2);
  CHECK(g.pods[0].node == 0);
  CHECK(g.pods[1].node == 1);
}

TEST_CASE("scenario::fabric a rack that holds the gang on its rails beats an as tight one that does not", "[scenario]") {
  // Racks of two, 8 GPUs free in each: rack 0 node 0 GPUs 0-3 and node 1 GPUs 4-7 (off rails),
  // rack 1 nodes 2 and 3 GPUs 4-7. Rack 0 comes first (as tight, lower index), but only rack 1
  // keeps the gang's traffic on its rail switches.
  const Scenario s = half_free_nodes(4, 2, {0, 3, 5, 7}, 8);
  const RunResult run = topsim::test::run(s, "topology-aware");
  const JobRecord& g = record(run, s, "g");
  REQUIRE(g.pods.size() == 2);
  CHECK(g.pods[0].node == 2);
  CHECK(g.pods[1].node == 3);
  CHECK(g.pods[0].gpus == std::vector<int>{4, 5, 6, 7});
}
