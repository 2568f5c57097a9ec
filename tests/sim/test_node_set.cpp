// sim/node_set.h, the node sets of the free-count buckets: against std::set under random
// inserts and erases, across word and 4,096-node block boundaries.
#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/node_set.h"

using namespace topsim;

TEST_CASE("sim::NodeSet agrees with std::set: size, ascending order, k-th smallest, next", "[sim]") {
  constexpr int kCapacity = 10000;  // three blocks of 4,096 nodes, the last partial
  NodeSet nodes(kCapacity);
  std::set<int> expected;
  std::mt19937_64 rng(5);
  for (int step = 0; step < 20000; ++step) {
    const int node = static_cast<int>(rng() % kCapacity);
    if (expected.count(node)) {
      nodes.erase(node);
      expected.erase(node);
    } else {
      nodes.insert(node);
      expected.insert(node);
    }
    if (step % 997 != 0) continue;
    REQUIRE(nodes.size() == expected.size());
    const std::vector<int> got(nodes.begin(), nodes.end());
    REQUIRE(got == std::vector<int>(expected.begin(), expected.end()));
    for (size_t k = 0; k < expected.size(); k += 37) CHECK(nodes.nth(k) == got[k]);
    CHECK(nodes.front() == *expected.begin());
    const int from = static_cast<int>(rng() % kCapacity);
    const auto at = expected.lower_bound(from);
    CHECK(nodes.next(from) == (at == expected.end() ? -1 : *at));
  }
}

TEST_CASE("sim::NodeSet an empty set iterates nothing, the last node of the capacity is found", "[sim]") {
  NodeSet nodes(4097);
  CHECK(nodes.begin() == nodes.end());
  CHECK(nodes.next(0) == -1);
  nodes.insert(4096);
  CHECK(nodes.front() == 4096);
  CHECK(nodes.nth(0) == 4096);
  nodes.erase(4096);
  CHECK(nodes.empty());
}
