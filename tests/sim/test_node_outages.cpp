// The nodes' side of a replay with failures (sim/node_outages.h): spares held out of service from
// the start, the jobs a failure hits, a spare taken only for a running job, a failed idle spare
// leaving the spares, and a repaired node refilling its group's spares before returning.
#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "sim/node_outages.h"

using namespace topsim;

namespace {

ClusterState hgx_nodes(int nodes) {
  ClusterSpec spec;
  spec.groups.push_back({*builtin_model("hgx-h100"), nodes, NodeMode::Topology, true, {}, {}});
  auto cluster = std::move(ClusterState::build(spec)).value();
  cluster.prepare(NodeMode::Topology, nullptr);
  return cluster;
}

// Replayed failures only: `trace` from time 0, and `spares` idle nodes for the whole cluster.
FailureSpec replayed(std::vector<ReplayedFailure> trace, int spares) {
  FailureSpec spec;
  spec.draw = false;
  spec.trace = std::move(trace);
  if (spares > 0) spec.spares = SpareSpec{spares, "", -1};
  return spec;
}

bool never(uint32_t) { return false; }
bool always(uint32_t) { return true; }

}  // namespace

TEST_CASE("sim::node_outages the last nodes are held as spares, and a failure lists its jobs once each, ascending",
          "[sim][failures]") {
  ClusterState cluster = hgx_nodes(4);
  InvariantChecker invariants(cluster);
  const FailureSpec spec = replayed({{0, 1000, 5000, FailureCause::Gpu}}, 1);  // read as events are drawn: kept
  NodeOutages outages(spec, cluster, &invariants, 1, 0);
  CHECK(outages.holds_spares());
  CHECK(cluster.spare_gpus() == 8);  // node 3
  CHECK(cluster.out_of_service_gpus() == 8);
  outages.bound(0, 7);
  outages.bound(0, 2);
  outages.bound(0, 7);  // a second pod of job 7
  outages.bound(1, 5);
  CHECK_FALSE(outages.due(999));
  REQUIRE(outages.due(1000));
  std::vector<uint32_t> hit;
  const NodeEvent e = outages.next(hit, never);
  CHECK((e.fails && e.node == 0 && e.spare == -1));  // nothing runs there: no spare taken
  CHECK(hit == std::vector<uint32_t>{2, 7});
  outages.released(0, 7);
  outages.released(0, 7);
  outages.released(0, 2);
  outages.take_down(0);
  CHECK(cluster.out_of_service_gpus() == 16);
  CHECK(outages.down_nodes() == 1);
  CHECK(outages.next_ms() == 6000);
  const uint64_t returns = outages.returns();
  CHECK_FALSE(outages.next(hit, never).fails);  // repaired at 6000
  CHECK(outages.repaired(0));                   // the spares are full: back in service
  CHECK(outages.returns() == returns + 1);
  CHECK(cluster.out_of_service_gpus() == 8);
}

TEST_CASE("sim::node_outages a spare goes into service for a running job, and the repaired node refills the spares",
          "[sim][failures]") {
  ClusterState cluster = hgx_nodes(4);
  const FailureSpec spec = replayed({{1, 1000, 5000, FailureCause::Host}}, 1);
  NodeOutages outages(spec, cluster, nullptr, 1, 0);
  outages.bound(1, 4);
  std::vector<uint32_t> hit;
  const NodeEvent e = outages.next(hit, always);
  CHECK(e.spare == 3);
  CHECK(cluster.spare_gpus() == 0);
  outages.released(1, 4);
  outages.take_down(1);
  outages.next(hit, always);
  CHECK_FALSE(outages.repaired(1));  // the spares are short of one: it becomes the spare
  CHECK(cluster.spare_gpus() == 8);
  CHECK(cluster.out_of_service_gpus() == 8);  // node 1 held idle, node 3 in service
}

TEST_CASE("sim::node_outages an idle spare that fails leaves the spares, and a node down for no time takes none",
          "[sim][failures]") {
  ClusterState cluster = hgx_nodes(4);
  const FailureSpec spec = replayed({{3, 1000, 5000, FailureCause::Gpu}, {0, 2000, 0, FailureCause::Software}}, 1);
  NodeOutages outages(spec, cluster, nullptr, 1, 0);
  std::vector<uint32_t> hit;
  NodeEvent e = outages.next(hit, always);
  CHECK((e.node == 3 && hit.empty() && e.spare == -1));
  CHECK(cluster.spare_gpus() == 0);
  outages.take_down(3);
  CHECK(cluster.out_of_service_gpus() == 8);  // down, no longer a spare
  outages.bound(0, 1);
  e = outages.next(hit, always);  // a software fault: back at once, so no spare is taken
  CHECK((e.node == 0 && e.down_ms == 0 && e.spare == -1 && hit == std::vector<uint32_t>{1}));
}
