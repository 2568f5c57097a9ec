#include <catch2/catch.hpp>

#include "core/allocator.h"
#include "core/builtin_models.h"
#include "tests/core/topology_fixture.h"

using namespace topsim;

namespace {

Topology build(NodeModel model) {
  auto topo = Topology::build(std::move(model));
  REQUIRE(topo.ok());
  return std::move(topo).value();
}

std::vector<int> place_ids(const Allocator& a, const GpuSet& free, PlacementRequest r) {
  auto p = a.place(free, r);
  REQUIRE(p.ok());
  return p->gpus;
}

PlacementRequest request(int gpus, PlacementPolicy policy = PlacementPolicy::BestFit) {
  PlacementRequest r;
  r.gpus = gpus;
  r.policy = policy;
  return r;
}

// The DGX-1 Volta layout of the reference allocator's own tests (go-gpuallocator
// common_test.go, NewDGX1VoltaNode): the hybrid cube-mesh NVLinks, GPU pairs {0,1} {2,3} {4,5}
// {6,7} on one switch each, the two switches of a socket under one host bridge (PHB), as NVML
// reported it then. The built-in dgx1-v100 follows today's nvidia-smi instead (NODE).
NodeModel reference_dgx1_layout() {
  NodeModel m = *builtin_model("dgx1-v100");
  NodeModelBuilder b("dgx1-v100-nvml-fixture");
  for (int s = 0; s < 2; ++s) {
    const int hb = b.host_bridge(b.numa(CpuKind::IntelBroadwell));
    const int sw_a = b.pcie_switch(hb), sw_b = b.pcie_switch(hb);
    for (int g = 0; g < 4; ++g) b.gpu(g < 2 ? sw_a : sw_b, "v100");
  }
  NodeModel fixture = b.take();
  fixture.nvlinks = m.nvlinks;
  return fixture;
}

bool fully_nvlink(const Topology& t, const std::vector<int>& ids) {
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t j = i + 1; j < ids.size(); ++j)
      if (t.gpu_pair(ids[i], ids[j]).cls != LinkClass::NVLink) return false;
  return true;
}

}  // namespace

TEST_CASE("core::Allocator best-fit equals exhaustive search on every mask and size", "[core][allocator]") {
  for (const char* name : {"dgx1-v100", "pcie-8gpu", "dgx-a100"}) {
    SECTION(std::string("every free mask x every k on ") + name) {
      // the memoised search returns exactly the exhaustive winner of the written objective
      const Topology t = builtin(name);
      const Allocator allocator(t);
      int checked = 0;
      for (uint32_t mask = 1; mask < 256; ++mask)
        for (int k = 1; k <= __builtin_popcount(mask); ++k) {
          const GpuSet free(mask);
          const auto fast = allocator.place(free, request(k));
          REQUIRE(fast.ok());
          const GpuSet slow = allocator.best_fit_exhaustive(free, request(k));
          INFO(name << " free=" << format_ids(to_ids(free)) << " k=" << k);
          REQUIRE(to_ids(slow) == fast->gpus);
          ++checked;
        }
      CHECK(checked == 1024);  // sum over masks of popcount = 8 x 2^7
    }
  }
  SECTION("with must-include and constraints on dgx1-v100") {
    // constrained searches also match exhaustive search
    const Topology t = builtin("dgx1-v100");
    const Allocator allocator(t);
    for (uint32_t mask = 1; mask < 256; mask += 3)
      for (int k = 2; k <= __builtin_popcount(mask); ++k) {
        PlacementRequest r = request(k);
        r.must_include = {to_ids(GpuSet(mask)).back()};
        r.constraints.min_bandwidth_gbps = 20;
        r.allow_relax = false;
        const auto fast = allocator.place(GpuSet(mask), r);
        const GpuSet slow = allocator.best_fit_exhaustive(GpuSet(mask), r);
        REQUIRE(fast.ok() == slow.any());
        if (fast.ok()) REQUIRE(to_ids(slow) == fast->gpus);
      }
  }
}

