// The ring model's channel set: rings over single NVLinks on direct-NVLink machines, NCCL's
// per-GPU fabric share on NVSwitch machines (core/ring.h).
#include <catch2/catch.hpp>
#include <map>
#include <utility>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "core/ring.h"
#include "core/topology.h"
#include "tests/core/topology_fixture.h"

using namespace topsim;

namespace {

// How many channels cross each directed GPU pair.
std::map<std::pair<int, int>, int> pair_uses(const RingPlan& plan) {
  std::map<std::pair<int, int>, int> uses;
  for (const auto& ring : plan.channel_rings)
    for (size_t i = 0; i < ring.size(); ++i) ++uses[{ring[i], ring[(i + 1) % ring.size()]}];
  return uses;
}

}  // namespace

TEST_CASE("core::ring achieved NVLink rate per link, by generation", "[core][ring]") {
  // 128-byte writes behind one 16-byte header flit on NVLink 1 and 2; NCCL's figure from NVLink 3.
  CHECK(nvlink_achieved_gbps_per_link(60) == Approx(20.0 * 128 / 144));
  CHECK(nvlink_achieved_gbps_per_link(70) == Approx(25.0 * 128 / 144));
  CHECK(nvlink_achieved_gbps_per_link(80) == Approx(20.0));
  CHECK(nvlink_achieved_gbps_per_link(90) == Approx(20.6));
  CHECK(nvlink_gbps_per_link(70) == Approx(20.0));  // NCCL's search constant is unchanged
}

TEST_CASE("core::ring rings over single NVLinks on the DGX-1 hybrid cube-mesh", "[core][ring]") {
  const Topology t = builtin("dgx1-v100");
  const RingModel model(t);
  const double link = 25.0 * 128 / 144;

  SECTION("8 GPUs: 6 rings that use every NVLink of every GPU once per direction") {
    const RingPlan plan = model.plan({0, 1, 2, 3, 4, 5, 6, 7});
    REQUIRE(plan.channel_rings.size() == 6);
    CHECK(plan.bus_bandwidth_gbps == Approx(6 * link));
    CHECK(plan.nvlink_only);
    for (const auto& ring : plan.channel_rings) CHECK(ring.size() == 8);
    int links = 0;
    for (const auto& [hop, uses] : pair_uses(plan)) {
      const PairLink& l = t.gpu_pair(hop.first, hop.second);
      REQUIRE(l.cls == LinkClass::NVLink);
      CHECK(uses == l.nvlinks);  // a bond of k links carries exactly k rings per direction
      links += uses;
    }
    CHECK(links == 8 * 6);  // six links out of every GPU
  }
  SECTION("an NV2 pair carries two rings, an NV1 pair one") {
    CHECK(model.plan({0, 3}).channel_rings.size() == 2);
    CHECK(model.plan({0, 3}).bus_bandwidth_gbps == Approx(2 * link));
    CHECK(model.plan({0, 1}).channel_rings.size() == 1);
    CHECK(model.plan({0, 1}).bus_bandwidth_gbps == Approx(link));
  }
  SECTION("a quad: four links per GPU inside it, four rings") {
    CHECK(model.plan({0, 1, 2, 3}).channel_rings.size() == 4);
    CHECK(model.plan({4, 5, 6, 7}).bus_bandwidth_gbps == Approx(4 * link));
  }
  SECTION("a square with two missing diagonals: one ring per direction, limited by its NV1 hops") {
    // 0-1 NV1, 1-5 NV2, 5-4 NV1, 4-0 NV2; 0-5 and 1-4 have no NVLink.
    const RingPlan plan = model.plan({0, 1, 4, 5});
    CHECK(plan.channel_rings.size() == 2);
    CHECK(plan.nvlink_only);
  }
  SECTION("no NVLink-only ring: the capacity search over PCIe and QPI, as before") {
    const RingPlan plan = model.plan({0, 5});
    CHECK_FALSE(plan.nvlink_only);
    CHECK(plan.bus_bandwidth_gbps < link);
  }
}

TEST_CASE("core::ring NVSwitch machines keep NCCL's per-GPU share of the fabric", "[core][ring]") {
  // Within the +-10% tolerance of nccl-tests today: DGX A100 ~230 GB/s, HGX H100 (no NVLS) ~360.
  for (int k : {2, 4, 8}) {
    std::vector<int> gpus;
    for (int g = 0; g < k; ++g) gpus.push_back(g);
    CHECK(RingModel(builtin("dgx-a100")).plan(gpus).bus_bandwidth_gbps == Approx(240.0));
    CHECK(RingModel(builtin("hgx-h100")).plan(gpus).bus_bandwidth_gbps == Approx(370.8));
  }
}
