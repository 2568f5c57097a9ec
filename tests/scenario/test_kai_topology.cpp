// KAI Scheduler's topology-aware scheduling (sim/schedulers/kai_topology.cpp): the domain with the
// fewest allocatable pods at the lowest relevant level, pods gathered by preferred sub-domain,
// binpack nodes; the KAI docs' own example on label-placed racks of unequal size.
#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

constexpr const char* kTopology = R"("kai.scheduler/topology": "cluster-topology")";

std::string job(const std::string& name, double submit_s, int workers, int gpus, int iterations, const std::string& annotations) {
  return R"({"name": ")" + name + R"(", "submit_s": )" + std::to_string(submit_s) + R"(, "workers": )" + std::to_string(workers) +
         R"(, "gpus_per_worker": )" + std::to_string(gpus) + R"(, "model": "vgg16", "iterations": )" +
         std::to_string(iterations) + R"(, "annotations": {)" + annotations + "}}";
}

// DGX A100 nodes in racks of two (and zones of two racks with `zones`).
Scenario racks_of_two(int nodes, const std::string& jobs, bool zones = false) {
  const std::string levels =
      zones ? R"([{"name": "rack", "fanout": 2}, {"name": "zone", "fanout": 2}])" : R"([{"name": "rack", "fanout": 2}])";
  return scenario_from(scenario_json(R"([{"model": "dgx-a100", "count": )" + std::to_string(nodes) + "}]", "[" + jobs + "]",
                                     R"(, "schedulers": ["kai-topology"])",
                                     R"(, "network": {"transport": "ib", "levels": )" + levels + "}"));
}

std::vector<int> nodes_of(const JobRecord& record) {
  std::vector<int> nodes;
  for (const PodPlacement& pod : record.pods) nodes.push_back(pod.node);
  return nodes;
}

}  // namespace

TEST_CASE("scenario::kai-topology the docs' example: the tighter zone, its roomiest rack filled first", "[scenario]") {
  // KAI-Scheduler docs/topology/README.md: zone A has racks of 2, 1, 1 and 1 free nodes (5), zone
  // B three racks of 2 (6); 3 pods of a whole node each, required zone, preferred rack. No rack
  // holds 3, so zones: A has fewer allocatable pods (bin-packing); inside it rack A1 (2, the
  // most) is filled, then A2: nodes 0, 1, 2, two racks rather than three.
  std::string groups;
  const std::vector<std::pair<std::string, std::string>> racks = {{"a", "a1"}, {"a", "a1"}, {"a", "a2"}, {"a", "a3"},
                                                                  {"a", "a4"}, {"b", "b1"}, {"b", "b1"}, {"b", "b2"},
                                                                  {"b", "b2"}, {"b", "b3"}, {"b", "b3"}};
  for (const auto& [zone, rack] : racks)
    groups += std::string(groups.empty() ? "" : ", ") + R"({"model": "dgx-a100", "count": 1, "labels": {"zone": ")" + zone +
              R"(", "rack": ")" + rack + R"("}})";
  const std::string annotations = std::string(kTopology) + R"(, "kai.scheduler/topology-required-placement": "zone")"
                                                           R"(, "kai.scheduler/topology-preferred-placement": "rack")";
  const Scenario s = scenario_from(scenario_json(
      "[" + groups + "]", "[" + job("g", 0, 3, 8, 20, annotations) + "]", R"(, "schedulers": ["kai-topology"])",
      R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "label": "rack"}, {"name": "zone", "label": "zone"}]})"));
  const RunResult r = run(s, "kai-topology");
  const JobRecord& g = record(r, s, "g");
  REQUIRE(g.state == JobState::Finished);
  CHECK(nodes_of(g) == std::vector<int>{0, 1, 2});
  CHECK(g.host_network);
}

TEST_CASE("scenario::kai-topology a required level takes the domain with the fewest allocatable pods, nodes binpacked",
          "[scenario]") {
  // Pods of 4 GPUs, two a node. a: both racks take 4, the lower index; the fullest node (all
  // alike) node 0. b: rack 0 takes 3 (fewer than rack 1's 4), node 0 has the fewest free GPUs.
  // c (2 pods): rack 0 takes exactly 2, on node 1.
  const std::string rack = std::string(kTopology) + R"(, "kai.scheduler/topology-required-placement": "rack")";
  const Scenario s = racks_of_two(
      4, job("a", 0, 1, 4, 100000, rack) + ", " + job("b", 1, 1, 4, 100000, rack) + ", " + job("c", 2, 2, 4, 20, rack));
  const RunResult r = run(s, "kai-topology");
  CHECK(nodes_of(record(r, s, "a")) == std::vector<int>{0});
  CHECK(nodes_of(record(r, s, "b")) == std::vector<int>{0});
  const JobRecord& c = record(r, s, "c");
  REQUIRE(c.state == JobState::Finished);
  CHECK(nodes_of(c) == std::vector<int>{1, 1});
}

