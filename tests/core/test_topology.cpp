#include <algorithm>
#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "core/topology.h"
#include "tests/core/topology_fixture.h"

using namespace topsim;

TEST_CASE("core::Topology DGX-1 V100 link facts", "[core][topology]") {
  const Topology t = builtin("dgx1-v100");
  SECTION("GPU0-GPU3 is NV2 at 40 GB/s (NCCL SM70: 20 GB/s per link)") {
    const PairLink& l = t.gpu_pair(0, 3);
    CHECK(l.cls == LinkClass::NVLink);
    CHECK(l.nvlinks == 2);
    CHECK(l.bandwidth_gbps == Approx(40.0));
    CHECK(l.p2p);
    CHECK_FALSE(l.via_nvswitch);
  }
  SECTION("GPU0-GPU1 is NV1 at 20 GB/s") {
    CHECK(link_code(t.gpu_pair(0, 1).cls, t.gpu_pair(0, 1).nvlinks) == "NV1");
    CHECK(t.gpu_pair(0, 1).bandwidth_gbps == Approx(20.0));
  }
  SECTION("GPU0-GPU5 is SYS, P2P not allowed, QPI 6 GB/s / 1.2 Intel overhead") {
    const PairLink& l = t.gpu_pair(0, 5);
    CHECK(l.cls == LinkClass::Sys);
    CHECK_FALSE(l.p2p);
    CHECK(l.bandwidth_gbps == Approx(5.0));
  }
  SECTION("the matrix is symmetric, the diagonal is X, every GPU has 6 NVLinks") {
    for (int a = 0; a < 8; ++a) {
      CHECK(t.gpu_pair(a, a).cls == LinkClass::Self);
      int links = 0;
      for (int b = 0; b < 8; ++b) {
        CHECK(t.gpu_pair(a, b).cls == t.gpu_pair(b, a).cls);
        if (a != b && t.gpu_pair(a, b).cls == LinkClass::NVLink) links += t.gpu_pair(a, b).nvlinks;
      }
      CHECK(links == 6);
    }
  }
  SECTION("mlx5_0 is PIX to GPU2/GPU3, NODE to GPU0/GPU1, SYS to GPU4-7 (as nvidia-smi shows)") {
    CHECK(t.gpu_nic(2, 0).cls == LinkClass::PIX);
    CHECK(t.gpu_nic(3, 0).cls == LinkClass::PIX);
    CHECK(t.gpu_nic(0, 0).cls == LinkClass::Node);
    CHECK(t.gpu_nic(7, 0).cls == LinkClass::Sys);
    CHECK(t.nearest_nic(5) == 0);
  }
  SECTION("GPUs 0-3 are on NUMA node 0, 4-7 on NUMA node 1") {
    for (int g = 0; g < 8; ++g) CHECK(t.gpu_numa(g) == (g < 4 ? 0 : 1));
  }
}

TEST_CASE("core::Topology NVSwitch machines", "[core][topology]") {
  SECTION("every A100 pair on dgx-a100 is NV12 through the NVSwitch at 240 GB/s") {
    const Topology t = builtin("dgx-a100");
    REQUIRE(t.has_nvswitch());
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b) {
        if (a == b) continue;
        CHECK(link_code(t.gpu_pair(a, b).cls, t.gpu_pair(a, b).nvlinks) == "NV12");
        CHECK(t.gpu_pair(a, b).via_nvswitch);
        CHECK(t.gpu_pair(a, b).bandwidth_gbps == Approx(240.0));
      }
    CHECK(t.gpu_nic(0, 0).cls == LinkClass::PXB);
    CHECK(t.gpu_nic(0, 2).cls == LinkClass::Sys);
  }
  SECTION("hgx-h100 pairs are NV18 at 18 x 20.6 = 370.8 GB/s; each GPU's NIC is PIX") {
    const Topology t = builtin("hgx-h100");
    CHECK(link_code(t.gpu_pair(0, 7).cls, t.gpu_pair(0, 7).nvlinks) == "NV18");
    CHECK(t.gpu_pair(0, 7).bandwidth_gbps == Approx(370.8));
    for (int g = 0; g < 8; ++g) {
      CHECK(t.gpu_nic(g, g).cls == LinkClass::PIX);
      CHECK(t.nearest_nic(g) == g);
    }
    CHECK(t.gpu_nic(0, 1).cls == LinkClass::PXB);
    CHECK(t.gpu_nic(0, 2).cls == LinkClass::Node);
    CHECK(t.gpu_nic(0, 4).cls == LinkClass::Sys);
  }
  SECTION("dgx2-v100 has 16 GPUs, all pairs NV6 (6 x 20 = 120 GB/s)") {
    const Topology t = builtin("dgx2-v100");
    REQUIRE(t.gpu_count() == 16);
    CHECK(link_code(t.gpu_pair(0, 15).cls, t.gpu_pair(0, 15).nvlinks) == "NV6");
    CHECK(t.gpu_pair(3, 12).bandwidth_gbps == Approx(120.0));
  }
}