TEST_CASE("core::Allocator best-fit on an idle DGX-1", "[core][allocator]") {
  const Topology t = builtin("dgx1-v100");
  const Allocator allocator(t);
  const GpuSet idle = all_gpus(8);
  SECTION("4 GPUs: a fully NVLink-connected quad, 4 rings over single NVLinks: 4 x 22.2 GB/s") {
    const auto ids = place_ids(allocator, idle, request(4));
    CHECK((ids == std::vector<int>{0, 1, 2, 3} || ids == std::vector<int>{4, 5, 6, 7}));
    CHECK(fully_nvlink(t, ids));
    CHECK(allocator.rings().bus_bandwidth_gbps(ids) == Approx(4 * 25.0 * 128 / 144));
  }
  SECTION("2 GPUs: an NV2 pair at 40 GB/s") {
    const auto ids = place_ids(allocator, idle, request(2));
    CHECK(t.gpu_pair(ids[0], ids[1]).nvlinks == 2);
  }
  SECTION("2 GPUs that must include GPU 4: an NV2 partner (0 or 7)") {
    PlacementRequest r = request(2);
    r.must_include = {4};
    const auto ids = place_ids(allocator, idle, r);
    REQUIRE(ids.size() == 2);
    const int partner = ids[0] == 4 ? ids[1] : ids[0];
    CHECK(t.gpu_pair(4, partner).nvlinks == 2);
  }
  SECTION("8 GPUs: the whole node, 6 rings using all six NVLinks of every GPU: 133.3 GB/s") {
    auto p = allocator.place(idle, request(8));
    REQUIRE(p.ok());
    CHECK(p->ring.bus_bandwidth_gbps == Approx(6 * 25.0 * 128 / 144));
    CHECK(p->ring.channel_gbps.size() == 6);
    CHECK(p->ring.nvlink_only);
  }
  SECTION("leaves well-connected GPUs behind: after {0,1,2,3} are taken a 4-GPU job gets {4,5,6,7}") {
    CHECK(place_ids(allocator, to_gpu_set({4, 5, 6, 7}), request(4)) == std::vector<int>{4, 5, 6, 7});
  }
}

TEST_CASE("core::Allocator constraints and fallback", "[core][allocator]") {
  const Topology t = builtin("dgx1-v100");
  const Allocator allocator(t);
  const GpuSet one_nvlink_pair = to_gpu_set({0, 5, 6});  // 0-5 SYS, 0-6 SYS, 5-6 NV2
  SECTION("require-nvlink with no NVLink-connected free set fails with a reason when relaxing is forbidden") {
    PlacementRequest r = request(2);
    r.constraints.require_nvlink = true;
    r.allow_relax = false;
    auto p = allocator.place(to_gpu_set({0, 5}), r);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message == "cannot satisfy: no 2 of the free GPUs (0,5) meet require-nvlink");
  }
  SECTION("the fallback drops require-nvlink and reports it") {
    PlacementRequest r = request(2);
    r.constraints.require_nvlink = true;
    auto p = allocator.place(to_gpu_set({0, 5}), r);
    REQUIRE(p.ok());
    CHECK(p->gpus == std::vector<int>{0, 5});
    CHECK(p->relaxed == std::vector<std::string>{"require-nvlink"});
    CHECK_FALSE(p->fallback_reason.empty());
  }
  SECTION("require-nvlink picks the NVLink pair when one exists") {
    PlacementRequest r = request(2);
    r.constraints.require_nvlink = true;
    CHECK(place_ids(allocator, one_nvlink_pair, r) == std::vector<int>{5, 6});
  }
  SECTION("same-numa keeps a 3-GPU job on one socket") {
    PlacementRequest r = request(3);
    r.constraints.same_numa = true;
    const auto ids = place_ids(allocator, to_gpu_set({0, 1, 4, 5, 6}), r);
    CHECK(ids == std::vector<int>{4, 5, 6});
  }
  SECTION("max-link-class PIX on pcie-8gpu only accepts switch mates; min-bandwidth relaxes first") {
    const Topology pcie = builtin("pcie-8gpu");
    const Allocator a(pcie);
    PlacementRequest r = request(2);
    r.constraints.max_link_class = LinkClass::PIX;
    CHECK(place_ids(a, to_gpu_set({0, 2, 3, 5}), r) == std::vector<int>{2, 3});
    r.constraints.min_bandwidth_gbps = 100;
    auto p = a.place(to_gpu_set({0, 2, 3, 5}), r);
    REQUIRE(p.ok());
    CHECK(p->relaxed == std::vector<std::string>{"min-bandwidth"});
    CHECK(p->gpus == std::vector<int>{2, 3});
  }
}

