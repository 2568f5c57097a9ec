// Measured node pairs (core/measured_links.h): a ring's cap and latency, NCCL's latency model
// with a network latency, LLM group paths over measured pairs, and the gang planner moving off
// pairs measured slow.
#include <catch2/catch.hpp>
#include <map>

#include "core/builtin_models.h"
#include "core/gang.h"
#include "core/llm_links.h"
#include "core/measured_links.h"

using namespace topsim;

namespace {

// Measured links from a table keyed by (lower, higher) index.
MeasuredLinks table(std::map<std::pair<int, int>, MeasuredLink> links) {
  return [links = std::move(links)](int a, int b) {
    const auto it = links.find(std::minmax(a, b));
    return it == links.end() ? MeasuredLink{} : it->second;
  };
}

}  // namespace

TEST_CASE("core::allreduce_time adds a network latency to each inter-node step, twice for Simple", "[core]") {
  // 16 ranks on 2 nodes: 2 inter-node steps, 28 NVLink steps (NCCL tuning.cc, REFERENCE.md).
  SECTION("8 bytes: LL, 6.6 + 28 x 0.6 + 2 x (2.7 + 10) = 48.8 us") {
    const AllReduceEstimate plain = allreduce_time(8, 16, 2, 100, true);
    const AllReduceEstimate slow = allreduce_time(8, 16, 2, 100, true, 10);
    CHECK(plain.protocol == NcclProtocol::LL);
    CHECK(slow.protocol == NcclProtocol::LL);
    CHECK(plain.time_us == Approx(28.8).margin(0.01));
    CHECK(slow.time_us == Approx(48.8).margin(0.01));
  }
  SECTION("1 GB: Simple, each of the 2 network steps pays 2 x 10 us more") {
    const AllReduceEstimate plain = allreduce_time(1e9, 16, 2, 100, true);
    const AllReduceEstimate slow = allreduce_time(1e9, 16, 2, 100, true, 10);
    CHECK(slow.protocol == NcclProtocol::Simple);
    CHECK(slow.time_us - plain.time_us == Approx(40));
  }
  SECTION("NVLSTree over 4 domains: 2 log2(4) = 4 network steps, each 2 x 10 us more") {
    const AllReduceAlgos algos{10, 400, NcclAlgorithm::NVLSTree};
    const AllReduceEstimate plain = allreduce_time(1e9, 32, 4, algos, true);
    const AllReduceEstimate slow = allreduce_time(1e9, 32, 4, algos, true, 10);
    CHECK(slow.algorithm == NcclAlgorithm::NVLSTree);
    CHECK(slow.time_us - plain.time_us == Approx(80));
  }
}

TEST_CASE("core::measured_ring takes the slowest measured hop and the largest latency", "[core]") {
  const MeasuredLinks links = table({{{0, 1}, {10, 5}}, {{1, 2}, {0, 8}}, {{0, 3}, {2, 50}}});
  // Ring 0 -> 1 -> 2 -> 0: hops (0,1) 10 GB/s 5 us, (1,2) latency 8 us only, (2,0) not measured.
  const MeasuredLink ring = measured_ring({0, 1, 2}, links);
  CHECK(ring.bus_gbps == 10);
  CHECK(ring.latency_us == 8);
  CHECK(measured_ring({1, 2}, links).bus_gbps == 0);  // latency only: the model's bandwidth
  CHECK(measured_ring({0}, links).latency_us == 0);
  CHECK(measured_ring({0, 1, 2}, nullptr).bus_gbps == 0);
  CommPath path;
  path.bus_bandwidth_gbps = 40;
  path.ring_bus_gbps = 40;
  path.nvls_bus_gbps = 30;
  apply_measured(path, {0, 1, 2}, links);
  CHECK(path.bus_bandwidth_gbps == 10);
  CHECK(path.ring_bus_gbps == 10);
  CHECK(path.nvls_bus_gbps == 10);
  CHECK(path.tree_bus_gbps == 0);
  CHECK(path.net_latency_us == 8);
}

TEST_CASE("core::llm_links a group across a measured pair runs at its measured figures", "[core][llm]") {
  auto topology = Topology::build(*builtin_model("hgx-h100"));
  REQUIRE(topology.ok());
  const Allocator allocator(*topology);
  const std::vector<LinkNode> nodes(2, LinkNode{&allocator, 400});
  ParallelConfig c;
  c.tp = 8;
  c.dp = 2;
  std::vector<RankSite> ranks;
  for (int r = 0; r < 16; ++r) ranks.push_back({r / 8, r % 8, r / 8});
  // TP groups stay on a node; each DP group {t, t + 8} crosses nodes 0 and 1.
  auto model = llm_links(c, ranks, nodes);
  LinkOptions options;
  options.measured = table({{{0, 1}, {5, 30}}});
  auto measured = llm_links(c, ranks, nodes, options);
  REQUIRE(model.ok());
  REQUIRE(measured.ok());
  REQUIRE(model->dp.hosts == 2);
  CHECK(model->dp.bus_bandwidth_gbps > 5);
  CHECK(measured->dp.bus_bandwidth_gbps == 5);
  CHECK(measured->dp.net_latency_us == 30);
  CHECK(measured->tp.bus_bandwidth_gbps == model->tp.bus_bandwidth_gbps);
  CHECK(measured->tp.net_latency_us == 0);
}

TEST_CASE("core::place_gang moves a gang off a pair measured slow when it can", "[core][gang]") {
  auto topology = Topology::build(*builtin_model("dgx-a100"));
  REQUIRE(topology.ok());
  const Allocator allocator(*topology);
  std::vector<GangNode> nodes;
  for (int n = 0; n < 3; ++n) nodes.push_back({&allocator, all_gpus(8), "n" + std::to_string(n)});
  GangRequest request;
  request.workers = 2;
  request.gpus_per_worker = 8;
  auto blind = place_gang(nodes, request);
  REQUIRE(blind.ok());
  REQUIRE(blind->nodes == std::vector<int>{0, 1});
  SECTION("nodes 0 and 1 measured at 5 GB/s, below the model's 177: nodes 1 and 2") {
    request.measured = table({{{0, 1}, {5, 0}}});
    auto placed = place_gang(nodes, request);
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{1, 2});
  }
  SECTION("every pair slow, (1, 2) the least: nodes 0 and 2 or 0 and 1, the faster") {
    request.measured = table({{{0, 1}, {20, 0}}, {{1, 2}, {5, 0}}, {{0, 2}, {30, 0}}});
    auto placed = place_gang(nodes, request);
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 2});
  }
  SECTION("a pair measured above the model binds nothing") {
    request.measured = table({{{0, 1}, {500, 0}}});
    auto placed = place_gang(nodes, request);
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 1});
  }
  SECTION("no choice: two nodes, the slow pair stays") {
    nodes.pop_back();
    request.measured = table({{{0, 1}, {5, 0}}});
    auto placed = place_gang(nodes, request);
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 1});
  }
}