TEST_CASE("core::Topology PCIe classes on pcie-8gpu", "[core][topology]") {
  const Topology t = builtin("pcie-8gpu");
  SECTION("pairs under one switch are PIX at Gen4 x16 = 24 GB/s, P2P allowed") {
    for (int s = 0; s < 4; ++s) {
      const PairLink& l = t.gpu_pair(2 * s, 2 * s + 1);
      CHECK(l.cls == LinkClass::PIX);
      CHECK(l.bandwidth_gbps == Approx(24.0));
      CHECK(l.p2p);
    }
  }
  SECTION("pairs on two switches of one socket are NODE; across sockets SYS; neither allows P2P") {
    CHECK(t.gpu_pair(0, 2).cls == LinkClass::Node);
    CHECK_FALSE(t.gpu_pair(0, 2).p2p);
    CHECK(t.gpu_pair(0, 2).bandwidth_gbps == Approx(24.0 / 1.2));
    CHECK(t.gpu_pair(1, 6).cls == LinkClass::Sys);
    CHECK(t.gpu_pair(1, 6).bandwidth_gbps == Approx(10.0 / 1.2));  // Skylake UPI
  }
}

TEST_CASE("core::Topology GPU routes over directed edges", "[core][topology]") {
  // The narrowest directed edge along a route, GB/s.
  auto route_gbps = [](const Topology& t, int a, int b) {
    double gbps = 1e30;
    for (int e : t.gpu_route(a, b)) gbps = std::min(gbps, t.directed_edge_gbps().at(e));
    return gbps;
  };
  // The route from b to a walks the same links as a -> b, backwards and in the other direction.
  auto reversed = [](std::vector<int> route) {
    std::reverse(route.begin(), route.end());
    for (int& e : route) e ^= 1;
    return route;
  };
  SECTION("every link is two directed edges of equal capacity") {
    const Topology t = builtin("pcie-8gpu");
    const std::vector<double>& gbps = t.directed_edge_gbps();
    REQUIRE(gbps.size() % 2 == 0);
    for (size_t e = 0; e < gbps.size(); e += 2) CHECK(gbps[e] == gbps[e + 1]);
  }
  SECTION("a direct NVLink bond is one edge: DGX-1 GPU0 -> GPU3 at NV2 = 40 GB/s") {
    const Topology t = builtin("dgx1-v100");
    CHECK(t.gpu_route(0, 3).size() == 1);
    CHECK(route_gbps(t, 0, 3) == Approx(40.0));
    CHECK(t.gpu_route(3, 0) == reversed(t.gpu_route(0, 3)));
  }
  SECTION("through the NVSwitch fabric: two edges at the GPU's 240 GB/s on dgx-a100") {
    const Topology t = builtin("dgx-a100");
    CHECK(t.gpu_route(0, 5).size() == 2);
    CHECK(route_gbps(t, 0, 5) == Approx(240.0));
    CHECK(t.gpu_route(5, 0) == reversed(t.gpu_route(0, 5)));
  }
  SECTION("PCIe pairs follow the widest path: PIX through one switch, SYS over the UPI link") {
    const Topology t = builtin("pcie-8gpu");
    CHECK(t.gpu_route(0, 1).size() == 2);
    CHECK(route_gbps(t, 0, 1) == Approx(24.0));
    CHECK(route_gbps(t, 1, 6) == Approx(10.0));  // the bandwidth before the Intel P2P overhead
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b)
        if (a != b) CHECK(t.gpu_route(b, a) == reversed(t.gpu_route(a, b)));
  }
  SECTION("copies answer alike") {
    const Topology t = builtin("dgx1-v100");
    const Topology copy = t;
    CHECK(copy.gpu_route(0, 5) == t.gpu_route(0, 5));
    CHECK(copy.directed_edge_gbps() == t.directed_edge_gbps());
  }
}

