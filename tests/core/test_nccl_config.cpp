#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "core/nccl_config.h"
#include "core/throughput.h"
#include "tests/core/topology_fixture.h"

using namespace topsim;

namespace {

NcclConfig config_for(const Topology& t, const std::vector<int>& gpus, bool multi_node = false) {
  return nccl_config(t, gpus, RingModel(t).plan(gpus), multi_node);
}

std::string value(const NcclConfig& config, const char* name) {
  const std::string* v = config.find(name);
  INFO("variable " << name);
  REQUIRE(v != nullptr);
  return *v;
}

}  // namespace

TEST_CASE("core::nccl_config environment on one node", "[core][nccl-config]") {
  SECTION("DGX-1 GPUs 0-3: an NVLink ring, so P2P level NVL; no NVLS on Volta; Ring/Simple pinned") {
    const Topology t = builtin("dgx1-v100");
    const NcclConfig config = config_for(t, {0, 1, 2, 3});
    CHECK(value(config, "CUDA_DEVICE_ORDER") == "PCI_BUS_ID");
    CHECK(value(config, "CUDA_VISIBLE_DEVICES") == "0,1,2,3");
    CHECK(value(config, "NCCL_P2P_LEVEL") == "NVL");
    CHECK(value(config, "NCCL_ALGO") == "Ring");
    CHECK(value(config, "NCCL_PROTO") == "Simple");
    CHECK(value(config, "NCCL_NVLS_ENABLE") == "0");
    CHECK(value(config, "NCCL_TOPO_FILE") == "nccl-topo.xml");
    CHECK(config.find("NCCL_IB_HCA") == nullptr);
    CHECK(config.find("NCCL_SOCKET_IFNAME") == nullptr);
  }
  SECTION("variables come in a fixed order; CUDA_VISIBLE_DEVICES is ascending whatever the input order") {
    const Topology t = builtin("dgx1-v100");
    const NcclConfig config = nccl_config(t, {3, 1, 2, 0}, RingModel(t).plan({0, 1, 2, 3}), false, "/tmp/job-7.xml");
    std::vector<std::string> names;
    for (const auto& [name, v] : config.env) names.push_back(name);
    CHECK(names == std::vector<std::string>{"CUDA_DEVICE_ORDER", "CUDA_VISIBLE_DEVICES", "NCCL_P2P_LEVEL", "NCCL_ALGO",
                                            "NCCL_PROTO", "NCCL_NVLS_ENABLE", "NCCL_TOPO_FILE"});
    CHECK(value(config, "CUDA_VISIBLE_DEVICES") == "0,1,2,3");
    CHECK(value(config, "NCCL_TOPO_FILE") == "/tmp/job-7.xml");
  }
  SECTION("HGX H100 (NVSwitch gen 3, sm 90): NVLS enabled for 2+ GPUs, not for one") {
    const Topology t = builtin("hgx-h100");
    CHECK(value(config_for(t, {0, 1, 2, 3}), "NCCL_NVLS_ENABLE") == "1");
    CHECK(value(config_for(t, {0, 1, 2, 3}), "NCCL_P2P_LEVEL") == "NVL");
    CHECK(value(config_for(t, {5}), "NCCL_NVLS_ENABLE") == "0");
    CHECK(value(config_for(t, {5}), "NCCL_P2P_LEVEL") == "LOC");
  }
  SECTION("DGX A100 (NVSwitch, sm 80): no NVLS") {
    CHECK(value(config_for(builtin("dgx-a100"), {0, 1, 2, 3, 4, 5, 6, 7}), "NCCL_NVLS_ENABLE") == "0");
  }
  SECTION("PCIe box: the ring's worst hop sets the level (PIX, NODE -> PHB, SYS)") {
    const Topology t = builtin("pcie-8gpu");
    CHECK(value(config_for(t, {0, 1}), "NCCL_P2P_LEVEL") == "PIX");
    CHECK(value(config_for(t, {0, 2}), "NCCL_P2P_LEVEL") == "PHB");
    CHECK(value(config_for(t, {0, 5}), "NCCL_P2P_LEVEL") == "SYS");
  }
}

TEST_CASE("core::nccl_config network variables across nodes", "[core][nccl-config]") {
  SECTION("DGX A100, all 8 GPUs: NCCL_IB_HCA lists the 8 HDR NICs, exact-match") {
    const NcclConfig config = config_for(builtin("dgx-a100"), {0, 1, 2, 3, 4, 5, 6, 7}, true);
    CHECK(value(config, "NCCL_IB_HCA") == "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7");
    CHECK(config.find("NCCL_IB_DISABLE") == nullptr);
    CHECK(config.env.back().first == "NCCL_IB_HCA");
  }
  SECTION("DGX A100, GPUs 0 and 1: only the two NICs they use") {
    CHECK(value(config_for(builtin("dgx-a100"), {0, 1}, true), "NCCL_IB_HCA") == "=mlx5_0,mlx5_1");
  }
  SECTION("PCIe box with Ethernet NICs: TCP sockets on those interfaces, IB disabled") {
    const NcclConfig config = config_for(builtin("pcie-8gpu"), {0, 1, 2, 3, 4, 5, 6, 7}, true);
    CHECK(value(config, "NCCL_SOCKET_IFNAME") == "=mlx5_0,mlx5_1");
    CHECK(value(config, "NCCL_IB_DISABLE") == "1");
    CHECK(config.find("NCCL_IB_HCA") == nullptr);
  }
  SECTION("per node of a gang: 2 x 8 GPUs on DGX A100s, each node lists its 8 NICs") {
    const Topology t = builtin("dgx-a100");
    const Allocator allocator(t);
    const std::vector<GangNode> nodes{{&allocator, all_gpus(8), "a"}, {&allocator, all_gpus(8), "b"}};
    GangRequest request;
    request.workers = 2;
    request.gpus_per_worker = 8;
    auto placed = place_gang(nodes, request);
    REQUIRE(placed.ok());
    REQUIRE(placed->nodes.size() == 2);
    for (size_t slot = 0; slot < 2; ++slot) {
      const NcclConfig config = nccl_config(t, *placed, slot, gang_comm_path(*placed, nodes).algorithm);
      CHECK(value(config, "CUDA_VISIBLE_DEVICES") == "0,1,2,3,4,5,6,7");
      CHECK(value(config, "NCCL_IB_HCA") == "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7");
    }
  }
}