TEST_CASE("scenario::kai-topology a preferred level no domain meets falls back to the cluster, the roomiest rack first",
          "[scenario]") {
  // a (no topology) takes node 0's first half. g, 5 pods of 4 GPUs preferring a rack: racks take
  // 3 and 4, so the whole cluster; rack 1 (4) first, both its nodes, then rack 0's fullest node.
  const std::string preferred = std::string(kTopology) + R"(, "kai.scheduler/topology-preferred-placement": "rack")";
  const Scenario s = racks_of_two(4, job("a", 0, 1, 4, 100000, "") + ", " + job("g", 1, 5, 4, 20, preferred));
  const RunResult r = run(s, "kai-topology");
  CHECK(nodes_of(record(r, s, "a")) == std::vector<int>{0});
  const JobRecord& g = record(r, s, "g");
  REQUIRE(g.state == JobState::Finished);
  CHECK(nodes_of(g) == std::vector<int>{2, 2, 3, 3, 0});
}

TEST_CASE("scenario::kai-topology required zone, preferred rack: a rack when one holds the gang, else the zone by rack",
          "[scenario]") {
  // Racks of two in zones of two (8 nodes). a takes node 0 whole (required rack: the lower index).
  // g (2 whole-node pods, required zone, preferred rack): rack 1 and racks 2, 3 take 2 each; rack
  // 1 is the lower index of the tightest: nodes 2, 3. h (3 pods): no rack takes 3 now (rack 0 has
  // 1 free node, racks 2 and 3 two each), so zone 1 (4 free nodes; zone 0 has 1): racks 2 then 3.
  const std::string rack = std::string(kTopology) + R"(, "kai.scheduler/topology-required-placement": "rack")";
  const std::string zone_rack = std::string(kTopology) + R"(, "kai.scheduler/topology-required-placement": "zone")"
                                                         R"(, "kai.scheduler/topology-preferred-placement": "rack")";
  const Scenario s = racks_of_two(
      8, job("a", 0, 1, 8, 100000, rack) + ", " + job("g", 1, 2, 8, 100000, zone_rack) + ", " + job("h", 2, 3, 8, 20, zone_rack),
      true);
  const RunResult r = run(s, "kai-topology");
  CHECK(nodes_of(record(r, s, "a")) == std::vector<int>{0});
  CHECK(nodes_of(record(r, s, "g")) == std::vector<int>{2, 3});
  const JobRecord& h = record(r, s, "h");
  REQUIRE(h.state == JobState::Finished);
  CHECK(nodes_of(h) == std::vector<int>{4, 5, 6});
}

TEST_CASE("scenario::kai-topology a gang no required domain holds waits, and placements KAI refuses are refused", "[scenario]") {
  const Scenario big =
      racks_of_two(4, job("g", 0, 5, 4, 20, std::string(kTopology) + R"(, "kai.scheduler/topology-required-placement": "rack")"));
  const RunResult big_run = run(big, "kai-topology");
  const JobRecord& w = record(big_run, big, "g");
  CHECK(w.state == JobState::Pending);
  CHECK(w.pods.empty());
  CHECK_THAT(w.reason, Catch::Contains("no rack has room for all 5 pods (kai.scheduler/topology-required-placement)"));

  const std::vector<std::pair<std::string, std::string>> refused = {
      {R"("kai.scheduler/topology-required-placement": "rack")",
       "kai.scheduler/topology-required-placement: needs kai.scheduler/topology (the Topology whose levels it names)"},
      {kTopology,
       "kai.scheduler/topology: needs kai.scheduler/topology-required-placement or kai.scheduler/topology-preferred-placement "
       "(a level to place the job by)"},
      {std::string(kTopology) + R"(, "kai.scheduler/topology-required-placement": "block")",
       "kai.scheduler/topology-required-placement: 'block' is not a level of the cluster's fabric (rack, zone)"},
      {std::string(kTopology) +
           R"(, "kai.scheduler/topology-required-placement": "rack", "kai.scheduler/topology-preferred-placement": "zone")",
       "kai.scheduler/topology-preferred-placement: 'zone' is not below the required level 'rack'"},
      {std::string(kTopology) +
           R"(, "kai.scheduler/topology-required-placement": "rack", "kai.scheduler/topology-preferred-placement": "rack")",
       "kai.scheduler/topology-preferred-placement: 'rack' is not below the required level 'rack'"}};
  for (const auto& [annotations, reason] : refused) {
    INFO(annotations);
    const Scenario s = racks_of_two(4, job("g", 0, 2, 4, 20, annotations), true);
    const RunResult r = run(s, "kai-topology");
    const JobRecord& g = record(r, s, "g");
    CHECK(g.state == JobState::Rejected);
    CHECK(g.reason == reason);
  }
}