TEST_CASE("core::Topology PXB and PHB classes", "[core][topology]") {
  // Two switches under a common switch are PXB; two devices straight under one host bridge PHB.
  NodeModelBuilder b("custom");
  const int numa = b.numa(CpuKind::Amd);
  const int hb = b.host_bridge(numa, 4);
  const int top = b.pcie_switch(hb, 4);
  b.gpu(b.pcie_switch(top, 4), "a100-pcie");
  b.gpu(b.pcie_switch(top, 4), "a100-pcie");
  const int hb2 = b.host_bridge(numa, 4);
  b.gpu(hb2, "a100-pcie");
  b.gpu(hb2, "a100-pcie");
  auto t = Topology::build(b.take());
  REQUIRE(t.ok());
  SECTION("GPU0-GPU1 PXB with P2P; GPU2-GPU3 PHB without; GPU0-GPU2 NODE") {
    CHECK(t->gpu_pair(0, 1).cls == LinkClass::PXB);
    CHECK(t->gpu_pair(0, 1).p2p);
    CHECK(t->gpu_pair(2, 3).cls == LinkClass::PHB);
    CHECK_FALSE(t->gpu_pair(2, 3).p2p);
    CHECK(t->gpu_pair(2, 3).bandwidth_gbps == Approx(24.0));  // AMD: no Intel P2P overhead
    CHECK(t->gpu_pair(0, 2).cls == LinkClass::Node);
  }
}

TEST_CASE("core::Topology rejects invalid models", "[core][topology]") {
  NodeModel m = *builtin_model("dgx1-v100");
  SECTION("a GPU pointing at a missing bridge names the field") {
    m.gpus[3].bridge = 42;
    auto t = Topology::build(m);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().message == "gpus[3].bridge: 42 is not a bridge index (node has 8 bridges)");
  }
  SECTION("an NVLink to a GPU that does not exist names the field") {
    m.nvlinks.push_back({0, 8, 1});
    auto t = Topology::build(m);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().message.rfind("nvlinks[16].gpus:", 0) == 0);
  }
  SECTION("a node without GPUs is rejected") {
    m.gpus.clear();
    m.nvlinks.clear();
    CHECK_FALSE(Topology::build(m).ok());
  }
}

TEST_CASE("core::link codes parse and print", "[core][topology]") {
  SECTION("nvidia-smi codes round-trip; garbage is rejected") {
    for (const char* code : {"X", "NV1", "NV12", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"}) {
      auto parsed = parse_link_code(code);
      REQUIRE(parsed);
      CHECK(link_code(parsed->cls, parsed->nvlinks) == code);
    }
    CHECK_FALSE(parse_link_code("NV"));
    CHECK_FALSE(parse_link_code("NV0"));
    CHECK_FALSE(parse_link_code("FOO"));
    CHECK_FALSE(parse_link_code("pix"));
  }
}

TEST_CASE("core::CPU kind names", "[core][topology]") {
  SECTION("names round-trip; parse_cpu_kind ignores letter case only") {
    for (const CpuKind kind : enum_values<CpuKind>()) CHECK(parse_cpu_kind(enum_name(kind)) == kind);
    CHECK(enum_name_list<CpuKind>().size() == 7);
    CHECK(parse_cpu_kind("Intel-Skylake") == CpuKind::IntelSkylake);
    CHECK_FALSE(parse_cpu_kind("intel_skylake"));
    CHECK_FALSE(parse_cpu_kind("skylake"));
    CHECK_FALSE(parse_enum<CpuKind>("AMD"));
  }
}

TEST_CASE("core::nvswitch_domain_model builds a 72-GPU domain", "[core][topology]") {
  auto t = Topology::build(nvswitch_domain_model(72, "b200", 36));
  REQUIRE(t.ok());
  SECTION("all pairs NV18 at 18 x 40.1 GB/s, two NUMA nodes") {
    CHECK(t->gpu_count() == 72);
    CHECK(link_code(t->gpu_pair(0, 71).cls, t->gpu_pair(0, 71).nvlinks) == "NV18");
    CHECK(t->gpu_pair(5, 40).bandwidth_gbps == Approx(18 * 40.1));
    CHECK(t->gpu_numa(71) == 1);
  }
}