TEST_CASE("core::Allocator rejects bad requests", "[core][allocator]") {
  const Topology t = builtin("dgx1-v100");
  const Allocator allocator(t);
  SECTION("more GPUs than free") {
    auto p = allocator.place(to_gpu_set({1, 2, 3}), request(4));
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message == "cannot satisfy: 4 GPUs requested, 3 free (1,2,3)");
  }
  SECTION("more GPUs than the node has") {
    CHECK(allocator.place(all_gpus(8), request(9)).error().message == "node dgx1-v100 has 8 GPUs, 9 requested");
  }
  SECTION("zero GPUs") { CHECK_FALSE(allocator.place(all_gpus(8), request(0)).ok()); }
  SECTION("must-include out of range, not free, duplicated") {
    PlacementRequest r = request(2);
    r.must_include = {12};
    CHECK(allocator.place(all_gpus(8), r).error().message == "must-include GPU 12 is out of range (GPUs 0-7)");
    r.must_include = {3};
    CHECK(allocator.place(to_gpu_set({0, 1}), r).error().message == "cannot satisfy: must-include GPU 3 is not free");
    r.must_include = {1, 1};
    CHECK_FALSE(allocator.place(all_gpus(8), r).ok());
  }
  SECTION("a free id beyond the node") { CHECK_FALSE(allocator.place(to_gpu_set({0, 9}), request(1)).ok()); }
  SECTION("unknown policy names do not parse") {
    CHECK_FALSE(parse_enum<PlacementPolicy>("bestfit"));
    CHECK(parse_enum<PlacementPolicy>("device-plugin") == PlacementPolicy::DevicePlugin);
  }
  SECTION("device-plugin refuses constraints") {
    PlacementRequest r = request(2, PlacementPolicy::DevicePlugin);
    r.constraints.same_numa = true;
    CHECK_FALSE(allocator.place(all_gpus(8), r).ok());
  }
}

TEST_CASE("core::Allocator device-plugin reproduces the reference allocator", "[core][allocator]") {
  const Topology t = build(reference_dgx1_layout());
  const Allocator allocator(t);
  auto choose = [&](std::vector<int> free, int k, std::vector<int> must = {}) {
    PlacementRequest r = request(k, PlacementPolicy::DevicePlugin);
    r.must_include = std::move(must);
    return place_ids(allocator, to_gpu_set(free), r);
  };
  SECTION("must include GPU 4: 2 GPUs -> {4,7}, 4 GPUs -> {4,5,6,7}, 1 GPU -> {4}") {
    CHECK(choose({0, 1, 2, 3, 4, 5, 6, 7}, 2, {4}) == std::vector<int>{4, 7});
    CHECK(choose({0, 1, 2, 3, 4, 5, 6, 7}, 4, {4}) == std::vector<int>{4, 5, 6, 7});
    CHECK(choose({0, 1, 2, 3, 4, 5, 6, 7}, 1, {4}) == std::vector<int>{4});
  }
  SECTION("the reference's policy test cases") {
    CHECK(choose({0, 2, 4, 5}, 2) == std::vector<int>{4, 5});  // single NVLink, prefer same switch
    CHECK(choose({0, 4, 5, 6}, 2) == std::vector<int>{5, 6});  // single NVLink, prefer same socket
    CHECK(choose({0, 1, 3}, 2) == std::vector<int>{0, 3});     // dual NVLink same socket
    CHECK(choose({0, 1, 4}, 2) == std::vector<int>{0, 4});     // dual NVLink cross socket
    CHECK(choose({0, 1, 2, 3, 4, 5, 6, 7}, 4, {0, 2, 4, 6}) == std::vector<int>{0, 2, 4, 6});
  }
  SECTION("successive 2-GPU allocations on an idle node give {0,3} {1,2} {4,7} {5,6}") {
    GpuSet free = all_gpus(8);
    std::vector<std::vector<int>> got;
    for (int i = 0; i < 4; ++i) {
      got.push_back(place_ids(allocator, free, request(2, PlacementPolicy::DevicePlugin)));
      for (int g : got.back()) free.reset(g);
    }
    std::sort(got.begin(), got.end());
    CHECK(got == std::vector<std::vector<int>>{{0, 3}, {1, 2}, {4, 7}, {5, 6}});
  }
  SECTION("it does not see NVSwitch links: on dgx-a100 it scores by PCIe only") {
    const Topology a100 = builtin("dgx-a100");
    const Allocator a(a100);
    // GPU0 and GPU1 share a PCIe switch tree (PXB 40), every other pair is SYS 10.
    CHECK(place_ids(a, all_gpus(8), request(2, PlacementPolicy::DevicePlugin)) == std::vector<int>{0, 1});
  }
}

