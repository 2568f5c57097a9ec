// Max-min fair shares of saturated uplinks (sim/link_shares.h), against answers worked by hand.
#include <catch2/catch.hpp>

#include "sim/link_shares.h"

using namespace topsim;

TEST_CASE("sim::LinkShares two jobs over one 2:1 uplink each get half", "[sim]") {
  LinkShares links({100}, {0});  // two nodes of 100 GB/s behind a 2:1 uplink
  CHECK(links.add(1, {0}, 100) == std::vector<uint32_t>{1});
  CHECK(links.factor(1) == Approx(1));  // alone: it fits
  CHECK(links.add(2, {0}, 100) == std::vector<uint32_t>{1, 2});
  CHECK(links.share_gbps(1) == Approx(50));
  CHECK(links.share_gbps(2) == Approx(50));
  CHECK(links.level_utilisation(0) == Approx(1));
  // One finishes: the other gets its whole demand back at once.
  CHECK(links.remove(1) == std::vector<uint32_t>{2});
  CHECK(links.factor(2) == Approx(1));
  CHECK(links.level_utilisation(0) == Approx(1));
  CHECK(links.remove(2).empty());
  CHECK(links.level_utilisation(0) == Approx(0));
}

TEST_CASE("sim::LinkShares progressive filling: small demands are met, the rest share what is left", "[sim]") {
  LinkShares links({10}, {0});
  links.add(1, {0}, 2);
  links.add(2, {0}, 6);
  links.add(3, {0}, 6);
  CHECK(links.share_gbps(1) == Approx(2));
  CHECK(links.share_gbps(2) == Approx(4));
  CHECK(links.share_gbps(3) == Approx(4));
}

TEST_CASE("sim::LinkShares a job held by one link leaves room to the others on its other links", "[sim]") {
  // Link 0 (capacity 4) carries jobs 1 and 2; link 1 (capacity 10) carries jobs 2 and 3.
  // Job 2 is held to 2 by link 0, so job 3 gets 8 of link 1 (its demand is 9).
  LinkShares links({4, 10}, {0, 1});
  links.add(1, {0}, 5);
  links.add(2, {0, 1}, 5);
  links.add(3, {1}, 9);
  CHECK(links.share_gbps(1) == Approx(2));
  CHECK(links.share_gbps(2) == Approx(2));
  CHECK(links.share_gbps(3) == Approx(8));
  CHECK(links.level_utilisation(0) == Approx(1));
  CHECK(links.level_utilisation(1) == Approx(1));
  // Job 1 leaves: job 2 gets 4 of link 0, job 3 the 6 left of link 1.
  CHECK(links.remove(1) == std::vector<uint32_t>{2, 3});
  CHECK(links.share_gbps(2) == Approx(4));
  CHECK(links.share_gbps(3) == Approx(6));
}

TEST_CASE("sim::LinkShares a change touches only jobs behind saturated links", "[sim]") {
  LinkShares links({100, 100}, {0, 0});
  links.add(1, {0}, 60);
  links.add(2, {0}, 60);  // link 0 saturated: 50 each
  links.add(3, {1}, 30);
  CHECK(links.add(4, {1}, 30) == std::vector<uint32_t>{4});  // link 1 still fits: nobody else moves
  CHECK(links.share_gbps(1) == Approx(50));
  CHECK(links.carried_gbps(0) == Approx(100));
  CHECK(links.offered_gbps(0) == Approx(120));
}
