// Hot spares' books (sim/spare_pool.h), by hand on two groups of mixed node types.
#include <catch2/catch.hpp>

#include "core/fabric.h"
#include "sim/spare_pool.h"

using namespace topsim;

TEST_CASE("spare pool: the last nodes of every group are held, and a failed node takes its group's lowest of its type",
          "[sim][failures]") {
  // Nodes 0-4 in group 0, 5-7 in group 1; node 3 is of type 1, the rest of type 0.
  SparePool pool(2, {0, 0, 0, 0, 0, 1, 1, 1}, {0, 0, 0, 1, 0, 0, 0, 0}, 2);
  const std::vector<int> held = pool.initial();
  CHECK(held == std::vector<int>{3, 4, 6, 7});
  for (int node : held) pool.hold(node);
  CHECK_FALSE(pool.short_of(0));

  CHECK(pool.take(1) == 4);   // group 0's idle spares are 3 (type 1) and 4: node 1 is of type 0
  CHECK(pool.take(2) == -1);  // only 3 is left, of another type
  CHECK(pool.short_of(2));
  CHECK(pool.take(5) == 6);      // group 1: lowest first
  CHECK_FALSE(pool.release(6));  // no longer idle
  CHECK(pool.release(3));        // an idle spare that fails leaves the pool
  CHECK(pool.take(0) == -1);

  pool.hold(0);  // a repaired node refills its group
  CHECK(pool.take(2) == 0);
}

TEST_CASE("spare pool: a group smaller than its spares holds all its nodes", "[sim][failures]") {
  SparePool pool(3, {0, 1, 1, 1, 1}, {0, 0, 0, 0, 0}, 2);
  CHECK(pool.initial() == std::vector<int>{0, 2, 3, 4});
  SparePool none(0, {0, 0}, {0, 0}, 1);
  CHECK(none.initial().empty());
  CHECK_FALSE(none.short_of(1));
}

TEST_CASE("spare pool: a failed node takes the nearest spare of its type, its NVLink domain's first", "[sim][failures]") {
  // One pool for the cluster (group 0) of 8 nodes: NVLink domains of 2 (level 0) in racks of 4
  // (level 1). Nodes 1, 5 and 6 are idle spares; node 6 is of type 1.
  FabricSpec spec;
  spec.levels.push_back({"domain", 2, "", 1, 0, true});
  spec.levels.push_back({"rack", 2, "", 1, 0, false});
  const Fabric fabric = Fabric::build(spec, *Fabric::groups_by_order(spec, 8)).value();
  SparePool pool(3, std::vector<int>(8, 0), {0, 0, 0, 0, 0, 0, 1, 0}, 1, &fabric);
  for (int node : {1, 5, 6}) pool.hold(node);
  CHECK(pool.take(4) == 5);   // its own domain's, although 1 is lower
  CHECK(pool.take(7) == 1);   // 6 shares its domain but is of another type; 1 is the only one of its own
  CHECK(pool.take(7) == -1);  // 6 is of type 1
  pool.hold(1);
  pool.hold(5);
  CHECK(pool.take(2) == 1);  // its rack's, not its domain's (none) nor the other rack's
  CHECK(pool.take(0) == 5);  // the other rack's, when its own rack holds none
  // Without levels under the pools, the lowest of its type.
  SparePool flat(2, std::vector<int>(4, 0), {0, 0, 0, 0}, 1);
  flat.hold(3);
  flat.hold(2);
  CHECK(flat.take(0) == 2);
}
