// The run invariant checker (sim/invariants.h) catches what it is there for. (Every run the
// tests make checks the invariants: tests/CMakeLists.txt sets TOPSIM_CHECK_INVARIANTS=1.)
#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "sim/invariants.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

ClusterState one_dgx() {
  ClusterSpec spec;
  spec.groups.push_back({*builtin_model("dgx-a100"), 1, NodeMode::Topology, true, {}, {}});
  auto cluster = std::move(ClusterState::build(spec)).value();
  cluster.prepare(NodeMode::Topology, nullptr);
  return cluster;
}

PodRequest whole(int cards) {
  PodRequest pod;
  pod.gpu = GpuAsk::whole(cards);
  return pod;
}

}  // namespace

TEST_CASE("sim::invariants: a consistent instant passes", "[sim][invariants]") {
  ClusterState cluster = one_dgx();
  InvariantChecker checker(cluster);
  cluster.bind(0, whole(2), {0, 1});
  checker.bound(0, 7, {0, 1});
  checker.started(7, 1, 1);
  CHECK_FALSE(checker.after_instant(0, cluster, {1, 0, 1, 0}).has_value());
  cluster.unbind(0, whole(2), {0, 1});
  checker.released(0, 7, {0, 1});
  CHECK_FALSE(checker.after_instant(10, cluster, {1, 0, 0, 1}).has_value());
}

TEST_CASE("sim::invariants: each violation is reported in one line", "[sim][invariants]") {
  ClusterState cluster = one_dgx();
  InvariantChecker checker(cluster);
  SECTION("the cluster counts a pod on a card nobody holds") {
    cluster.bind(0, whole(1), {0});
    checker.bound(0, 3, {1});
    const auto v = checker.after_instant(5, cluster, {1, 0, 1, 0});
    REQUIRE(v);
    CHECK(*v == "invariant violated at t = 5 ms: node 0 (node-0) card 0: 1 pods counted, 0 bound");
  }
  SECTION("time goes back") {
    CHECK_FALSE(checker.after_instant(100, cluster, {}).has_value());
    const auto v = checker.after_instant(99, cluster, {});
    REQUIRE(v);
    CHECK_THAT(*v, Catch::Contains("time went back from 100 ms to 99 ms"));
  }
  SECTION("a gang starts without all its pods") {
    checker.started(4, 1, 2);
    const auto v = checker.after_instant(0, cluster, {});
    REQUIRE(v);
    CHECK_THAT(*v, Catch::Contains("job 4 started with 1 of its 2 pods (gangs are all-or-nothing)"));
  }
  SECTION("a job is lost") {
    const auto v = checker.after_instant(0, cluster, {3, 1, 1, 0});
    REQUIRE(v);
    CHECK_THAT(*v, Catch::Contains("3 jobs arrived but 1 wait, 1 run and 0 are done"));
  }
  SECTION("a pod releases cards it never held") {
    checker.released(0, 9, {2});
    const auto v = checker.after_instant(0, cluster, {});
    REQUIRE(v);
    CHECK_THAT(*v, Catch::Contains("job 9 released card 2 of node 0 it did not hold"));
  }
}

TEST_CASE("sim::invariants: the CLI runs a shipped scenario with --check-invariants", "[sim][invariants][cli]") {
  const auto r = topsim::test::run_cli("run " + std::string(TOPSIM_SOURCE_DIR) +
                                       "/scenarios/ack-v100-benchmark.json --check-invariants --no-report --quiet -o " +
                                       topsim::test::TempDir().file("out"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
}
