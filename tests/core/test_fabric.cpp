// The fabric above the nodes (core/fabric.h): groups by order, uplinks and their capacity, the
// links a job crosses, rails, NVLink domains, and the refusals.
#include <catch2/catch.hpp>

#include "core/fabric.h"

using namespace topsim;

namespace {

FabricSpec racks_and_blocks(int rack, double rack_over, int block, double block_over) {
  FabricSpec spec;
  spec.levels.push_back({"rack", rack, "", rack_over, 0, false});
  spec.levels.push_back({"block", block, "", block_over, 0, false});
  return spec;
}

Fabric built(const FabricSpec& spec, int nodes) {
  auto groups = Fabric::groups_by_order(spec, nodes);
  REQUIRE(groups.ok());
  auto fabric = Fabric::build(spec, std::move(groups).value());
  INFO((fabric.ok() ? "" : fabric.error().message));
  REQUIRE(fabric.ok());
  return std::move(fabric).value();
}

std::vector<int> crossed(const Fabric& f, std::vector<int> nodes, bool aligned = true) {
  std::vector<int> out;
  f.links_crossed(nodes, aligned, out);
  return out;
}

}  // namespace

TEST_CASE("core::Fabric groups nodes in order and gives each group an uplink", "[core]") {
  // 16 nodes, racks of 4 (2:1), blocks of 2 racks (4:1): 4 racks, 2 blocks.
  const Fabric f = built(racks_and_blocks(4, 2, 2, 4), 16);
  CHECK(f.group_count(0) == 4);
  CHECK(f.group_count(1) == 2);
  CHECK(f.group(0, 5) == 1);
  CHECK(f.group(1, 5) == 0);
  CHECK(f.group(1, 9) == 1);
  REQUIRE(f.link_count() == 6);  // 4 rack uplinks + 2 block uplinks (two blocks meet at the core)
  // Each node carries 100 GB/s: a rack's downlinks 400, its uplink 200; a block's downlinks are
  // its racks' uplinks, 400, its uplink 100.
  const std::vector<double> capacity = f.link_capacities(std::vector<double>(16, 100.0));
  CHECK(capacity[static_cast<size_t>(f.link_of(0, 0))] == Approx(200));
  CHECK(capacity[static_cast<size_t>(f.link_of(1, 1))] == Approx(100));
}

TEST_CASE("core::Fabric a job crosses the uplinks of every group it touches below its span", "[core]") {
  const Fabric f = built(racks_and_blocks(4, 2, 2, 4), 16);
  CHECK(crossed(f, {0, 3}).empty());  // one rack
  CHECK(f.span_level({0, 3}) == 0);
  CHECK(crossed(f, {0, 5}) == std::vector<int>{f.link_of(0, 0), f.link_of(0, 1)});  // two racks of one block
  CHECK(f.span_level({0, 5}) == 1);
  // Two blocks: both racks' uplinks and both blocks' uplinks.
  CHECK(crossed(f, {1, 12}) == std::vector<int>{f.link_of(0, 0), f.link_of(0, 3), f.link_of(1, 0), f.link_of(1, 1)});
  CHECK(f.span_level({1, 12}) == 2);
  CHECK(crossed(f, {7}).empty());
}

TEST_CASE("core::Fabric a job off its rails climbs a level even inside one rack", "[core]") {
  FabricSpec spec = racks_and_blocks(4, 1, 4, 1);
  spec.rails = 8;
  const Fabric f = built(spec, 16);
  CHECK(crossed(f, {0, 1}, true).empty());
  CHECK(crossed(f, {0, 1}, false) == std::vector<int>{f.link_of(0, 0)});
}

TEST_CASE("core::Fabric nodes of one NVLink domain cross no uplink", "[core]") {
  FabricSpec spec;
  spec.levels.push_back({"nvl72", 18, "", 1, 0, true});
  spec.levels.push_back({"spine", 2, "", 1, 0, false});
  const Fabric f = built(spec, 36);
  CHECK(f.has_nvlink());
  CHECK(f.nvlink_domain(17) == 0);
  CHECK(f.nvlink_domain(18) == 1);
  CHECK(crossed(f, {0, 17}).empty());
  CHECK(crossed(f, {0, 18}) == std::vector<int>{f.link_of(0, 0), f.link_of(0, 1)});
}