TEST_CASE("core::Allocator first-fit, pack and spread", "[core][allocator]") {
  const Topology t = builtin("pcie-8gpu");
  const Allocator allocator(t);
  const GpuSet free = to_gpu_set({1, 2, 3, 4, 5, 6, 7});  // NUMA 0 has 1,2,3 free; NUMA 1 has 4..7
  SECTION("first-fit: the first NUMA node that fits, lowest ids") {
    CHECK(place_ids(allocator, free, request(2, PlacementPolicy::FirstFit)) == std::vector<int>{1, 2});
    CHECK(place_ids(allocator, free, request(4, PlacementPolicy::FirstFit)) == std::vector<int>{4, 5, 6, 7});
  }
  SECTION("pack: the fullest NUMA node that fits, then the fullest switch") {
    // NUMA 0 has 3 free (fuller than NUMA 1's 4); GPU 1 is alone on its switch -> take it first.
    CHECK(place_ids(allocator, free, request(1, PlacementPolicy::Pack)) == std::vector<int>{1});
    CHECK(place_ids(allocator, free, request(2, PlacementPolicy::Pack)) == std::vector<int>{2, 3});
  }
  SECTION("spread: round-robin over NUMA nodes") {
    CHECK(place_ids(allocator, free, request(2, PlacementPolicy::Spread)) == std::vector<int>{1, 4});
    CHECK(place_ids(allocator, free, request(4, PlacementPolicy::Spread)) == std::vector<int>{1, 2, 4, 5});
  }
}

TEST_CASE("core::Allocator on a 72-GPU NVSwitch domain", "[core][allocator]") {
  const Topology t = build(nvswitch_domain_model(72, "b200", 36));
  const Allocator allocator(t);
  SECTION("best-fit keeps a 16-GPU job on one NUMA node at the full NVLink bandwidth") {
    auto p = allocator.place(all_gpus(72), request(16));
    REQUIRE(p.ok());
    CHECK(p->gpus.size() == 16);
    CHECK(p->gpus.back() < 36);
    CHECK(p->ring.bus_bandwidth_gbps == Approx(18 * 40.1));
  }
  SECTION("pack and spread work on large domains") {
    CHECK(place_ids(allocator, all_gpus(72), request(4, PlacementPolicy::Spread)) == std::vector<int>{0, 1, 36, 37});
    CHECK(place_ids(allocator, all_gpus(72), request(40, PlacementPolicy::Pack)).size() == 40);
  }
}

TEST_CASE("core::apply_annotations maps pod annotations onto requests", "[core][allocator]") {
  SECTION("single-numa, nvlink, spread, min-bandwidth and require-nvlink") {
    PlacementRequest r;
    REQUIRE(apply_annotations({{"gpu.topology/policy", "single-numa"}, {"gpu.topology/min-bandwidth", "40"}}, r).ok());
    CHECK(r.constraints.same_numa);
    CHECK(r.constraints.min_bandwidth_gbps == 40);
    PlacementRequest s;
    REQUIRE(apply_annotations({{"gpu.topology/policy", "spread"}, {"gpu.topology/require-nvlink", "true"}}, s).ok());
    CHECK(s.policy == PlacementPolicy::Spread);
    CHECK(s.constraints.require_nvlink);
  }
  SECTION("bad values and unknown keys are errors naming the annotation") {
    PlacementRequest r;
    CHECK(apply_annotations({{"gpu.topology/policy", "fastest"}}, r).error().message ==
          "gpu.topology/policy: 'fastest' is not one of single-numa, nvlink, best-effort, spread");
    CHECK_FALSE(apply_annotations({{"gpu.topology/min-bandwidth", "-3"}}, r).ok());
    CHECK_FALSE(apply_annotations({{"gpu.topology/colour", "red"}}, r).ok());
  }
}

TEST_CASE("core::gpu_set all_gpus is the first n ids, and equal sets hash equal", "[core][allocator][gpu_set]") {
  for (int n : {-3, 0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 500}) {
    GpuSet expected;
    for (int i = 0; i < n && i < static_cast<int>(kMaxGpusPerNode); ++i) expected.set(static_cast<size_t>(i));
    CHECK(all_gpus(n) == expected);
  }
  // The hash reads every word: sets differing only above id 63 hash apart (here), equal sets alike.
  GpuSet high = all_gpus(8);
  high.set(100);
  CHECK(GpuSetHash()(high) != GpuSetHash()(all_gpus(8)));
  CHECK(GpuSetHash()(to_gpu_set({0, 1, 2, 3, 4, 5, 6, 7})) == GpuSetHash()(all_gpus(8)));
}
