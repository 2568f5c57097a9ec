// Hot spares' books (sim/spare_pool.h), by hand on two groups of mixed node types.
#include <catch2/catch.hpp>

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