TEST_CASE("core::Fabric a fabric built out partly ends each upper level in a smaller group", "[core]") {
  // 20 nodes in racks of 4 (2:1) and blocks of 3 racks (4:1), the last block partly built: 5
  // racks, blocks of 3 and 2.
  FabricSpec spec = racks_and_blocks(4, 2, 3, 4);
  spec.last_groups_partly = true;
  const Fabric f = built(spec, 20);
  CHECK(f.group_count(0) == 5);
  CHECK(f.group_count(1) == 2);
  CHECK(f.group(1, 11) == 0);
  CHECK(f.group(1, 12) == 1);
  CHECK(f.group(1, 19) == 1);
  // The partial block's uplink carries what its two racks bring: 2 x 200 / 4 = 100 GB/s, the
  // full block's 150.
  const std::vector<double> capacity = f.link_capacities(std::vector<double>(20, 100.0));
  CHECK(capacity[static_cast<size_t>(f.link_of(1, 0))] == Approx(150));
  CHECK(capacity[static_cast<size_t>(f.link_of(1, 1))] == Approx(100));
  CHECK(crossed(f, {0, 16}) == std::vector<int>{f.link_of(0, 0), f.link_of(0, 4), f.link_of(1, 0), f.link_of(1, 1)});
  // The lowest level still fills whole racks.
  CHECK(Fabric::groups_by_order(spec, 18).error().message ==
        "levels/0/fanout: 18 nodes do not fill racks of 4 (the fan-out must divide them)");
}

TEST_CASE("core::Fabric refuses what cannot be built, naming the level", "[core]") {
  CHECK(Fabric::groups_by_order(racks_and_blocks(6, 1, 1, 1), 16).error().message ==
        "levels/0/fanout: 16 nodes do not fill racks of 6 (the fan-out must divide them)");
  CHECK(Fabric::groups_by_order(racks_and_blocks(4, 1, 3, 1), 16).error().message ==
        "levels/1/fanout: 4 groups of the level below do not fill blocks of 3 (the fan-out must divide them)");
  FabricSpec under = racks_and_blocks(4, 0.5, 4, 1);
  CHECK_THAT(Fabric::build(under, *Fabric::groups_by_order(under, 16)).error().message,
             Catch::StartsWith("levels/0/oversubscription: must be at least 1"));
  FabricSpec nvlink_high = racks_and_blocks(4, 1, 4, 1);
  nvlink_high.levels[1].nvlink = true;
  CHECK_THAT(Fabric::build(nvlink_high, *Fabric::groups_by_order(nvlink_high, 16)).error().message,
             Catch::StartsWith("levels/1/links: an NVLink level must be the lowest"));
  // A rack whose nodes were labelled into two blocks.
  FabricSpec spec = racks_and_blocks(2, 1, 2, 1);
  CHECK_THAT(Fabric::build(spec, {{0, 0, 1, 1}, {0, 1, 1, 1}}).error().message,
             Catch::Contains("a rack cannot sit in two blocks"));
}

TEST_CASE("core::describe_fabric says the tiers in words", "[core]") {
  FabricSpec spec = racks_and_blocks(16, 4, 8, 2);
  spec.rails = 8;
  CHECK(describe_fabric(spec) == "rack: 16 nodes, 4:1; block: 8 racks, 2:1; 8 rails");
  FabricSpec labelled;
  labelled.levels.push_back({"clique", 0, "nvidia.com/gpu.clique", 1, 0, true});
  CHECK(describe_fabric(labelled) == "clique: by label nvidia.com/gpu.clique, NVLink domain");
  CHECK(describe_fabric(FabricSpec{}).empty());
}
